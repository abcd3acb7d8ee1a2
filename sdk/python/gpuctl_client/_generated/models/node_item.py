from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.node_status import NodeStatus
from typing import cast






T = TypeVar("T", bound="NodeItem")



@_attrs_define
class NodeItem:
    """ 
        Example:
            {'boundPools': ['training-pool'], 'cpu': '64', 'createdAt': '2024-06-01T09:00:00Z', 'gpuFree': 4, 'gpuTotal': 8,
                'gpuType': 'a100-80g', 'gpuUsed': 4, 'memory': '256Gi', 'nodeName': 'node-1', 'status': 'active', 'vendor':
                'NVIDIA'}

        Attributes:
            node_name (str):
            status (NodeStatus):
            gpu_total (int):
            gpu_used (int):
            gpu_free (int):
            bound_pools (list[str]):
            cpu (None | str):
            memory (None | str):
            gpu_type (None | str):
            vendor (None | str): the accelerator vendor (NVIDIA, AMD, Intel, Huawei Ascend) by the device resource the node
                advertises, else its vendor's labels; null without accelerators
            created_at (None | str):
     """

    node_name: str
    status: NodeStatus
    gpu_total: int
    gpu_used: int
    gpu_free: int
    bound_pools: list[str]
    cpu: None | str
    memory: None | str
    gpu_type: None | str
    vendor: None | str
    created_at: None | str





    def to_dict(self) -> dict[str, Any]:
        node_name = self.node_name

        status = self.status.value

        gpu_total = self.gpu_total

        gpu_used = self.gpu_used

        gpu_free = self.gpu_free

        bound_pools = self.bound_pools



        cpu: None | str
        cpu = self.cpu

        memory: None | str
        memory = self.memory

        gpu_type: None | str
        gpu_type = self.gpu_type

        vendor: None | str
        vendor = self.vendor

        created_at: None | str
        created_at = self.created_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "status": status,
            "gpuTotal": gpu_total,
            "gpuUsed": gpu_used,
            "gpuFree": gpu_free,
            "boundPools": bound_pools,
            "cpu": cpu,
            "memory": memory,
            "gpuType": gpu_type,
            "vendor": vendor,
            "createdAt": created_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        status = NodeStatus(d.pop("status"))




        gpu_total = d.pop("gpuTotal")

        gpu_used = d.pop("gpuUsed")

        gpu_free = d.pop("gpuFree")

        bound_pools = cast(list[str], d.pop("boundPools"))


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


        def _parse_gpu_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gpu_type = _parse_gpu_type(d.pop("gpuType"))


        def _parse_vendor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vendor = _parse_vendor(d.pop("vendor"))


        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("createdAt"))


        node_item = cls(
            node_name=node_name,
            status=status,
            gpu_total=gpu_total,
            gpu_used=gpu_used,
            gpu_free=gpu_free,
            bound_pools=bound_pools,
            cpu=cpu,
            memory=memory,
            gpu_type=gpu_type,
            vendor=vendor,
            created_at=created_at,
        )

        return node_item

