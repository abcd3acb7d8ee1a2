from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_kind import JobKind
from ..models.job_status import JobStatus
from typing import cast






T = TypeVar("T", bound="JobCreated")



@_attrs_define
class JobCreated:
    """ 
        Example:
            {'createdAt': '2024-06-01T10:00:00Z', 'jobId': 'alice.qwen2-7b-sft', 'kind': 'training', 'message':
                'job/qwen2-7b-sft created', 'name': 'qwen2-7b-sft', 'namespace': 'alice', 'status': 'pending', 'warnings': []}

        Attributes:
            job_id (str):
            name (str):
            namespace (str):
            kind (JobKind):
            status (JobStatus):
            created_at (str):
            message (str):
            warnings (list[str]):
     """

    job_id: str
    name: str
    namespace: str
    kind: JobKind
    status: JobStatus
    created_at: str
    message: str
    warnings: list[str]





    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        name = self.name

        namespace = self.namespace

        kind = self.kind.value

        status = self.status.value

        created_at = self.created_at

        message = self.message

        warnings = self.warnings




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "name": name,
            "namespace": namespace,
            "kind": kind,
            "status": status,
            "createdAt": created_at,
            "message": message,
            "warnings": warnings,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("jobId")

        name = d.pop("name")

        namespace = d.pop("namespace")

        kind = JobKind(d.pop("kind"))




        status = JobStatus(d.pop("status"))




        created_at = d.pop("createdAt")

        message = d.pop("message")

        warnings = cast(list[str], d.pop("warnings"))


        job_created = cls(
            job_id=job_id,
            name=name,
            namespace=namespace,
            kind=kind,
            status=status,
            created_at=created_at,
            message=message,
            warnings=warnings,
        )

        return job_created

