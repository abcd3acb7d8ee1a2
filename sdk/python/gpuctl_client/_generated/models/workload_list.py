from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.workload_item import WorkloadItem





T = TypeVar("T", bound="WorkloadList")



@_attrs_define
class WorkloadList:
    """ 
        Attributes:
            installed (bool): does the cluster serve GPUWorkloads (the CRD)?
            message (str):
            items (list[WorkloadItem]):
     """

    installed: bool
    message: str
    items: list[WorkloadItem]





    def to_dict(self) -> dict[str, Any]:
        from ..models.workload_item import WorkloadItem # noqa: PLC0415
        installed = self.installed

        message = self.message

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "installed": installed,
            "message": message,
            "items": items,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.workload_item import WorkloadItem # noqa: PLC0415
        d = dict(src_dict)
        installed = d.pop("installed")

        message = d.pop("message")

        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = WorkloadItem.from_dict(items_item_data)



            items.append(items_item)


        workload_list = cls(
            installed=installed,
            message=message,
            items=items,
        )

        return workload_list

