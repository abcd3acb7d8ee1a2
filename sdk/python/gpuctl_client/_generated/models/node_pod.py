from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="NodePod")



@_attrs_define
class NodePod:
    """ 
        Attributes:
            namespace (str):
            name (str):
            job (str):
            gpu (int):
     """

    namespace: str
    name: str
    job: str
    gpu: int





    def to_dict(self) -> dict[str, Any]:
        namespace = self.namespace

        name = self.name

        job = self.job

        gpu = self.gpu


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "namespace": namespace,
            "name": name,
            "job": job,
            "gpu": gpu,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        namespace = d.pop("namespace")

        name = d.pop("name")

        job = d.pop("job")

        gpu = d.pop("gpu")

        node_pod = cls(
            namespace=namespace,
            name=name,
            job=job,
            gpu=gpu,
        )

        return node_pod

