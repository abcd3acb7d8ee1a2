from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="WebhookSecretRotated")



@_attrs_define
class WebhookSecretRotated:
    """ 
        Attributes:
            id (str):
            secret (str): the new secret, shown this once
            previous_valid_until (str): until then, requests carry both signatures
     """

    id: str
    secret: str
    previous_valid_until: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        secret = self.secret

        previous_valid_until = self.previous_valid_until


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "secret": secret,
            "previousValidUntil": previous_valid_until,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        secret = d.pop("secret")

        previous_valid_until = d.pop("previousValidUntil")

        webhook_secret_rotated = cls(
            id=id,
            secret=secret,
            previous_valid_until=previous_valid_until,
        )

        return webhook_secret_rotated

