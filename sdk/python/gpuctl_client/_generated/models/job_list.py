from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.job_item import JobItem





T = TypeVar("T", bound="JobList")



@_attrs_define
class JobList:
    """ 
        Attributes:
            total (int):
            items (list[JobItem]):
     """

    total: int
    items: list[JobItem]





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_item import JobItem # noqa: PLC0415
        total = self.total

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "total": total,
            "items": items,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_item import JobItem # noqa: PLC0415
        d = dict(src_dict)
        total = d.pop("total")

        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = JobItem.from_dict(items_item_data)



            items.append(items_item)


        job_list = cls(
            total=total,
            items=items,
        )

        return job_list

