from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PoolChanged")



@_attrs_define
class PoolChanged:
    """ 
        Attributes:
            name (str):
            status (str):
            message (str):
     """

    name: str
    status: str
    message: str





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        status = self.status

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "status": status,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        status = d.pop("status")

        message = d.pop("message")

        pool_changed = cls(
            name=name,
            status=status,
            message=message,
        )

        return pool_changed

