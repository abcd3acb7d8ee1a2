from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.pod_state import PodState





T = TypeVar("T", bound="K8SResources")



@_attrs_define
class K8SResources:
    """ 
        Attributes:
            kind (None | str): the workload's kind; null for a partial job
            job_name (str):
            service (None | str):
            pods (list[str]):
            pod_states (list[PodState]): the same pods, in the same order, with their status, readiness and node
            leftovers (list[str]): a partial job's objects that are left (`service/svc-x`); [] otherwise
     """

    kind: None | str
    job_name: str
    service: None | str
    pods: list[str]
    pod_states: list[PodState]
    leftovers: list[str]





    def to_dict(self) -> dict[str, Any]:
        from ..models.pod_state import PodState # noqa: PLC0415
        kind: None | str
        kind = self.kind

        job_name = self.job_name

        service: None | str
        service = self.service

        pods = self.pods



        pod_states = []
        for pod_states_item_data in self.pod_states:
            pod_states_item = pod_states_item_data.to_dict()
            pod_states.append(pod_states_item)



        leftovers = self.leftovers




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
            "jobName": job_name,
            "service": service,
            "pods": pods,
            "podStates": pod_states,
            "leftovers": leftovers,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pod_state import PodState # noqa: PLC0415
        d = dict(src_dict)
        def _parse_kind(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        kind = _parse_kind(d.pop("kind"))


        job_name = d.pop("jobName")

        def _parse_service(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        service = _parse_service(d.pop("service"))


        pods = cast(list[str], d.pop("pods"))


        pod_states = []
        _pod_states = d.pop("podStates")
        for pod_states_item_data in (_pod_states):
            pod_states_item = PodState.from_dict(pod_states_item_data)



            pod_states.append(pod_states_item)


        leftovers = cast(list[str], d.pop("leftovers"))


        k8s_resources = cls(
            kind=kind,
            job_name=job_name,
            service=service,
            pods=pods,
            pod_states=pod_states,
            leftovers=leftovers,
        )

        return k8s_resources

