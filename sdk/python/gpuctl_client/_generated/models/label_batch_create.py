from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LabelBatchCreate")



@_attrs_define
class LabelBatchCreate:
    """ 
        Example:
            {'key': 'g8s.host/gpu-type', 'nodeNames': ['node-2', 'node-3'], 'overwrite': True, 'value': 'a100-40g'}

        Attributes:
            node_names (list[str]):
            key (str):
            value (str):
            overwrite (bool | Unset):  Default: False.
     """

    node_names: list[str]
    key: str
    value: str
    overwrite: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        node_names = self.node_names



        key = self.key

        value = self.value

        overwrite = self.overwrite


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeNames": node_names,
            "key": key,
            "value": value,
        })
        if overwrite is not UNSET:
            field_dict["overwrite"] = overwrite

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_names = cast(list[str], d.pop("nodeNames"))


        key = d.pop("key")

        value = d.pop("value")

        overwrite = d.pop("overwrite", UNSET)

        label_batch_create = cls(
            node_names=node_names,
            key=key,
            value=value,
            overwrite=overwrite,
        )

        return label_batch_create

