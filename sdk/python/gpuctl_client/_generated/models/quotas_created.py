from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="QuotasCreated")



@_attrs_define
class QuotasCreated:
    """ 
        Attributes:
            names (list[str]):
            users (list[str]):
            status (str):
            message (str):
     """

    names: list[str]
    users: list[str]
    status: str
    message: str





    def to_dict(self) -> dict[str, Any]:
        names = self.names



        users = self.users



        status = self.status

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "names": names,
            "users": users,
            "status": status,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        names = cast(list[str], d.pop("names"))


        users = cast(list[str], d.pop("users"))


        status = d.pop("status")

        message = d.pop("message")

        quotas_created = cls(
            names=names,
            users=users,
            status=status,
            message=message,
        )

        return quotas_created

