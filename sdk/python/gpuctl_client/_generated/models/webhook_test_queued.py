from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="WebhookTestQueued")



@_attrs_define
class WebhookTestQueued:
    """ 
        Attributes:
            id (str):
            webhook_id (str):
            message (str):
     """

    id: str
    webhook_id: str
    message: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        webhook_id = self.webhook_id

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "webhookId": webhook_id,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        webhook_id = d.pop("webhookId")

        message = d.pop("message")

        webhook_test_queued = cls(
            id=id,
            webhook_id=webhook_id,
            message=message,
        )

        return webhook_test_queued

