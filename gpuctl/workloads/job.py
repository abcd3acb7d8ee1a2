"""A batch/v1 Job: pods that run to completion (training, compute)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.constants import Status
from gpuctl.workloads.adapter import Obj, Patch, WorkloadAdapter, pod_is_ready

# Labels the Job controller puts on the pod template, naming the Job's uid.
CONTROLLER_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


class JobAdapter(WorkloadAdapter):
    kind: ClassVar[str] = "Job"
    group: ClassVar[str] = "batch"
    version: ClassVar[str] = "v1"
    plural: ClassVar[str] = "jobs"
    pod_label: ClassVar[str] = c.Labels.JOB_NAME
    pods_field: ClassVar[str] = "parallelism"
    runs_to_completion: ClassVar[bool] = True
    replace_only: ClassVar[bool] = True

    def status(self, obj: Obj) -> str:
        """Succeeded > failed > running > paused > pending. A Job counts pods that wait for a
        node as active; when the server reports `ready` (Kubernetes 1.24+), Running means a
        pod is ready, so an unschedulable job reads Pending. A suspended Job with a Kueue
        queue label is Queued: Kueue resumes it when it admits it."""
        status, spec = _status(obj), _spec(obj)
        if status.get("succeeded", 0) > 0:
            return Status.SUCCEEDED
        if status.get("failed", 0) > 0:
            return Status.FAILED
        if status.get("active", 0) > 0 and status.get("ready", 1) > 0:
            return Status.RUNNING
        if spec.get("suspend"):
            labels = shapes.meta(obj).get("labels") or {}
            return Status.QUEUED if labels.get(c.KUEUE_QUEUE_LABEL) else Status.PAUSED
        return Status.PENDING

    def ready(self, obj: Obj) -> str:
        status = _status(obj)
        desired = _spec(obj).get("parallelism", 1)
        return f"{status.get('ready', status.get('active', 0))}/{desired}"

    def up(self, obj: Obj, live_pods: Sequence[Obj]) -> bool:
        """It succeeded, or every pod is Ready (at least as many as its parallelism, or what
        is left to complete)."""
        spec, status = _spec(obj), _status(obj)
        if status.get("succeeded", 0) >= spec.get("completions", 1) or _complete(obj):
            return True
        running = [p for p in live_pods if _pod_phase(p) not in ("Succeeded", "Failed")]
        wanted = min(
            spec.get("parallelism", 1),
            spec.get("completions", 1) - status.get("succeeded", 0),
        )
        return len(running) >= max(wanted, 1) and all(pod_is_ready(p) for p in running)

    def paused(self, obj: Obj) -> bool:
        return bool(_spec(obj).get("suspend"))

    def pause(self, obj: Obj) -> Patch:
        """Suspend it (the Job controller deletes its running pods)."""
        return Patch(None) if self.paused(obj) else Patch({"spec": {"suspend": True}})

    def resume(self, obj: Obj) -> Patch:
        return Patch({"spec": {"suspend": False}}) if self.paused(obj) else Patch(None)

    def forget_server_fields(self, spec: dict[str, Any]) -> None:
        """The Job controller's selector and labels name the old object's uid; a new Job gets
        its own (creating one with the old selector is refused)."""
        spec.pop("selector", None)
        labels = (spec.get("template") or {}).get("metadata", {}).get("labels", {})
        for key in CONTROLLER_UID_LABELS:
            labels.pop(key, None)


def _spec(obj: Obj) -> shapes.JobSpec:
    spec: shapes.JobSpec = shapes.job(obj).get("spec") or {}
    return spec


def _status(obj: Obj) -> shapes.JobStatus:
    status: shapes.JobStatus = shapes.job(obj).get("status") or {}
    return status


def _pod_phase(pod: Obj) -> str:
    status: shapes.PodStatus = shapes.pod(pod).get("status") or {}
    return status.get("phase", "")


def _complete(obj: Obj) -> bool:
    return any(
        condition.get("type") == "Complete" and condition.get("status") == "True"
        for condition in _status(obj).get("conditions") or []
    )
