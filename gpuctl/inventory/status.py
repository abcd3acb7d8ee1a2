"""What state a job and its pods are in, in words, and when a job counts as up.

The one home of the status and readiness rules: pure functions over live objects (dicts),
shared by `get jobs`, `describe job`, `--wait` and the REST API, so they never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpuctl import constants as c
from gpuctl import shapes, workloads
from gpuctl.constants import Status
from gpuctl.workloads import WorkloadAdapter
from gpuctl.workloads.adapter import container_gpu_resource, container_gpus
from gpuctl.workloads.adapter import pod_is_ready as pod_is_ready

WORKLOAD_KINDS = workloads.WORKLOAD_KINDS
PARTIAL_KIND = "PartialJob"  # the record of a job without its workload (inventory.jobs)


def _pod_status(pod: shapes.Obj) -> shapes.PodStatus:
    status: shapes.PodStatus = shapes.pod(pod).get("status") or {}
    return status


def _pod_spec(pod: shapes.Obj) -> shapes.PodSpec:
    spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
    return spec


def _adapter(obj: shapes.Obj) -> WorkloadAdapter:
    """The workload's adapter; an object of another kind is read as a replicated one."""
    return workloads.adapter_of(obj) or workloads.STATEFUL_SET


def terminating(obj: shapes.Obj) -> bool:
    """Being deleted: it carries a deletionTimestamp, and finalizers (foreground deletion's
    among them) keep it until they are done."""
    return bool(shapes.meta(obj).get("deletionTimestamp"))


def workload_status(obj: shapes.Obj) -> str:
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


def workload_ready(obj: shapes.Obj) -> str:
    """READY as `ready/desired` pods."""
    return _adapter(obj).ready(obj)


def pod_template_gpus(obj: shapes.Obj) -> int:
    """GPUs one pod of the workload asks for."""
    return _adapter(obj).gpus_per_pod(obj)


def workload_pods(obj: shapes.Obj) -> int:
    """The pods the workload asks for now: a Job's parallelism, else its replicas."""
    return _adapter(obj).pods(obj)


def workload_gpus(obj: shapes.Obj) -> int:
    """GPUs the whole workload asks for: per pod times pods (parallelism or replicas)."""
    return _adapter(obj).gpus(obj)


def workload_share(obj: shapes.Obj) -> int:
    """GiB of shared GPU memory the whole workload asks for (gpu-share): per pod times pods."""
    adapter = _adapter(obj)
    return adapter.share_per_pod(obj) * adapter.pods(obj)


def gpu_words(obj: shapes.Obj) -> str:
    """The GPU column of a job: its whole GPUs, or its share of GPU memory (`20Gi shared`):
    a gpu-share job takes part of one GPU, not none."""
    share = workload_share(obj)
    return f"{share}Gi shared" if share else str(workload_gpus(obj))


def pod_gpus(pod: shapes.Obj) -> int:
    return sum(container_gpus(container) for container in _pod_spec(pod).get("containers") or [])


def pod_gpu_resource(pod: shapes.Obj) -> str | None:
    """The accelerator resource name (nvidia.com/gpu, amd.com/gpu...) the pod's containers ask
    for; None when they ask for none."""
    containers = _pod_spec(pod).get("containers") or []
    return next(filter(None, (container_gpu_resource(item) for item in containers)), None)


def pod_status(pod: shapes.Obj) -> str:
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


def printed_pod_status(pod: shapes.Obj) -> str:
    """The STATUS cell the API server prints for a pod in a Table (kubectl get pods), worked
    out from the object for servers that answer without Tables: the pod's reason or phase,
    then the first init container still at work (Init:1/2, Init:<reason>), then the first
    container with a waiting or terminated reason; Terminating while being deleted."""
    status, spec = _pod_status(pod), _pod_spec(pod)
    phase = status.get("phase") or ""
    reason = status.get("reason") or phase
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


def _init_reason(spec: shapes.PodSpec, status: shapes.PodStatus) -> str:
    """Init:N/M or Init:<reason> while an init container keeps the pod from starting, else ""."""
    init_specs = {i.get("name", ""): i for i in spec.get("initContainers") or []}
    for index, container in enumerate(status.get("initContainerStatuses") or []):
        state: shapes.ContainerState = container.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        init_spec = init_specs.get(container.get("name", ""))
        sidecar = init_spec is not None and init_spec.get("restartPolicy") == "Always"
        if terminated and terminated.get("exitCode", 0) == 0:
            continue
        if sidecar and container.get("started"):
            continue
        if terminated:
            return "Init:" + (terminated.get("reason") or _exit_text(terminated))
        if waiting and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            return "Init:" + waiting["reason"]
        return f"Init:{index}/{len(init_specs)}"
    return ""


def _container_reason(status: shapes.PodStatus, reason: str) -> str:
    """The first container's waiting or terminated reason; Completed reads Running (or
    NotReady) while another container still runs."""
    running = False
    for container in reversed(status.get("containerStatuses") or []):
        state: shapes.ContainerState = container.get("state") or {}
        waiting, terminated = state.get("waiting") or {}, state.get("terminated")
        if waiting.get("reason"):
            reason = waiting["reason"]
        elif terminated is not None:
            reason = terminated.get("reason") or _exit_text(terminated)
        elif container.get("ready") and state.get("running") is not None:
            running = True
    if reason == "Completed" and running:
        return "Running" if _condition_true(status, "Ready") else "NotReady"
    return reason


def _exit_text(terminated: shapes.ContainerStateTerminated) -> str:
    signal = terminated.get("signal")
    return f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode', 0)}"


def _condition_true(status: shapes.PodStatus, kind: str) -> bool:
    return any(
        cond.get("type") == kind and cond.get("status") == "True"
        for cond in status.get("conditions") or []
    )


def pod_ready(pod: shapes.Obj) -> str:
    """READY as the API server prints it: containers ready and running, of all containers
    (restartable init containers, sidecars, count among them)."""
    spec, status = _pod_spec(pod), _pod_status(pod)
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


def started_at(pods: Iterable[shapes.Obj]) -> str | None:
    """When a job started: the earliest time a container of its pods started running
    (`state.running.startedAt`, or `startedAt` of a container that has ended, now or before
    a restart); None while none has (pods waiting for a node or an image). Not the Job's
    `status.startTime`, which the Job controller sets at creation."""
    times = []
    for pod in pods:
        for container in _pod_status(pod).get("containerStatuses") or []:
            for state in (container.get("state") or {}, container.get("lastState") or {}):
                running: shapes.ContainerStateRunning = state.get("running") or {}
                ended: shapes.ContainerStateTerminated = state.get("terminated") or {}
                times += [t for t in (running.get("startedAt"), ended.get("startedAt")) if t]
    return min(times, default=None)  # RFC 3339 UTC times order as text


def job_name_of(labels: dict[str, str]) -> str:
    """The gpuctl job a pod belongs to: its `app` label, else its `job-name` label."""
    return labels.get(c.Labels.APP) or labels.get(c.Labels.JOB_NAME) or ""


def unschedulable_message(pod: shapes.Obj) -> str:
    """The scheduler's reason when it cannot place the pod, else ""."""
    for condition in _pod_status(pod).get("conditions") or []:
        if (
            condition.get("type") == "PodScheduled"
            and condition.get("status") == "False"
            and condition.get("reason") == "Unschedulable"
        ):
            return condition.get("message") or ""
    return ""


def failed_init_message(pod: shapes.Obj) -> str:
    """The termination message of an init container that failed (gpuctl's start barrier says
    there why a multi-node job gave up); "" when none did."""
    for item in _pod_status(pod).get("initContainerStatuses") or []:
        state: shapes.ContainerState = item.get("state") or {}
        ended: shapes.ContainerStateTerminated = state.get("terminated") or {}
        if ended.get("exitCode") and ended.get("message"):
            return ended["message"].strip()
    return ""


# ------------------------------------------------------------------------ readiness


def pod_restarts(pod: shapes.Obj) -> int:
    statuses = _pod_status(pod).get("containerStatuses") or []
    return sum(int(s.get("restartCount") or 0) for s in statuses)


def workload_up(obj: shapes.Obj, pods: Iterable[shapes.Obj]) -> bool:
    """Is the workload up, by its kind's rule (its pods being deleted left out)? A Job that
    succeeded, or whose every pod is Ready (at least as many as its parallelism, or what is
    left to complete); a Deployment or StatefulSet with every wanted replica ready and no pod
    of it not Ready. Scaled to zero counts as up."""
    return _adapter(obj).up(obj, [p for p in pods if not terminating(p)])
