from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.label import Label





T = TypeVar("T", bound="NodeLabels")



@_attrs_define
class NodeLabels:
    """ 
        Attributes:
            node_name (str):
            gpu_labels (list[Label]):
            bound_pools (list[str]):
     """

    node_name: str
    gpu_labels: list[Label]
    bound_pools: list[str]





    def to_dict(self) -> dict[str, Any]:
        from ..models.label import Label # noqa: PLC0415
        node_name = self.node_name

        gpu_labels = []
        for gpu_labels_item_data in self.gpu_labels:
            gpu_labels_item = gpu_labels_item_data.to_dict()
            gpu_labels.append(gpu_labels_item)



        bound_pools = self.bound_pools




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "gpuLabels": gpu_labels,
            "boundPools": bound_pools,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label import Label # noqa: PLC0415
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        gpu_labels = []
        _gpu_labels = d.pop("gpuLabels")
        for gpu_labels_item_data in (_gpu_labels):
            gpu_labels_item = Label.from_dict(gpu_labels_item_data)



            gpu_labels.append(gpu_labels_item)


        bound_pools = cast(list[str], d.pop("boundPools"))


        node_labels = cls(
            node_name=node_name,
            gpu_labels=gpu_labels,
            bound_pools=bound_pools,
        )

        return node_labels

