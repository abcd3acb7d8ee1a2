from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="NodeFailure")



@_attrs_define
class NodeFailure:
    """ 
        Attributes:
            node_name (str):
            error (str):
            message (str):
     """

    node_name: str
    error: str
    message: str





    def to_dict(self) -> dict[str, Any]:
        node_name = self.node_name

        error = self.error

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "error": error,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        error = d.pop("error")

        message = d.pop("message")

        node_failure = cls(
            node_name=node_name,
            error=error,
            message=message,
        )

        return node_failure

