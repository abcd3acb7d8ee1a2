from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="WebhookItem")



@_attrs_define
class WebhookItem:
    """ 
        Attributes:
            id (str):
            url (str):
            events (list[str]):
            namespace (None | str): the namespace it covers; null: every one
            owner (str):
            created_at (str):
            disabled (None | str): why it no longer delivers; null while active
     """

    id: str
    url: str
    events: list[str]
    namespace: None | str
    owner: str
    created_at: str
    disabled: None | str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        url = self.url

        events = self.events



        namespace: None | str
        namespace = self.namespace

        owner = self.owner

        created_at = self.created_at

        disabled: None | str
        disabled = self.disabled


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "url": url,
            "events": events,
            "namespace": namespace,
            "owner": owner,
            "createdAt": created_at,
            "disabled": disabled,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
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


        webhook_item = cls(
            id=id,
            url=url,
            events=events,
            namespace=namespace,
            owner=owner,
            created_at=created_at,
            disabled=disabled,
        )

        return webhook_item

