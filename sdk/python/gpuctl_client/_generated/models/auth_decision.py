from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="AuthDecision")



@_attrs_define
class AuthDecision:
    """ 
        Attributes:
            allowed (bool):
            message (str):
            user (str):
            role (str):
     """

    allowed: bool
    message: str
    user: str
    role: str





    def to_dict(self) -> dict[str, Any]:
        allowed = self.allowed

        message = self.message

        user = self.user

        role = self.role


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "allowed": allowed,
            "message": message,
            "user": user,
            "role": role,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        allowed = d.pop("allowed")

        message = d.pop("message")

        user = d.pop("user")

        role = d.pop("role")

        auth_decision = cls(
            allowed=allowed,
            message=message,
            user=user,
            role=role,
        )

        return auth_decision

