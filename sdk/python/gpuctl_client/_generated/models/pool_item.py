from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PoolItem")



@_attrs_define
class PoolItem:
    """ 
        Attributes:
            name (str):
            description (str):
            gpu_total (int):
            gpu_used (int):
            gpu_free (int):
            gpu_type (list[str]):
            allowed_gpu_types (list[str]): the GPU models the pool allows (POST /pools gpuType); [] allows any
            node_count (int):
            gpu_cap (int | None): the pool's GPU cap (max-gpus; POST /pools maxGpus); null when it has none
            gpu_cap_used (int): the GPUs the unfinished pods of the pool's jobs request: what counts against gpuCap
            status (str):
            isolation (None | str | Unset): isolated (its nodes tainted for its jobs alone) or shared (POST /pools
                isolation); null for a pool only node labels name (no record)
     """

    name: str
    description: str
    gpu_total: int
    gpu_used: int
    gpu_free: int
    gpu_type: list[str]
    allowed_gpu_types: list[str]
    node_count: int
    gpu_cap: int | None
    gpu_cap_used: int
    status: str
    isolation: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        description = self.description

        gpu_total = self.gpu_total

        gpu_used = self.gpu_used

        gpu_free = self.gpu_free

        gpu_type = self.gpu_type



        allowed_gpu_types = self.allowed_gpu_types



        node_count = self.node_count

        gpu_cap: int | None
        gpu_cap = self.gpu_cap

        gpu_cap_used = self.gpu_cap_used

        status = self.status

        isolation: None | str | Unset
        if isinstance(self.isolation, Unset):
            isolation = UNSET
        else:
            isolation = self.isolation


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "description": description,
            "gpuTotal": gpu_total,
            "gpuUsed": gpu_used,
            "gpuFree": gpu_free,
            "gpuType": gpu_type,
            "allowedGpuTypes": allowed_gpu_types,
            "nodeCount": node_count,
            "gpuCap": gpu_cap,
            "gpuCapUsed": gpu_cap_used,
            "status": status,
        })
        if isolation is not UNSET:
            field_dict["isolation"] = isolation

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        description = d.pop("description")

        gpu_total = d.pop("gpuTotal")

        gpu_used = d.pop("gpuUsed")

        gpu_free = d.pop("gpuFree")

        gpu_type = cast(list[str], d.pop("gpuType"))


        allowed_gpu_types = cast(list[str], d.pop("allowedGpuTypes"))


        node_count = d.pop("nodeCount")

        def _parse_gpu_cap(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        gpu_cap = _parse_gpu_cap(d.pop("gpuCap"))


        gpu_cap_used = d.pop("gpuCapUsed")

        status = d.pop("status")

        def _parse_isolation(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        isolation = _parse_isolation(d.pop("isolation", UNSET))


        pool_item = cls(
            name=name,
            description=description,
            gpu_total=gpu_total,
            gpu_used=gpu_used,
            gpu_free=gpu_free,
            gpu_type=gpu_type,
            allowed_gpu_types=allowed_gpu_types,
            node_count=node_count,
            gpu_cap=gpu_cap,
            gpu_cap_used=gpu_cap_used,
            status=status,
            isolation=isolation,
        )

        return pool_item

