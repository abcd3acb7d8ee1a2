from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="NodeResources")



@_attrs_define
class NodeResources:
    """ 
        Attributes:
            cpu_total (None | str):
            cpu_used (str):
            memory_total (None | str):
            memory_used (str):
            gpu_total (int):
            gpu_used (int):
            gpu_free (int):
     """

    cpu_total: None | str
    cpu_used: str
    memory_total: None | str
    memory_used: str
    gpu_total: int
    gpu_used: int
    gpu_free: int





    def to_dict(self) -> dict[str, Any]:
        cpu_total: None | str
        cpu_total = self.cpu_total

        cpu_used = self.cpu_used

        memory_total: None | str
        memory_total = self.memory_total

        memory_used = self.memory_used

        gpu_total = self.gpu_total

        gpu_used = self.gpu_used

        gpu_free = self.gpu_free


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "cpuTotal": cpu_total,
            "cpuUsed": cpu_used,
            "memoryTotal": memory_total,
            "memoryUsed": memory_used,
            "gpuTotal": gpu_total,
            "gpuUsed": gpu_used,
            "gpuFree": gpu_free,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_cpu_total(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cpu_total = _parse_cpu_total(d.pop("cpuTotal"))


        cpu_used = d.pop("cpuUsed")

        def _parse_memory_total(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        memory_total = _parse_memory_total(d.pop("memoryTotal"))


        memory_used = d.pop("memoryUsed")

        gpu_total = d.pop("gpuTotal")

        gpu_used = d.pop("gpuUsed")

        gpu_free = d.pop("gpuFree")

        node_resources = cls(
            cpu_total=cpu_total,
            cpu_used=cpu_used,
            memory_total=memory_total,
            memory_used=memory_used,
            gpu_total=gpu_total,
            gpu_used=gpu_used,
            gpu_free=gpu_free,
        )

        return node_resources

