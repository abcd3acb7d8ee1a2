from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PodState")



@_attrs_define
class PodState:
    """ One pod of a job as `gpuctl get pods` shows it.

        Attributes:
            name (str):
            status (str): the pod's STATUS in plain words (Running, Pending, Image pull failed...)
            ready (str): containers ready of all containers, e.g. 1/1
            node (None | str): the node it runs on; null until it is placed
            restarts (int):
     """

    name: str
    status: str
    ready: str
    node: None | str
    restarts: int





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        status = self.status

        ready = self.ready

        node: None | str
        node = self.node

        restarts = self.restarts


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "status": status,
            "ready": ready,
            "node": node,
            "restarts": restarts,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        status = d.pop("status")

        ready = d.pop("ready")

        def _parse_node(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        node = _parse_node(d.pop("node"))


        restarts = d.pop("restarts")

        pod_state = cls(
            name=name,
            status=status,
            ready=ready,
            node=node,
            restarts=restarts,
        )

        return pod_state

