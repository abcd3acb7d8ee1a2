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
            last_timestamp (None | str): when the last line returned was written (RFC 3339); null without lines
            truncated (bool): lines were left out to stay within limitBytes (ask for fewer with tail, or for more bytes)
     """

    logs: list[str]
    last_timestamp: None | str
    truncated: bool





    def to_dict(self) -> dict[str, Any]:
        logs = self.logs



        last_timestamp: None | str
        last_timestamp = self.last_timestamp

        truncated = self.truncated


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "logs": logs,
            "lastTimestamp": last_timestamp,
            "truncated": truncated,
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


        truncated = d.pop("truncated")

        job_logs = cls(
            logs=logs,
            last_timestamp=last_timestamp,
            truncated=truncated,
        )

        return job_logs

