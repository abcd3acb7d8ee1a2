from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="NodeFailure")



@_attrs_define
class NodeFailure:
    """ 
        Attributes:
            node_name (str):
            error (str):
            message (str):
            field (None | str | Unset): the request's field at fault (`overwrite` for a label conflict)
     """

    node_name: str
    error: str
    message: str
    field: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        node_name = self.node_name

        error = self.error

        message = self.message

        field: None | str | Unset
        if isinstance(self.field, Unset):
            field = UNSET
        else:
            field = self.field


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "error": error,
            "message": message,
        })
        if field is not UNSET:
            field_dict["field"] = field

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        error = d.pop("error")

        message = d.pop("message")

        def _parse_field(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        field = _parse_field(d.pop("field", UNSET))


        node_failure = cls(
            node_name=node_name,
            error=error,
            message=message,
            field=field,
        )

        return node_failure

