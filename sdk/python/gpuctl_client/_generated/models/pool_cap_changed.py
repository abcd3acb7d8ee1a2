from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.other_work import OtherWork
  from ..models.pool_cap_changed_gputype import PoolCapChangedGputype
  from ..models.pool_job import PoolJob





T = TypeVar("T", bound="PoolCapChanged")



@_attrs_define
class PoolCapChanged:
    """ 
        Attributes:
            name (str):
            description (str):
            nodes (list[str]):
            gpu_total (int):
            gpu_used (int):
            gpu_free (int):
            gpu_type (PoolCapChangedGputype):
            gpu_cap (int | None): the pool's GPU cap (max-gpus; POST /pools maxGpus); null when it has none
            gpu_cap_used (int): the GPUs the unfinished pods of the pool's jobs request: what counts against gpuCap
            status (str):
            jobs (list[PoolJob]):
            other_jobs (OtherWork): Other users' work, counted and never named (what a user may not see by name).
            message (str): what the change wrote: the pool's record, and its Kueue ClusterQueue where Kueue is installed
     """

    name: str
    description: str
    nodes: list[str]
    gpu_total: int
    gpu_used: int
    gpu_free: int
    gpu_type: PoolCapChangedGputype
    gpu_cap: int | None
    gpu_cap_used: int
    status: str
    jobs: list[PoolJob]
    other_jobs: OtherWork
    message: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.other_work import OtherWork # noqa: PLC0415
        from ..models.pool_cap_changed_gputype import PoolCapChangedGputype # noqa: PLC0415
        from ..models.pool_job import PoolJob # noqa: PLC0415
        name = self.name

        description = self.description

        nodes = self.nodes



        gpu_total = self.gpu_total

        gpu_used = self.gpu_used

        gpu_free = self.gpu_free

        gpu_type = self.gpu_type.to_dict()

        gpu_cap: int | None
        gpu_cap = self.gpu_cap

        gpu_cap_used = self.gpu_cap_used

        status = self.status

        jobs = []
        for jobs_item_data in self.jobs:
            jobs_item = jobs_item_data.to_dict()
            jobs.append(jobs_item)



        other_jobs = self.other_jobs.to_dict()

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "description": description,
            "nodes": nodes,
            "gpuTotal": gpu_total,
            "gpuUsed": gpu_used,
            "gpuFree": gpu_free,
            "gpuType": gpu_type,
            "gpuCap": gpu_cap,
            "gpuCapUsed": gpu_cap_used,
            "status": status,
            "jobs": jobs,
            "otherJobs": other_jobs,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.other_work import OtherWork # noqa: PLC0415
        from ..models.pool_cap_changed_gputype import PoolCapChangedGputype # noqa: PLC0415
        from ..models.pool_job import PoolJob # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        description = d.pop("description")

        nodes = cast(list[str], d.pop("nodes"))


        gpu_total = d.pop("gpuTotal")

        gpu_used = d.pop("gpuUsed")

        gpu_free = d.pop("gpuFree")

        gpu_type = PoolCapChangedGputype.from_dict(d.pop("gpuType"))




        def _parse_gpu_cap(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        gpu_cap = _parse_gpu_cap(d.pop("gpuCap"))


        gpu_cap_used = d.pop("gpuCapUsed")

        status = d.pop("status")

        jobs = []
        _jobs = d.pop("jobs")
        for jobs_item_data in (_jobs):
            jobs_item = PoolJob.from_dict(jobs_item_data)



            jobs.append(jobs_item)


        other_jobs = OtherWork.from_dict(d.pop("otherJobs"))




        message = d.pop("message")

        pool_cap_changed = cls(
            name=name,
            description=description,
            nodes=nodes,
            gpu_total=gpu_total,
            gpu_used=gpu_used,
            gpu_free=gpu_free,
            gpu_type=gpu_type,
            gpu_cap=gpu_cap,
            gpu_cap_used=gpu_cap_used,
            status=status,
            jobs=jobs,
            other_jobs=other_jobs,
            message=message,
        )

        return pool_cap_changed

