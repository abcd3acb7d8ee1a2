from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_kind import JobKind
from ..models.job_status import JobStatus
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.job_metrics_now import JobMetricsNow
  from ..models.job_resources import JobResources
  from ..models.k8s_resources import K8SResources





T = TypeVar("T", bound="JobDetail")



@_attrs_define
class JobDetail:
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
            version (None | str):
            yaml_content (None | str):
            image (str):
            priority (str):
            description (str):
            resources (JobResources): One pod's resources, and `replicas`, the pods the job asks for now.
            metrics (JobMetricsNow):
            metrics_error (None | str):
            why (str):
            access (str):
            k_8_s_resources (K8SResources):
            yaml_content_note (None | str | Unset):
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
    version: None | str
    yaml_content: None | str
    image: str
    priority: str
    description: str
    resources: JobResources
    metrics: JobMetricsNow
    metrics_error: None | str
    why: str
    access: str
    k_8_s_resources: K8SResources
    yaml_content_note: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_metrics_now import JobMetricsNow # noqa: PLC0415
        from ..models.job_resources import JobResources # noqa: PLC0415
        from ..models.k8s_resources import K8SResources # noqa: PLC0415
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

        version: None | str
        version = self.version

        yaml_content: None | str
        yaml_content = self.yaml_content

        image = self.image

        priority = self.priority

        description = self.description

        resources = self.resources.to_dict()

        metrics = self.metrics.to_dict()

        metrics_error: None | str
        metrics_error = self.metrics_error

        why = self.why

        access = self.access

        k_8_s_resources = self.k_8_s_resources.to_dict()

        yaml_content_note: None | str | Unset
        if isinstance(self.yaml_content_note, Unset):
            yaml_content_note = UNSET
        else:
            yaml_content_note = self.yaml_content_note


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
            "version": version,
            "yamlContent": yaml_content,
            "image": image,
            "priority": priority,
            "description": description,
            "resources": resources,
            "metrics": metrics,
            "metricsError": metrics_error,
            "why": why,
            "access": access,
            "k8sResources": k_8_s_resources,
        })
        if yaml_content_note is not UNSET:
            field_dict["yamlContentNote"] = yaml_content_note

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_metrics_now import JobMetricsNow # noqa: PLC0415
        from ..models.job_resources import JobResources # noqa: PLC0415
        from ..models.k8s_resources import K8SResources # noqa: PLC0415
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


        def _parse_version(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        version = _parse_version(d.pop("version"))


        def _parse_yaml_content(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        yaml_content = _parse_yaml_content(d.pop("yamlContent"))


        image = d.pop("image")

        priority = d.pop("priority")

        description = d.pop("description")

        resources = JobResources.from_dict(d.pop("resources"))




        metrics = JobMetricsNow.from_dict(d.pop("metrics"))




        def _parse_metrics_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        metrics_error = _parse_metrics_error(d.pop("metricsError"))


        why = d.pop("why")

        access = d.pop("access")

        k_8_s_resources = K8SResources.from_dict(d.pop("k8sResources"))




        def _parse_yaml_content_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        yaml_content_note = _parse_yaml_content_note(d.pop("yamlContentNote", UNSET))


        job_detail = cls(
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
            version=version,
            yaml_content=yaml_content,
            image=image,
            priority=priority,
            description=description,
            resources=resources,
            metrics=metrics,
            metrics_error=metrics_error,
            why=why,
            access=access,
            k_8_s_resources=k_8_s_resources,
            yaml_content_note=yaml_content_note,
        )

        return job_detail

