from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="QuotaDeleted")



@_attrs_define
class QuotaDeleted:
    """ 
        Attributes:
            user_name (str):
            status (str):
            message (str):
     """

    user_name: str
    status: str
    message: str





    def to_dict(self) -> dict[str, Any]:
        user_name = self.user_name

        status = self.status

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "userName": user_name,
            "status": status,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user_name = d.pop("userName")

        status = d.pop("status")

        message = d.pop("message")

        quota_deleted = cls(
            user_name=user_name,
            status=status,
            message=message,
        )

        return quota_deleted

