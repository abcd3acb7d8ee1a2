"""What state a job and its pods are in, in words, and when a job counts as up.

The one home of the status and readiness rules: pure functions over live objects (dicts),
shared by `get jobs`, `describe job`, `--wait` and the REST API, so they never disagree.
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
    """kubectl's STATUS column, with waiting reasons in plain words."""
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
    """The gpuctl job a pod belongs to: its `app` label, else its `job-name` label."""
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


# ------------------------------------------------------------------------ readiness

# Waiting reasons after which a pod will not start without a change to the spec.
FATAL_WAITING_REASONS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff")


def pod_is_ready(pod: dict[str, Any]) -> bool:
    """The pod's Ready condition is True."""
    return any(
        condition.get("type") == "Ready" and condition.get("status") == "True"
        for condition in _status(pod).get("conditions") or []
    )


def pod_restarts(pod: dict[str, Any]) -> int:
    return sum(int(s.get("restartCount") or 0) for s in _status(pod).get("containerStatuses") or [])


def pod_trouble(pod: dict[str, Any]) -> tuple[str, bool]:
    """(why the pod is not up, in words; is that final?). ("", False) when nothing is wrong.

    Final: an image that cannot be pulled, a crash loop, a container that exited non-zero.
    Not final: the scheduler cannot place it yet (a node may free up)."""
    status = _status(pod)
    for container in status.get("containerStatuses") or []:
        state = container.get("state") or {}
        waiting = state.get("waiting") or {}
        reason = waiting.get("reason", "")
        if reason in FATAL_WAITING_REASONS:
            words = c.CONTAINER_WAITING_REASONS.get(reason, reason)
            detail = waiting.get("message", "")
            return f"{words} ({reason}{': ' + detail if detail else ''})", True
        terminated = state.get("terminated")
        if (
            terminated
            and int(terminated.get("exitCode") or 0) != 0
            and _status(pod).get("phase") != "Succeeded"
        ):
            code, why = terminated.get("exitCode"), terminated.get("reason") or "Error"
            return f"container {container.get('name')} exited with code {code} ({why})", True
    message = unschedulable_message(pod)
    if message:
        return f"unschedulable: {message}", False
    return "", False


def last_exit(pod: dict[str, Any]) -> str:
    """How the pod's last restarted container ended, in words ("" when none did)."""
    for container in _status(pod).get("containerStatuses") or []:
        terminated = (container.get("lastState") or {}).get("terminated")
        if terminated:
            code, why = terminated.get("exitCode"), terminated.get("reason") or "Error"
            name = container.get("name")
            return f"container {name} restarted after exiting with code {code} ({why})"
    return "its container restarted"


def workload_failure(obj: dict[str, Any]) -> str:
    """Why the workload has failed for good ("" when it has not): a Job's Failed condition."""
    if obj.get("kind") != "Job":
        return ""
    for condition in _status(obj).get("conditions") or []:
        if condition.get("type") == "Failed" and condition.get("status") == "True":
            why = f"{condition.get('reason', '')} {condition.get('message', '')}".strip()
            return f"job failed: {why}"
    return ""


def workload_up(obj: dict[str, Any], pods: list[dict[str, Any]]) -> bool:
    """Is the workload up: a Job that succeeded, or whose every pod is Ready (at least as many
    as its parallelism, or what is left to complete); a Deployment or StatefulSet with every
    wanted replica ready and no pod of it not Ready? Scaled to zero counts as up."""
    spec, status = _spec(obj), _status(obj)
    live = [p for p in pods if not (p.get("metadata") or {}).get("deletionTimestamp")]
    if obj.get("kind") == "Job":
        if status.get("succeeded", 0) >= spec.get("completions", 1) or _complete(obj):
            return True
        running = [p for p in live if (_status(p).get("phase")) not in ("Succeeded", "Failed")]
        wanted = min(
            spec.get("parallelism", 1),
            spec.get("completions", 1) - status.get("succeeded", 0),
        )
        return len(running) >= max(wanted, 1) and all(pod_is_ready(p) for p in running)
    wanted = spec.get("replicas", 1)
    if wanted == 0:
        return True
    return bool(status.get("readyReplicas", 0) >= wanted and sum(map(pod_is_ready, live)) >= wanted)


def _complete(obj: dict[str, Any]) -> bool:
    return any(
        condition.get("type") == "Complete" and condition.get("status") == "True"
        for condition in _status(obj).get("conditions") or []
    )
