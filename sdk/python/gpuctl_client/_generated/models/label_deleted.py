from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="LabelDeleted")



@_attrs_define
class LabelDeleted:
    """ 
        Attributes:
            node_name (str):
            label_key (str):
            message (str):
     """

    node_name: str
    label_key: str
    message: str





    def to_dict(self) -> dict[str, Any]:
        node_name = self.node_name

        label_key = self.label_key

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "labelKey": label_key,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        label_key = d.pop("labelKey")

        message = d.pop("message")

        label_deleted = cls(
            node_name=node_name,
            label_key=label_key,
            message=message,
        )

        return label_deleted

