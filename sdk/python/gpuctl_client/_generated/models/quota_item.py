from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.resource_usage import ResourceUsage
  from ..models.usage import Usage





T = TypeVar("T", bound="QuotaItem")



@_attrs_define
class QuotaItem:
    """ 
        Attributes:
            user_name (str):
            name (str):
            description (str):
            created_at (None | str):
            cpu (None | Usage):
            memory (None | Usage):
            gpu (None | Usage):
            resources (list[ResourceUsage]):
     """

    user_name: str
    name: str
    description: str
    created_at: None | str
    cpu: None | Usage
    memory: None | Usage
    gpu: None | Usage
    resources: list[ResourceUsage]





    def to_dict(self) -> dict[str, Any]:
        from ..models.resource_usage import ResourceUsage # noqa: PLC0415
        from ..models.usage import Usage # noqa: PLC0415
        user_name = self.user_name

        name = self.name

        description = self.description

        created_at: None | str
        created_at = self.created_at

        cpu: dict[str, Any] | None
        if isinstance(self.cpu, Usage):
            cpu = self.cpu.to_dict()
        else:
            cpu = self.cpu

        memory: dict[str, Any] | None
        if isinstance(self.memory, Usage):
            memory = self.memory.to_dict()
        else:
            memory = self.memory

        gpu: dict[str, Any] | None
        if isinstance(self.gpu, Usage):
            gpu = self.gpu.to_dict()
        else:
            gpu = self.gpu

        resources = []
        for resources_item_data in self.resources:
            resources_item = resources_item_data.to_dict()
            resources.append(resources_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "userName": user_name,
            "name": name,
            "description": description,
            "createdAt": created_at,
            "cpu": cpu,
            "memory": memory,
            "gpu": gpu,
            "resources": resources,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.resource_usage import ResourceUsage # noqa: PLC0415
        from ..models.usage import Usage # noqa: PLC0415
        d = dict(src_dict)
        user_name = d.pop("userName")

        name = d.pop("name")

        description = d.pop("description")

        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("createdAt"))


        def _parse_cpu(data: object) -> None | Usage:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cpu_type_1 = Usage.from_dict(data)



                return cpu_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Usage, data)

        cpu = _parse_cpu(d.pop("cpu"))


        def _parse_memory(data: object) -> None | Usage:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                memory_type_1 = Usage.from_dict(data)



                return memory_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Usage, data)

        memory = _parse_memory(d.pop("memory"))


        def _parse_gpu(data: object) -> None | Usage:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                gpu_type_1 = Usage.from_dict(data)



                return gpu_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Usage, data)

        gpu = _parse_gpu(d.pop("gpu"))


        resources = []
        _resources = d.pop("resources")
        for resources_item_data in (_resources):
            resources_item = ResourceUsage.from_dict(resources_item_data)



            resources.append(resources_item)


        quota_item = cls(
            user_name=user_name,
            name=name,
            description=description,
            created_at=created_at,
            cpu=cpu,
            memory=memory,
            gpu=gpu,
            resources=resources,
        )

        return quota_item

