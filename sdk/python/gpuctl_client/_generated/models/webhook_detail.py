from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.webhook_delivery_record import WebhookDeliveryRecord





T = TypeVar("T", bound="WebhookDetail")



@_attrs_define
class WebhookDetail:
    """ 
        Attributes:
            id (str):
            url (str):
            events (list[str]):
            namespace (None | str): the namespace it covers; null: every one
            owner (str):
            created_at (str):
            disabled (None | str): why it no longer delivers; null while active
            pending (int): messages still to deliver
            deliveries (list[WebhookDeliveryRecord]): recent attempts, newest first
     """

    id: str
    url: str
    events: list[str]
    namespace: None | str
    owner: str
    created_at: str
    disabled: None | str
    pending: int
    deliveries: list[WebhookDeliveryRecord]





    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_delivery_record import WebhookDeliveryRecord # noqa: PLC0415
        id = self.id

        url = self.url

        events = self.events



        namespace: None | str
        namespace = self.namespace

        owner = self.owner

        created_at = self.created_at

        disabled: None | str
        disabled = self.disabled

        pending = self.pending

        deliveries = []
        for deliveries_item_data in self.deliveries:
            deliveries_item = deliveries_item_data.to_dict()
            deliveries.append(deliveries_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "url": url,
            "events": events,
            "namespace": namespace,
            "owner": owner,
            "createdAt": created_at,
            "disabled": disabled,
            "pending": pending,
            "deliveries": deliveries,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_delivery_record import WebhookDeliveryRecord # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = cast(list[str], d.pop("events"))


        def _parse_namespace(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        namespace = _parse_namespace(d.pop("namespace"))


        owner = d.pop("owner")

        created_at = d.pop("createdAt")

        def _parse_disabled(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        disabled = _parse_disabled(d.pop("disabled"))


        pending = d.pop("pending")

        deliveries = []
        _deliveries = d.pop("deliveries")
        for deliveries_item_data in (_deliveries):
            deliveries_item = WebhookDeliveryRecord.from_dict(deliveries_item_data)



            deliveries.append(deliveries_item)


        webhook_detail = cls(
            id=id,
            url=url,
            events=events,
            namespace=namespace,
            owner=owner,
            created_at=created_at,
            disabled=disabled,
            pending=pending,
            deliveries=deliveries,
        )

        return webhook_detail

