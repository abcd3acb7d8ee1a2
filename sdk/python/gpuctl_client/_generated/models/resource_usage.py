from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="ResourceUsage")



@_attrs_define
class ResourceUsage:
    """ 
        Attributes:
            used (str):
            hard (str):
            percent (int | None):
            key (str):
     """

    used: str
    hard: str
    percent: int | None
    key: str





    def to_dict(self) -> dict[str, Any]:
        used = self.used

        hard = self.hard

        percent: int | None
        percent = self.percent

        key = self.key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "used": used,
            "hard": hard,
            "percent": percent,
            "key": key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        used = d.pop("used")

        hard = d.pop("hard")

        def _parse_percent(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        percent = _parse_percent(d.pop("percent"))


        key = d.pop("key")

        resource_usage = cls(
            used=used,
            hard=hard,
            percent=percent,
            key=key,
        )

        return resource_usage

