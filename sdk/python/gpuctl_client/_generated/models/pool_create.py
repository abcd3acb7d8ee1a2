from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pool_create_isolation import PoolCreateIsolation
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PoolCreate")



@_attrs_define
class PoolCreate:
    """ 
        Example:
            {'description': 'A100 nodes for training', 'gpuType': ['a100-80g'], 'name': 'training-pool', 'nodes': ['node-1',
                'node-2']}

        Attributes:
            name (str):
            description (str | Unset):  Default: ''.
            nodes (list[str] | Unset):
            gpu_type (list[str] | Unset): the GPU models the pool allows (any letter case): a node of another model is
                refused (409); nodes' GPU-type labels are never written
            max_gpus (int | None | Unset): the pool's GPU cap: the most GPUs the unfinished pods of its jobs may request
                together; creating a job beyond it is refused
            isolation (PoolCreateIsolation | Unset): isolated: the pool's nodes are tainted so that only its jobs run there;
                shared: no taint Default: PoolCreateIsolation.ISOLATED.
     """

    name: str
    description: str | Unset = ''
    nodes: list[str] | Unset = UNSET
    gpu_type: list[str] | Unset = UNSET
    max_gpus: int | None | Unset = UNSET
    isolation: PoolCreateIsolation | Unset = PoolCreateIsolation.ISOLATED





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        description = self.description

        nodes: list[str] | Unset = UNSET
        if not isinstance(self.nodes, Unset):
            nodes = self.nodes



        gpu_type: list[str] | Unset = UNSET
        if not isinstance(self.gpu_type, Unset):
            gpu_type = self.gpu_type



        max_gpus: int | None | Unset
        if isinstance(self.max_gpus, Unset):
            max_gpus = UNSET
        else:
            max_gpus = self.max_gpus

        isolation: str | Unset = UNSET
        if not isinstance(self.isolation, Unset):
            isolation = self.isolation.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if nodes is not UNSET:
            field_dict["nodes"] = nodes
        if gpu_type is not UNSET:
            field_dict["gpuType"] = gpu_type
        if max_gpus is not UNSET:
            field_dict["maxGpus"] = max_gpus
        if isolation is not UNSET:
            field_dict["isolation"] = isolation

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        description = d.pop("description", UNSET)

        nodes = cast(list[str], d.pop("nodes", UNSET))


        gpu_type = cast(list[str], d.pop("gpuType", UNSET))


        def _parse_max_gpus(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_gpus = _parse_max_gpus(d.pop("maxGpus", UNSET))


        _isolation = d.pop("isolation", UNSET)
        isolation: PoolCreateIsolation | Unset
        if isinstance(_isolation,  Unset):
            isolation = UNSET
        else:
            isolation = PoolCreateIsolation(_isolation)




        pool_create = cls(
            name=name,
            description=description,
            nodes=nodes,
            gpu_type=gpu_type,
            max_gpus=max_gpus,
            isolation=isolation,
        )

        return pool_create

