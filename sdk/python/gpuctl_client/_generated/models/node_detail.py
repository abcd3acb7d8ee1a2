from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.node_status import NodeStatus
from typing import cast

if TYPE_CHECKING:
  from ..models.label import Label
  from ..models.node_pod import NodePod
  from ..models.node_resources import NodeResources
  from ..models.other_work import OtherWork





T = TypeVar("T", bound="NodeDetail")



@_attrs_define
class NodeDetail:
    """ 
        Attributes:
            node_name (str):
            status (NodeStatus):
            resources (NodeResources):
            gpu_type (None | str):
            vendor (None | str): the accelerator vendor (NVIDIA, AMD, Intel, Huawei Ascend) by the device resource the node
                advertises, else its vendor's labels; null without accelerators
            labels (list[Label]):
            bound_pools (list[str]):
            pods (list[NodePod]):
            other_pods (OtherWork): Other users' work, counted and never named (what a user may not see by name).
            created_at (None | str):
            last_updated_at (None | str):
     """

    node_name: str
    status: NodeStatus
    resources: NodeResources
    gpu_type: None | str
    vendor: None | str
    labels: list[Label]
    bound_pools: list[str]
    pods: list[NodePod]
    other_pods: OtherWork
    created_at: None | str
    last_updated_at: None | str





    def to_dict(self) -> dict[str, Any]:
        from ..models.label import Label # noqa: PLC0415
        from ..models.node_pod import NodePod # noqa: PLC0415
        from ..models.node_resources import NodeResources # noqa: PLC0415
        from ..models.other_work import OtherWork # noqa: PLC0415
        node_name = self.node_name

        status = self.status.value

        resources = self.resources.to_dict()

        gpu_type: None | str
        gpu_type = self.gpu_type

        vendor: None | str
        vendor = self.vendor

        labels = []
        for labels_item_data in self.labels:
            labels_item = labels_item_data.to_dict()
            labels.append(labels_item)



        bound_pools = self.bound_pools



        pods = []
        for pods_item_data in self.pods:
            pods_item = pods_item_data.to_dict()
            pods.append(pods_item)



        other_pods = self.other_pods.to_dict()

        created_at: None | str
        created_at = self.created_at

        last_updated_at: None | str
        last_updated_at = self.last_updated_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "nodeName": node_name,
            "status": status,
            "resources": resources,
            "gpuType": gpu_type,
            "vendor": vendor,
            "labels": labels,
            "boundPools": bound_pools,
            "pods": pods,
            "otherPods": other_pods,
            "createdAt": created_at,
            "lastUpdatedAt": last_updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label import Label # noqa: PLC0415
        from ..models.node_pod import NodePod # noqa: PLC0415
        from ..models.node_resources import NodeResources # noqa: PLC0415
        from ..models.other_work import OtherWork # noqa: PLC0415
        d = dict(src_dict)
        node_name = d.pop("nodeName")

        status = NodeStatus(d.pop("status"))




        resources = NodeResources.from_dict(d.pop("resources"))




        def _parse_gpu_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gpu_type = _parse_gpu_type(d.pop("gpuType"))


        def _parse_vendor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vendor = _parse_vendor(d.pop("vendor"))


        labels = []
        _labels = d.pop("labels")
        for labels_item_data in (_labels):
            labels_item = Label.from_dict(labels_item_data)



            labels.append(labels_item)


        bound_pools = cast(list[str], d.pop("boundPools"))


        pods = []
        _pods = d.pop("pods")
        for pods_item_data in (_pods):
            pods_item = NodePod.from_dict(pods_item_data)



            pods.append(pods_item)


        other_pods = OtherWork.from_dict(d.pop("otherPods"))




        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("createdAt"))


        def _parse_last_updated_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_updated_at = _parse_last_updated_at(d.pop("lastUpdatedAt"))


        node_detail = cls(
            node_name=node_name,
            status=status,
            resources=resources,
            gpu_type=gpu_type,
            vendor=vendor,
            labels=labels,
            bound_pools=bound_pools,
            pods=pods,
            other_pods=other_pods,
            created_at=created_at,
            last_updated_at=last_updated_at,
        )

        return node_detail

