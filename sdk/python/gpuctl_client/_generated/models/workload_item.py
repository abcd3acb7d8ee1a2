from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="WorkloadItem")



@_attrs_define
class WorkloadItem:
    """ 
        Attributes:
            namespace (str):
            name (str):
            model_name (str):
            gpu_count (int):
            phase (str): Pending, Scheduled or Failed (the controller's phase)
            node (None | str): the node the controller placed it on
            job_name (None | str): the Job the controller created for it
            retries (int):
            message (str): the controller's last word on it
            created_at (None | str):
     """

    namespace: str
    name: str
    model_name: str
    gpu_count: int
    phase: str
    node: None | str
    job_name: None | str
    retries: int
    message: str
    created_at: None | str





    def to_dict(self) -> dict[str, Any]:
        namespace = self.namespace

        name = self.name

        model_name = self.model_name

        gpu_count = self.gpu_count

        phase = self.phase

        node: None | str
        node = self.node

        job_name: None | str
        job_name = self.job_name

        retries = self.retries

        message = self.message

        created_at: None | str
        created_at = self.created_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "namespace": namespace,
            "name": name,
            "modelName": model_name,
            "gpuCount": gpu_count,
            "phase": phase,
            "node": node,
            "jobName": job_name,
            "retries": retries,
            "message": message,
            "createdAt": created_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        namespace = d.pop("namespace")

        name = d.pop("name")

        model_name = d.pop("modelName")

        gpu_count = d.pop("gpuCount")

        phase = d.pop("phase")

        def _parse_node(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        node = _parse_node(d.pop("node"))


        def _parse_job_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        job_name = _parse_job_name(d.pop("jobName"))


        retries = d.pop("retries")

        message = d.pop("message")

        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("createdAt"))


        workload_item = cls(
            namespace=namespace,
            name=name,
            model_name=model_name,
            gpu_count=gpu_count,
            phase=phase,
            node=node,
            job_name=job_name,
            retries=retries,
            message=message,
            created_at=created_at,
        )

        return workload_item

