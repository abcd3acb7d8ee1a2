from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Point")



@_attrs_define
class Point:
    """ 
        Attributes:
            timestamp (str):
            value (float):
     """

    timestamp: str
    value: float





    def to_dict(self) -> dict[str, Any]:
        timestamp = self.timestamp

        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "timestamp": timestamp,
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        timestamp = d.pop("timestamp")

        value = d.pop("value")

        point = cls(
            timestamp=timestamp,
            value=value,
        )

        return point

