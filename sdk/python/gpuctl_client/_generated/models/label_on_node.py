from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="LabelOnNode")



@_attrs_define
class LabelOnNode:
    """ 
        Attributes:
            node_name (str):
            label_key (str):
            label_value (str):
     """

    node_name: str
    label_key: str
    label_value: str





    def to_dict(self) -> dict[str, Any]:
        node_name = self.node_name

        label_key = self.label_key

        label_value = self.label_value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "labelKey": label_key,
            "labelValue": label_value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        label_key = d.pop("labelKey")

        label_value = d.pop("labelValue")

        label_on_node = cls(
            node_name=node_name,
            label_key=label_key,
            label_value=label_value,
        )

        return label_on_node

