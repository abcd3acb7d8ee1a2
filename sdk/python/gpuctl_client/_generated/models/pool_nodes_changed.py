from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PoolNodesChanged")



@_attrs_define
class PoolNodesChanged:
    """ 
        Attributes:
            name (str):
            nodes (list[str]):
            status (str):
            message (str):
     """

    name: str
    nodes: list[str]
    status: str
    message: str





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        nodes = self.nodes



        status = self.status

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "nodes": nodes,
            "status": status,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        nodes = cast(list[str], d.pop("nodes"))


        status = d.pop("status")

        message = d.pop("message")

        pool_nodes_changed = cls(
            name=name,
            nodes=nodes,
            status=status,
            message=message,
        )

        return pool_nodes_changed

