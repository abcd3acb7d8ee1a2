from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PoolCapSet")



@_attrs_define
class PoolCapSet:
    """ 
        Example:
            {'maxGpus': 12}

        Attributes:
            max_gpus (int | None): the pool's new GPU cap (at most 1000000); null removes the cap
     """

    max_gpus: int | None





    def to_dict(self) -> dict[str, Any]:
        max_gpus: int | None
        max_gpus = self.max_gpus


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "maxGpus": max_gpus,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_max_gpus(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        max_gpus = _parse_max_gpus(d.pop("maxGpus"))


        pool_cap_set = cls(
            max_gpus=max_gpus,
        )

        return pool_cap_set

