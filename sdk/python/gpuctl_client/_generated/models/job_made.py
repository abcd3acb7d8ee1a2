from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="JobMade")



@_attrs_define
class JobMade:
    """ 
        Attributes:
            job_id (str):
            name (str):
     """

    job_id: str
    name: str





    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "name": name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("jobId")

        name = d.pop("name")

        job_made = cls(
            job_id=job_id,
            name=name,
        )

        return job_made

