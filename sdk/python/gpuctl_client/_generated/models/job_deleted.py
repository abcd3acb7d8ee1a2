from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_deleted_status import JobDeletedStatus






T = TypeVar("T", bound="JobDeleted")



@_attrs_define
class JobDeleted:
    """ 
        Example:
            {'jobId': 'alice.qwen2-7b-sft', 'message': 'job/qwen2-7b-sft deleted', 'status': 'terminating'}

        Attributes:
            job_id (str):
            status (JobDeletedStatus):
            message (str):
     """

    job_id: str
    status: JobDeletedStatus
    message: str





    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        status = self.status.value

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "status": status,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("jobId")

        status = JobDeletedStatus(d.pop("status"))




        message = d.pop("message")

        job_deleted = cls(
            job_id=job_id,
            status=status,
            message=message,
        )

        return job_deleted

