from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="JobResources")



@_attrs_define
class JobResources:
    """ One pod's resources, and `replicas`, the pods the job asks for now.

        Attributes:
            gpu (int):
            gpu_share (None | str): shared GPU memory one pod asks for (gpu-share, e.g. 20Gi); null for whole GPUs
            gpu_type (None | str):
            cpu (None | str):
            memory (None | str):
            replicas (int):
     """

    gpu: int
    gpu_share: None | str
    gpu_type: None | str
    cpu: None | str
    memory: None | str
    replicas: int





    def to_dict(self) -> dict[str, Any]:
        gpu = self.gpu

        gpu_share: None | str
        gpu_share = self.gpu_share

        gpu_type: None | str
        gpu_type = self.gpu_type

        cpu: None | str
        cpu = self.cpu

        memory: None | str
        memory = self.memory

        replicas = self.replicas


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "gpu": gpu,
            "gpuShare": gpu_share,
            "gpuType": gpu_type,
            "cpu": cpu,
            "memory": memory,
            "replicas": replicas,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        gpu = d.pop("gpu")

        def _parse_gpu_share(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gpu_share = _parse_gpu_share(d.pop("gpuShare"))


        def _parse_gpu_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gpu_type = _parse_gpu_type(d.pop("gpuType"))


        def _parse_cpu(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cpu = _parse_cpu(d.pop("cpu"))


        def _parse_memory(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        memory = _parse_memory(d.pop("memory"))


        replicas = d.pop("replicas")

        job_resources = cls(
            gpu=gpu,
            gpu_share=gpu_share,
            gpu_type=gpu_type,
            cpu=cpu,
            memory=memory,
            replicas=replicas,
        )

        return job_resources

