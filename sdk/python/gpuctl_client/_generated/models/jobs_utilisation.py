from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.job_utilisation import JobUtilisation





T = TypeVar("T", bound="JobsUtilisation")



@_attrs_define
class JobsUtilisation:
    """ 
        Example:
            {'items': [{'gpuUtilization': [71.5, 88.0, 93.2], 'jobId': 'alice.qwen2-7b-sft'}], 'message': '', 'source':
                'http://prometheus.monitoring:9090'}

        Attributes:
            items (list[JobUtilisation]):
            source (None | str):
            message (str):
     """

    items: list[JobUtilisation]
    source: None | str
    message: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_utilisation import JobUtilisation # noqa: PLC0415
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)



        source: None | str
        source = self.source

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "items": items,
            "source": source,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_utilisation import JobUtilisation # noqa: PLC0415
        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = JobUtilisation.from_dict(items_item_data)



            items.append(items_item)


        def _parse_source(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source = _parse_source(d.pop("source"))


        message = d.pop("message")

        jobs_utilisation = cls(
            items=items,
            source=source,
            message=message,
        )

        return jobs_utilisation

