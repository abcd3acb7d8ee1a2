from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.item_failure import ItemFailure
  from ..models.job_made import JobMade





T = TypeVar("T", bound="JobBatch")



@_attrs_define
class JobBatch:
    """ 
        Example:
            {'failed': [], 'success': [{'jobId': 'alice.task1', 'name': 'task1'}, {'jobId': 'alice.task2', 'name':
                'task2'}]}

        Attributes:
            success (list[JobMade]):
            failed (list[ItemFailure]):
     """

    success: list[JobMade]
    failed: list[ItemFailure]





    def to_dict(self) -> dict[str, Any]:
        from ..models.item_failure import ItemFailure # noqa: PLC0415
        from ..models.job_made import JobMade # noqa: PLC0415
        success = []
        for success_item_data in self.success:
            success_item = success_item_data.to_dict()
            success.append(success_item)



        failed = []
        for failed_item_data in self.failed:
            failed_item = failed_item_data.to_dict()
            failed.append(failed_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "success": success,
            "failed": failed,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.item_failure import ItemFailure # noqa: PLC0415
        from ..models.job_made import JobMade # noqa: PLC0415
        d = dict(src_dict)
        success = []
        _success = d.pop("success")
        for success_item_data in (_success):
            success_item = JobMade.from_dict(success_item_data)



            success.append(success_item)


        failed = []
        _failed = d.pop("failed")
        for failed_item_data in (_failed):
            failed_item = ItemFailure.from_dict(failed_item_data)



            failed.append(failed_item)


        job_batch = cls(
            success=success,
            failed=failed,
        )

        return job_batch

