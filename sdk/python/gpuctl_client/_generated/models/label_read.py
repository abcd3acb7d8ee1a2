from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.label import Label





T = TypeVar("T", bound="LabelRead")



@_attrs_define
class LabelRead:
    """ 
        Attributes:
            node_name (str):
            label (Label):
     """

    node_name: str
    label: Label





    def to_dict(self) -> dict[str, Any]:
        from ..models.label import Label # noqa: PLC0415
        node_name = self.node_name

        label = self.label.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "label": label,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label import Label # noqa: PLC0415
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        label = Label.from_dict(d.pop("label"))




        label_read = cls(
            node_name=node_name,
            label=label,
        )

        return label_read

