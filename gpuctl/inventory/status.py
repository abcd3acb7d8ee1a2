"""What state a job and its pods are in, in words, and when a job counts as up.

The one home of the status and readiness rules: pure functions over live objects (dicts),
shared by `get jobs`, `describe job`, `--wait` and the REST API, so they never disagree.
"""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.constants import Status
from gpuctl.workloads import WorkloadAdapter
from gpuctl.workloads.adapter import container_gpus
from gpuctl.workloads.adapter import pod_is_ready as pod_is_ready

WORKLOAD_KINDS = workloads.WORKLOAD_KINDS
PARTIAL_KIND = "PartialJob"  # the record of a job without its workload (inventory.jobs)


def _status(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("status") or {}


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("spec") or {}


def _adapter(obj: dict[str, Any]) -> WorkloadAdapter:
    """The workload's adapter; an object of another kind is read as a replicated one."""
    return workloads.adapter_of(obj) or workloads.STATEFUL_SET


def terminating(obj: dict[str, Any]) -> bool:
    """Being deleted: it carries a deletionTimestamp, and finalizers (foreground deletion's
    among them) keep it until they are done."""
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def workload_status(obj: dict[str, Any]) -> str:
    """The kind's status rule (gpuctl.workloads: a Job succeeded > failed > running > paused
    or queued > pending; a Deployment or StatefulSet all ready > some ready > scaled to zero
    > pending), except that any workload being deleted (foreground deletion keeps it until
    its pods are gone) is Terminating, and a job of which objects are left but no workload (a
    deletion stopped half-way: gpuctl.inventory.jobs.partial_job) is Partial."""
    if obj.get("kind") == PARTIAL_KIND:
        return Status.PARTIAL
    if terminating(obj):
        return Status.TERMINATING
    return _adapter(obj).status(obj)


def workload_ready(obj: dict[str, Any]) -> str:
    """READY as `ready/desired` pods."""
    return _adapter(obj).ready(obj)


def pod_template_gpus(obj: dict[str, Any]) -> int:
    """GPUs one pod of the workload asks for."""
    return _adapter(obj).gpus_per_pod(obj)


def workload_pods(obj: dict[str, Any]) -> int:
    """The pods the workload asks for now: a Job's parallelism, else its replicas."""
    return _adapter(obj).pods(obj)


def workload_gpus(obj: dict[str, Any]) -> int:
    """GPUs the whole workload asks for: per pod times pods (parallelism or replicas)."""
    return _adapter(obj).gpus(obj)


def pod_gpus(pod: dict[str, Any]) -> int:
    return sum(container_gpus(container) for container in _spec(pod).get("containers") or [])


def pod_status(pod: dict[str, Any]) -> str:
    """gpuctl's STATUS for a pod: kubectl's (the API server's printed Status) in plain words."""
    return pod_status_words(printed_pod_status(pod))


def pod_status_words(printed: str) -> str:
    """kubectl's STATUS of a pod in an ML engineer's words: container waiting reasons as the
    constants word them (ImagePullBackOff: "Image pull failed"), a finished pod Succeeded.
    Everything else (Running, Pending, Terminating, Error, OOMKilled, Init:0/1...) as kubectl."""
    if printed == "Completed":
        return Status.SUCCEEDED
    if not printed:
        return Status.PENDING
    return c.CONTAINER_WAITING_REASONS.get(printed, printed)


def printed_pod_status(pod: dict[str, Any]) -> str:
    """The STATUS cell the API server prints for a pod in a Table (kubectl get pods), worked
    out from the object for servers that answer without Tables: the pod's reason or phase,
    then the first init container still at work (Init:1/2, Init:<reason>), then the first
    container with a waiting or terminated reason; Terminating while being deleted."""
    status, spec = _status(pod), _spec(pod)
    phase = str(status.get("phase") or "")
    reason = str(status.get("reason") or phase)
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    initializing = _init_reason(spec, status)
    if initializing:
        reason = initializing
    if not initializing or _condition_true(status, "Initialized"):
        reason = _container_reason(status, reason)
    if terminating(pod):
        if status.get("reason") == "NodeLost":
            return "Unknown"
        if phase not in ("Succeeded", "Failed"):
            return "Terminating"
    return reason


def _init_reason(spec: dict[str, Any], status: dict[str, Any]) -> str:
    """Init:N/M or Init:<reason> while an init container keeps the pod from starting, else ""."""
    init_specs = {i.get("name"): i for i in spec.get("initContainers") or []}
    for index, container in enumerate(status.get("initContainerStatuses") or []):
        state = container.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        sidecar = (init_specs.get(container.get("name")) or {}).get("restartPolicy") == "Always"
        if terminated and terminated.get("exitCode", 0) == 0:
            continue
        if sidecar and container.get("started"):
            continue
        if terminated:
            return "Init:" + (terminated.get("reason") or _exit_text(terminated))
        if waiting and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            return "Init:" + str(waiting["reason"])
        return f"Init:{index}/{len(init_specs)}"
    return ""


def _container_reason(status: dict[str, Any], reason: str) -> str:
    """The first container's waiting or terminated reason; Completed reads Running (or
    NotReady) while another container still runs."""
    running = False
    for container in reversed(status.get("containerStatuses") or []):
        state = container.get("state") or {}
        waiting, terminated = state.get("waiting") or {}, state.get("terminated")
        if waiting.get("reason"):
            reason = str(waiting["reason"])
        elif terminated is not None:
            reason = str(terminated.get("reason") or _exit_text(terminated))
        elif container.get("ready") and state.get("running") is not None:
            running = True
    if reason == "Completed" and running:
        return "Running" if _condition_true(status, "Ready") else "NotReady"
    return reason


def _exit_text(terminated: dict[str, Any]) -> str:
    signal = terminated.get("signal")
    return f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode', 0)}"


def _condition_true(status: dict[str, Any], kind: str) -> bool:
    return any(
        cond.get("type") == kind and cond.get("status") == "True"
        for cond in status.get("conditions") or []
    )


def pod_ready(pod: dict[str, Any]) -> str:
    """READY as the API server prints it: containers ready and running, of all containers
    (restartable init containers, sidecars, count among them)."""
    spec, status = _spec(pod), _status(pod)
    sidecars = {
        init.get("name")
        for init in spec.get("initContainers") or []
        if init.get("restartPolicy") == "Always"
    }
    ready = sum(
        1
        for container in status.get("containerStatuses") or []
        if container.get("ready") and (container.get("state") or {}).get("running") is not None
    )
    ready += sum(
        1
        for init in status.get("initContainerStatuses") or []
        if init.get("name") in sidecars and init.get("ready")
    )
    return f"{ready}/{len(spec.get('containers') or []) + len(sidecars)}"


def started_at(pods: list[dict[str, Any]]) -> str | None:
    """When a job started: the earliest time a container of its pods started running
    (`state.running.startedAt`, or `startedAt` of a container that has ended, now or before
    a restart); None while none has (pods waiting for a node or an image). Not the Job's
    `status.startTime`, which the Job controller sets at creation."""
    times = []
    for pod in pods:
        for container in _status(pod).get("containerStatuses") or []:
            for state in (container.get("state") or {}, container.get("lastState") or {}):
                for phase in ("running", "terminated"):
                    started = (state.get(phase) or {}).get("startedAt")
                    if started:
                        times.append(str(started))
    return min(times, default=None)  # RFC 3339 UTC times order as text


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


def failed_init_message(pod: dict[str, Any]) -> str:
    """The termination message of an init container that failed (gpuctl's start barrier says
    there why a multi-node job gave up); "" when none did."""
    for item in (pod.get("status") or {}).get("initContainerStatuses") or []:
        ended = (item.get("state") or {}).get("terminated") or {}
        if ended.get("exitCode") and ended.get("message"):
            return str(ended["message"]).strip()
    return ""


# ------------------------------------------------------------------------ readiness


def pod_restarts(pod: dict[str, Any]) -> int:
    return sum(int(s.get("restartCount") or 0) for s in _status(pod).get("containerStatuses") or [])


def workload_up(obj: dict[str, Any], pods: list[dict[str, Any]]) -> bool:
    """Is the workload up, by its kind's rule (its pods being deleted left out)? A Job that
    succeeded, or whose every pod is Ready (at least as many as its parallelism, or what is
    left to complete); a Deployment or StatefulSet with every wanted replica ready and no pod
    of it not Ready. Scaled to zero counts as up."""
    return _adapter(obj).up(obj, [p for p in pods if not terminating(p)])
