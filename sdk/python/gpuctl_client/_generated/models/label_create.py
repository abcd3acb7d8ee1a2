from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="LabelCreate")



@_attrs_define
class LabelCreate:
    """ 
        Example:
            {'key': 'g8s.host/gpu-type', 'overwrite': False, 'value': 'a100-80g'}

        Attributes:
            key (str):
            value (str):
            overwrite (bool | Unset):  Default: False.
     """

    key: str
    value: str
    overwrite: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        key = self.key

        value = self.value

        overwrite = self.overwrite


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "key": key,
            "value": value,
        })
        if overwrite is not UNSET:
            field_dict["overwrite"] = overwrite

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        value = d.pop("value")

        overwrite = d.pop("overwrite", UNSET)

        label_create = cls(
            key=key,
            value=value,
            overwrite=overwrite,
        )

        return label_create

