from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="K8SResources")



@_attrs_define
class K8SResources:
    """ 
        Attributes:
            kind (None | str): the workload's kind; null for a partial job
            job_name (str):
            service (None | str):
            pods (list[str]):
            leftovers (list[str]): a partial job's objects that are left (`service/svc-x`); [] otherwise
     """

    kind: None | str
    job_name: str
    service: None | str
    pods: list[str]
    leftovers: list[str]





    def to_dict(self) -> dict[str, Any]:
        kind: None | str
        kind = self.kind

        job_name = self.job_name

        service: None | str
        service = self.service

        pods = self.pods



        leftovers = self.leftovers




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
            "jobName": job_name,
            "service": service,
            "pods": pods,
            "leftovers": leftovers,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
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


        leftovers = cast(list[str], d.pop("leftovers"))


        k8s_resources = cls(
            kind=kind,
            job_name=job_name,
            service=service,
            pods=pods,
            leftovers=leftovers,
        )

        return k8s_resources

