from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="JobUtilisation")



@_attrs_define
class JobUtilisation:
    """ 
        Attributes:
            job_id (str):
            gpu_utilization (list[float]): the mean GPU utilisation (%) of the job's pods, oldest first, evenly spaced
     """

    job_id: str
    gpu_utilization: list[float]





    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        gpu_utilization = self.gpu_utilization




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "gpuUtilization": gpu_utilization,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("jobId")

        gpu_utilization = cast(list[float], d.pop("gpuUtilization"))


        job_utilisation = cls(
            job_id=job_id,
            gpu_utilization=gpu_utilization,
        )

        return job_utilisation

