from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="OtherWork")



@_attrs_define
class OtherWork:
    """ Other users' work, counted and never named (what a user may not see by name).

        Attributes:
            jobs (int):
            pods (int):
            gpu (int):
     """

    jobs: int
    pods: int
    gpu: int





    def to_dict(self) -> dict[str, Any]:
        jobs = self.jobs

        pods = self.pods

        gpu = self.gpu


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobs": jobs,
            "pods": pods,
            "gpu": gpu,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        jobs = d.pop("jobs")

        pods = d.pop("pods")

        gpu = d.pop("gpu")

        other_work = cls(
            jobs=jobs,
            pods=pods,
            gpu=gpu,
        )

        return other_work

