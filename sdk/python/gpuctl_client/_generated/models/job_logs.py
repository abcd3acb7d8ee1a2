from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="JobLogs")



@_attrs_define
class JobLogs:
    """ 
        Attributes:
            logs (list[str]):
            last_timestamp (None | str):
     """

    logs: list[str]
    last_timestamp: None | str





    def to_dict(self) -> dict[str, Any]:
        logs = self.logs



        last_timestamp: None | str
        last_timestamp = self.last_timestamp


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "logs": logs,
            "lastTimestamp": last_timestamp,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        logs = cast(list[str], d.pop("logs"))


        def _parse_last_timestamp(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_timestamp = _parse_last_timestamp(d.pop("lastTimestamp"))


        job_logs = cls(
            logs=logs,
            last_timestamp=last_timestamp,
        )

        return job_logs

