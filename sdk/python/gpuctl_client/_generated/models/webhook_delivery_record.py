from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="WebhookDeliveryRecord")



@_attrs_define
class WebhookDeliveryRecord:
    """ 
        Attributes:
            webhook_id (str):
            event (str):
            attempt (int):
            at (str):
            outcome (str): delivered, retrying or gave-up
            status_code (int | None):
            error (None | str):
     """

    webhook_id: str
    event: str
    attempt: int
    at: str
    outcome: str
    status_code: int | None
    error: None | str





    def to_dict(self) -> dict[str, Any]:
        webhook_id = self.webhook_id

        event = self.event

        attempt = self.attempt

        at = self.at

        outcome = self.outcome

        status_code: int | None
        status_code = self.status_code

        error: None | str
        error = self.error


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookId": webhook_id,
            "event": event,
            "attempt": attempt,
            "at": at,
            "outcome": outcome,
            "statusCode": status_code,
            "error": error,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        event = d.pop("event")

        attempt = d.pop("attempt")

        at = d.pop("at")

        outcome = d.pop("outcome")

        def _parse_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status_code = _parse_status_code(d.pop("statusCode"))


        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


        webhook_delivery_record = cls(
            webhook_id=webhook_id,
            event=event,
            attempt=attempt,
            at=at,
            outcome=outcome,
            status_code=status_code,
            error=error,
        )

        return webhook_delivery_record

