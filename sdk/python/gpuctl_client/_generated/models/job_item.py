from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_kind import JobKind
from ..models.job_status import JobStatus
from typing import cast






T = TypeVar("T", bound="JobItem")



@_attrs_define
class JobItem:
    """ 
        Attributes:
            job_id (str):
            name (str):
            namespace (str):
            kind (JobKind):
            pool (str):
            status (JobStatus):
            ready (str):
            gpu (int):
            gpu_share (None | str): shared GPU memory the job asks for in all (gpu-share, e.g. 20Gi); null for whole GPUs. A
                share takes part of one GPU: gpu is then 0
            gpu_type (None | str):
            created_at (None | str):
            started_at (None | str):
     """

    job_id: str
    name: str
    namespace: str
    kind: JobKind
    pool: str
    status: JobStatus
    ready: str
    gpu: int
    gpu_share: None | str
    gpu_type: None | str
    created_at: None | str
    started_at: None | str





    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        name = self.name

        namespace = self.namespace

        kind = self.kind.value

        pool = self.pool

        status = self.status.value

        ready = self.ready

        gpu = self.gpu

        gpu_share: None | str
        gpu_share = self.gpu_share

        gpu_type: None | str
        gpu_type = self.gpu_type

        created_at: None | str
        created_at = self.created_at

        started_at: None | str
        started_at = self.started_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "name": name,
            "namespace": namespace,
            "kind": kind,
            "pool": pool,
            "status": status,
            "ready": ready,
            "gpu": gpu,
            "gpuShare": gpu_share,
            "gpuType": gpu_type,
            "createdAt": created_at,
            "startedAt": started_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("jobId")

        name = d.pop("name")

        namespace = d.pop("namespace")

        kind = JobKind(d.pop("kind"))




        pool = d.pop("pool")

        status = JobStatus(d.pop("status"))




        ready = d.pop("ready")

        gpu = d.pop("gpu")

        def _parse_gpu_share(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gpu_share = _parse_gpu_share(d.pop("gpuShare"))


        def _parse_gpu_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gpu_type = _parse_gpu_type(d.pop("gpuType"))


        def _parse_created_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_at = _parse_created_at(d.pop("createdAt"))


        def _parse_started_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        started_at = _parse_started_at(d.pop("startedAt"))


        job_item = cls(
            job_id=job_id,
            name=name,
            namespace=namespace,
            kind=kind,
            pool=pool,
            status=status,
            ready=ready,
            gpu=gpu,
            gpu_share=gpu_share,
            gpu_type=gpu_type,
            created_at=created_at,
            started_at=started_at,
        )

        return job_item

