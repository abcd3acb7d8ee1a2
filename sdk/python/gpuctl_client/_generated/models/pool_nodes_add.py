from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PoolNodesAdd")



@_attrs_define
class PoolNodesAdd:
    """ 
        Example:
            {'nodes': ['node-3'], 'overwrite': False}

        Attributes:
            nodes (list[str]): node names
            overwrite (bool | Unset): move nodes that are in another pool (else 409) Default: False.
     """

    nodes: list[str]
    overwrite: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        nodes = self.nodes



        overwrite = self.overwrite


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodes": nodes,
        })
        if overwrite is not UNSET:
            field_dict["overwrite"] = overwrite

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        nodes = cast(list[str], d.pop("nodes"))


        overwrite = d.pop("overwrite", UNSET)

        pool_nodes_add = cls(
            nodes=nodes,
            overwrite=overwrite,
        )

        return pool_nodes_add

