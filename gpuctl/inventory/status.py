"""What state a job and its pods are in, in words (seed 000 "Status Calculation Rules", SPEC §7).

Pure functions over live objects (dicts), shared by get, describe and --wait.
"""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl.constants import Status

WORKLOAD_KINDS = ("Job", "Deployment", "StatefulSet")


def _status(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("status") or {}


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("spec") or {}


def workload_status(obj: dict[str, Any]) -> str:
    """Job: succeeded > failed > running > paused > pending. A Job counts pods that wait for a
    node as active; when the server reports `ready` (Kubernetes 1.24+), Running means a pod is
    ready, so an unschedulable job reads Pending. Deployment/StatefulSet: all ready > some
    ready > scaled to zero (Paused) > Pending."""
    status, spec = _status(obj), _spec(obj)
    if obj.get("kind") == "Job":
        if status.get("succeeded", 0) > 0:
            return Status.SUCCEEDED
        if status.get("failed", 0) > 0:
            return Status.FAILED
        if status.get("active", 0) > 0 and status.get("ready", 1) > 0:
            return Status.RUNNING
        if spec.get("suspend"):
            return Status.PAUSED
        return Status.PENDING
    desired = spec.get("replicas", 1)
    ready = status.get("readyReplicas", 0)
    if desired > 0 and ready >= desired:
        return Status.RUNNING
    if ready > 0:
        return Status.PARTIALLY_RUNNING
    if desired == 0:
        return Status.PAUSED
    return Status.PENDING


def workload_ready(obj: dict[str, Any]) -> str:
    """READY as `ready/desired` pods."""
    status, spec = _status(obj), _spec(obj)
    if obj.get("kind") == "Job":
        desired = spec.get("parallelism", 1)
        return f"{status.get('ready', status.get('active', 0))}/{desired}"
    return f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}"


def pod_template_gpus(obj: dict[str, Any]) -> int:
    """GPUs one pod of the workload asks for."""
    template = _spec(obj).get("template") or {}
    return sum(container_gpus(container) for container in _spec(template).get("containers") or [])


def container_gpus(container: dict[str, Any]) -> int:
    resources = container.get("resources") or {}
    value = (resources.get("limits") or {}).get(c.GPU_RESOURCE) or (
        resources.get("requests") or {}
    ).get(c.GPU_RESOURCE)
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def workload_gpus(obj: dict[str, Any]) -> int:
    """GPUs the whole workload asks for: per pod times pods (parallelism or replicas)."""
    spec = _spec(obj)
    pods = spec.get("parallelism", 1) if obj.get("kind") == "Job" else spec.get("replicas", 1)
    return pod_template_gpus(obj) * int(pods or 0)


def pod_gpus(pod: dict[str, Any]) -> int:
    return sum(container_gpus(container) for container in _spec(pod).get("containers") or [])


def pod_status(pod: dict[str, Any]) -> str:
    """kubectl's STATUS column, with waiting reasons in plain words (seed 000 constants)."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return "Terminating"
    status = _status(pod)
    for container in status.get("containerStatuses") or []:
        state = container.get("state") or {}
        waiting = state.get("waiting")
        if waiting and waiting.get("reason"):
            reason = str(waiting["reason"])
            return c.CONTAINER_WAITING_REASONS.get(reason, reason)
        terminated = state.get("terminated")
        if terminated and terminated.get("reason") and status.get("phase") != "Succeeded":
            return str(terminated["reason"])
    if status.get("phase") == "Succeeded":
        return Status.SUCCEEDED
    return str(status.get("phase") or Status.PENDING)


def pod_ready(pod: dict[str, Any]) -> str:
    containers = _spec(pod).get("containers") or []
    ready = sum(1 for s in _status(pod).get("containerStatuses") or [] if s.get("ready"))
    return f"{ready}/{len(containers)}"


def job_name_of(labels: dict[str, str]) -> str:
    """The gpuctl job a pod belongs to (seed 000 `_get_job_name`): `app`, else `job-name`."""
    return labels.get(c.Labels.APP) or labels.get(c.Labels.JOB_NAME) or ""


def unschedulable_message(pod: dict[str, Any]) -> str:
    """The scheduler's reason when it cannot place the pod, else ""."""
    for condition in _status(pod).get("conditions") or []:
        if (
            condition.get("type") == "PodScheduled"
            and condition.get("status") == "False"
            and condition.get("reason") == "Unschedulable"
        ):
            return str(condition.get("message") or "")
    return ""
