from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PoolJob")



@_attrs_define
class PoolJob:
    """ 
        Attributes:
            job_id (str):
            name (str):
            namespace (str):
            gpu (int):
            nodes (list[str]):
     """

    job_id: str
    name: str
    namespace: str
    gpu: int
    nodes: list[str]





    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        name = self.name

        namespace = self.namespace

        gpu = self.gpu

        nodes = self.nodes




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "name": name,
            "namespace": namespace,
            "gpu": gpu,
            "nodes": nodes,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("jobId")

        name = d.pop("name")

        namespace = d.pop("namespace")

        gpu = d.pop("gpu")

        nodes = cast(list[str], d.pop("nodes"))


        pool_job = cls(
            job_id=job_id,
            name=name,
            namespace=namespace,
            gpu=gpu,
            nodes=nodes,
        )

        return pool_job

