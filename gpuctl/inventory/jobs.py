"""Jobs on a live cluster: find, list, explain, pause and resume them, and read their logs.

A gpuctl job is the workload object a job spec rendered (Job, Deployment or StatefulSet, with
`app.kubernetes.io/managed-by: gpuctl` and a job type: JOB_SELECTOR); its pods are found by
`job-name` (training) or `app`.
Nothing here prints: the commands in gpuctl.cli.jobs do.
"""

from __future__ import annotations

import base64
import queue
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from gpuctl import constants as c
from gpuctl import shapes, workloads
from gpuctl.cluster.api import ClusterAPI, LogCluster, LogStreams, TableReads
from gpuctl.cluster.client import Forbidden, KubeError, LogEnds, NotFound, TableRow
from gpuctl.cluster.resources import ref
from gpuctl.constants import Labels
from gpuctl.errors import GpuctlError
from gpuctl.inventory import explain, preemption, status, visibility
from gpuctl.inventory.nodes import ACTIVE_PODS
from gpuctl.placement.affinity import required_gpu_type
from gpuctl.spec import accelerators, runtime
from gpuctl.times import parse_rfc3339
from gpuctl.workloads import WorkloadAdapter, pod_spec_of

WORKLOADS = status.WORKLOAD_KINDS
DESCRIPTION_ANNOTATION = c.ANNOTATION_PREFIX + "description"
T = TypeVar("T")


class JobNotFound(GpuctlError):
    pass


# What a job is: an object gpuctl made for a user from a job spec, so it carries both
# `app.kubernetes.io/managed-by: gpuctl` and the job-type label (training, inference, ...).
# gpuctl's own objects (the controller's Deployment, pool records, leases, dashboards) carry
# only managed-by, so they are never listed, found or deleted as jobs. The rule is this
# selector and `is_job`, nowhere else.
JOB_SELECTOR = f"{Labels.MANAGED_BY}={c.MANAGED_BY_VALUE},{Labels.JOB_TYPE}"


def is_job(obj: dict[str, Any]) -> bool:
    """Whether this object is (part of) a user's job: JOB_SELECTOR, in Python."""
    labels = labels_of(obj)
    return labels.get(Labels.MANAGED_BY) == c.MANAGED_BY_VALUE and bool(labels.get(Labels.JOB_TYPE))


def selector(pool: str | None = None, kind: str | None = None) -> str:
    """The label selector for users' jobs (JOB_SELECTOR), narrowed to a pool and a job kind."""
    parts = [JOB_SELECTOR]
    if pool:
        parts.append(f"{Labels.POOL}={pool}")
    if kind:
        parts.append(f"{Labels.JOB_TYPE}={kind}")
    return ",".join(parts)


def list_jobs(
    cluster: ClusterAPI, namespace: str | None, pool: str | None = None, kind: str | None = None
) -> list[dict[str, Any]]:
    """Every gpuctl job: its workload, or a partial job's record (`partial_job`) when only
    other objects of it are left. One list request per kind a job's objects have, whatever
    their number."""
    wanted = selector(pool, kind)
    items = [obj for k in WORKLOADS for obj in cluster.list(k, namespace, label_selector=wanted)]
    parts = [obj for k in PART_KINDS for obj in cluster.list(k, namespace, label_selector=wanted)]
    items += partial_jobs(items, parts)
    return sorted(items, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))


# A job's objects besides its workload (gpuctl.verbs.plan.JOB_OBJECT_KINDS, in delete order,
# are these and the workload kinds).
PART_KINDS = ("HorizontalPodAutoscaler", "PodDisruptionBudget", "Service", "ConfigMap")
# The record of a partial job (`partial_job`) has this kind: it is not a Kubernetes object.
PARTIAL_KIND = status.PARTIAL_KIND


def job_of(obj: dict[str, Any]) -> tuple[str, str]:
    """(namespace, job) of one of a job's objects: its identity label names the job."""
    meta = obj.get("metadata") or {}
    return meta.get("namespace", ""), labels_of(obj).get(Labels.INSTANCE) or meta.get("name", "")


def partial_jobs(
    workloads: list[dict[str, Any]], parts: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A record (`partial_job`) for each job of which objects are left but no workload: a
    deletion that stopped half-way (the client killed between two deletes)."""
    whole = {job_of(obj) for obj in workloads}
    left: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for obj in parts:
        if job_of(obj) not in whole:
            left.setdefault(job_of(obj), []).append(obj)
    return [partial_job(objects) for objects in left.values()]


def partial_job(leftovers: list[dict[str, Any]]) -> dict[str, Any]:
    """What is left of a job without its workload, as a job record: status Partial, no pods
    asked for, and `leftovers`, the objects that remain (each with its `kind`)."""
    namespace, name = job_of(leftovers[0])
    created = [(o.get("metadata") or {}).get("creationTimestamp") or "" for o in leftovers]
    ordered = sorted(leftovers, key=lambda o: (PART_KINDS.index(o["kind"]), o["metadata"]["name"]))
    return {
        "kind": PARTIAL_KIND,
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": labels_of(leftovers[0]),
            "creationTimestamp": min(created) or None,
        },
        "spec": {"replicas": 0},
        "leftovers": ordered,
    }


def is_partial(job: dict[str, Any]) -> bool:
    return job.get("kind") == PARTIAL_KIND


def leftover_refs(job: dict[str, Any]) -> list[str]:
    """kubectl's names of what is left of a partial job (`service/svc-x`)."""
    return [ref(o["kind"], o["metadata"]["name"]) for o in job.get("leftovers") or []]


def list_pods(
    cluster: ClusterAPI, namespace: str | None, pool: str | None = None, kind: str | None = None
) -> list[dict[str, Any]]:
    """Every pod of every gpuctl job: one list request."""
    pods = cluster.list("Pod", namespace, label_selector=selector(pool, kind))
    return sorted(pods, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"]))


def start_times(cluster: ClusterAPI, jobs: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(namespace, job) → when it started (status.started_at) for the listed jobs, from one
    list of the pods that hold resources (what the REST API's watch cache keeps). A finished
    Job's pods are no longer among them: it reads its `status.startTime` (its pods ran)."""
    if not jobs:
        return {}
    namespaces = {job_of(job)[0] for job in jobs}
    where = next(iter(namespaces)) if len(namespaces) == 1 else None
    pods: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for pod in cluster.list("Pod", where, field_selector=ACTIVE_PODS):
        key = ((pod.get("metadata") or {}).get("namespace", ""), status.job_name_of(labels_of(pod)))
        pods.setdefault(key, []).append(pod)
    found = {}
    for job in jobs:
        key = job_of(job)
        started = status.started_at(pods.get(key, []))
        if started is None and status.workload_status(job) in (c.Status.SUCCEEDED, c.Status.FAILED):
            started = (job.get("status") or {}).get("startTime")
        if started:
            found[key] = started
    return found


def labels_of(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


class PodLine(NamedTuple):
    """One pod as `get jobs --pods` shows it: its metadata and the printed facts."""

    metadata: dict[str, Any]
    status: str  # gpuctl's words (status.pod_status_words)
    ready: str
    node: str
    ip: str
    gpus: int | None = None  # known only from the whole object


def pod_line(pod: dict[str, Any]) -> PodLine:
    spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
    pod_status: shapes.PodStatus = shapes.pod(pod).get("status") or {}
    return PodLine(
        pod["metadata"],
        status.pod_status(pod),
        status.pod_ready(pod),
        spec.get("nodeName") or "<none>",
        pod_status.get("podIP") or "<none>",
        status.pod_gpus(pod),
    )


def pod_line_of_row(row: TableRow) -> PodLine:
    """A pod from the server's printed Table (its Status, Ready, Node and IP cells), or from
    the whole object when the server printed none."""
    cells = row.cells
    if cells is None:
        return pod_line(row.object)
    return PodLine(
        row.object["metadata"],
        status.pod_status_words(str(cells.get("Status") or "")),
        str(cells.get("Ready") or ""),
        str(cells.get("Node") or "<none>"),
        str(cells.get("IP") or "<none>"),
    )


def list_pod_lines(
    cluster: TableReads, namespace: str | None, pool: str | None = None, kind: str | None = None
) -> list[PodLine]:
    """Every pod of every gpuctl job as the server prints it: one list request, of a Table
    (cells and metadata, a quarter of the pods' size)."""
    rows = cluster.list_table("Pod", namespace, label_selector=selector(pool, kind))
    lines = [pod_line_of_row(row) for row in rows]
    return sorted(lines, key=lambda p: (p.metadata.get("namespace", ""), p.metadata["name"]))


def find_job(cluster: ClusterAPI, name: str, namespace: str) -> dict[str, Any]:
    """The workload of job `name`; JobNotFound when gpuctl made none by that name (a partial
    job's message says what is left and how to remove it)."""
    found = find_job_or_partial(cluster, name, namespace)
    if is_partial(found):
        raise JobNotFound(
            f"job {name!r} in namespace {namespace} is partial: its workload is gone, "
            f"{', '.join(leftover_refs(found))} {_are(found)} left "
            f"(gpuctl delete job {name} removes {_them(found)})"
        )
    return found


def _are(partial: dict[str, Any]) -> str:
    return "is" if len(partial["leftovers"]) == 1 else "are"


def _them(partial: dict[str, Any]) -> str:
    return "it" if len(partial["leftovers"]) == 1 else "them"


def find_partial_job(cluster: ClusterAPI, name: str, namespace: str) -> dict[str, Any] | None:
    """The record of job `name` when only objects other than its workload are left of it."""
    wanted = f"{JOB_SELECTOR},{Labels.INSTANCE}={name}"
    parts = [obj for k in PART_KINDS for obj in cluster.list(k, namespace, label_selector=wanted)]
    return partial_job(parts) if parts else None


def find_job_or_partial(cluster: ClusterAPI, name: str, namespace: str) -> dict[str, Any]:
    """The workload of job `name`, else its partial record; JobNotFound when neither exists."""
    for kind in WORKLOADS:
        obj = cluster.find(kind, name, namespace)
        if obj is not None and is_job(obj):
            obj.setdefault("kind", kind)
            return obj
    partial = find_partial_job(cluster, name, namespace)
    if partial is None:
        raise JobNotFound(f"no job named {name!r} in namespace {namespace}")
    return partial


def job_of_pod(cluster: ClusterAPI, pod: str, namespace: str) -> str | None:
    """The name of the gpuctl job pod `pod` belongs to (its instance label); None when there
    is no such pod or it is no job's."""
    found = cluster.find("Pod", pod, namespace)
    if found is None or not is_job(found):
        return None
    return labels_of(found).get(Labels.INSTANCE) or None


class ByPod(NamedTuple, Generic[T]):
    """What `by_job_or_pod` found, the job's name, and the pod the reference named (None
    when it named the job)."""

    found: T
    job: str
    pod: str | None


def by_job_or_pod(
    find: Callable[[str], T], cluster: ClusterAPI, name: str, namespace: str
) -> ByPod[T]:
    """`find(name)` of job `name`; when there is no such job but a pod of that name belongs to
    one, `find` of that job, and the pod's name. JobNotFound (about `name`) when neither."""
    try:
        return ByPod(find(name), name, None)
    except JobNotFound:
        owner = job_of_pod(cluster, name, namespace)
        if owner is None:
            raise
    return ByPod(find(owner), owner, name)


def pods_of(cluster: ClusterAPI, job: dict[str, Any]) -> list[dict[str, Any]]:
    """The job's pods: by `job-name` (a Job's) or `app`; a partial job's by its identity."""
    name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
    if is_partial(job):
        wanted = f"{JOB_SELECTOR},{Labels.INSTANCE}={name}"
    else:
        wanted = _adapter(job).pod_selector(name)
    pods = cluster.list("Pod", namespace, label_selector=wanted)
    return sorted(pods, key=lambda p: p["metadata"]["name"])


# --------------------------------------------------------------------------- describe


def explain_unschedulable(message: str, pool: str, gpu_type: str | None) -> str:
    """The scheduler's FailedScheduling text in an ML engineer's words.

    `0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 node(s) didn't match Pod's node
    affinity/selector`: when every node is excluded by pool or GPU type, that is the reason;
    otherwise the nodes that do qualify are full, and what they lack is the reason.
    """
    total = re.search(r"0/(\d+) nodes are available", message)
    mismatched = re.search(r"(\d+) node\(s\) didn't match Pod's node affinity/selector", message)
    short = []
    for resource, words in (
        *((name, "not enough free GPUs") for name in accelerators.ALL_RESOURCES),
        (c.GPU_SHARE_RESOURCE, "not enough shareable GPU memory"),
        ("cpu", "not enough free CPU"),
        ("memory", "not enough free memory"),
    ):
        if f"Insufficient {resource}" in message and words not in short:
            short.append(words)
    nowhere = mismatched is not None and (
        total is None or mismatched.group(1) == total.group(1) or not short
    )
    if nowhere:
        if pool != c.DEFAULT_POOL and gpu_type:
            reason = f"no node in pool {pool!r} has GPU type {gpu_type!r}"
        elif pool != c.DEFAULT_POOL:
            reason = f"no node in pool {pool!r} fits"
        elif gpu_type:
            reason = f"no node with GPU type {gpu_type!r}"
        else:
            reason = "no node matches the job's node selection"
    else:
        reason = "; ".join(short) or "no node fits"
    return f"{reason} (scheduler: {message})" if message else reason


def why(
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    events: list[dict[str, Any]],
    logs: Mapping[explain.LogKey, Sequence[str]] | None = None,
    preempted: preemption.Preemption | None = None,
) -> str:
    """Why a job is not running, in plain words, the most important reason; "" when nothing
    is wrong."""
    found = reasons(job, pods, events, logs, preempted)
    return found[0] if found else ""


def reasons(
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    events: list[dict[str, Any]],
    logs: Mapping[explain.LogKey, Sequence[str]] | None = None,
    preempted: preemption.Preemption | None = None,
) -> list[str]:
    """Every reason a job is not running, one line each, the most important first: Kueue's
    queue, a start barrier that gave up, a higher-priority job that preempted it (`preempted`,
    while it is Pending again), what its containers did (gpuctl.inventory.explain), the Job's
    own failure, the scheduler's refusal, then what the events say. A job that
    succeeded has none; one that runs, only what its pods' containers do now (a rollout whose
    new pod cannot start, a replica that keeps crashing)."""
    labels = labels_of(job)
    if is_partial(job):
        name = job["metadata"]["name"]
        return [
            f"half-deleted: its workload is gone, {', '.join(leftover_refs(job))} "
            f"{_are(job)} left (gpuctl delete job {name} removes {_them(job)}; creating the "
            "job again removes them first)"
        ]
    shown = status.workload_status(job)
    if shown == c.Status.SUCCEEDED:
        return []
    if shown == c.Status.RUNNING:
        return [e.text for e in explain.explain_pods(pods, events, logs)]
    if shown == c.Status.QUEUED:
        queue = labels.get(c.KUEUE_QUEUE_LABEL, "")
        return [f"waiting for Kueue to admit it from queue {queue} (kubectl get workloads)"]
    for pod in pods:
        failed_init = status.failed_init_message(pod)
        if failed_init:
            return [f"pod {pod['metadata']['name']}: {failed_init}"]
    found = explain.explain_pods(pods, events, logs)
    out = [preempted.words()] if preempted is not None and shown == c.Status.PENDING else []
    out += [e.text for e in found if e.final]
    failure = explain.job_failure(job)
    if failure:
        out.append(failure)
    out += _unschedulable(job, pods)
    out += [e.text for e in found if not e.final]
    if not found:
        out += _waiting_words(pods)
    event = _event_reason(job, events)
    if event and not failure:
        out.append(event)
    return list(dict.fromkeys(out))


def _unschedulable(job: dict[str, Any], pods: list[dict[str, Any]]) -> list[str]:
    for pod in pods:
        message = status.unschedulable_message(pod)
        if message:
            pool = labels_of(job).get(Labels.POOL, "")
            return [explain_unschedulable(message, pool, required_gpu_type(pod_spec_of(job)))]
    return []


def _waiting_words(pods: list[dict[str, Any]]) -> list[str]:
    """`pod X: <status in words>` for a pod held by a waiting reason no rule explains."""
    for pod in pods:
        shown = status.pod_status(pod)
        if shown in set(c.CONTAINER_WAITING_REASONS.values()) - {"Starting"}:
            return [f"pod {pod['metadata']['name']}: {shown}"]
    return []


def _event_reason(job: dict[str, Any], events: list[dict[str, Any]]) -> str:
    """The newest event that explains missing pods: an exceeded quota, a Pod Security
    refusal, a controller that cannot create pods, a Job past its backoff limit."""
    for event in reversed(events):
        text = str(event.get("message") or "")
        over = over_quota(text, (job.get("metadata") or {}).get("namespace", ""))
        if over:
            return over
        refused = POD_SECURITY_REFUSAL.search(text)
        if refused:
            namespace = (job.get("metadata") or {}).get("namespace", "")
            return (
                f"the cluster refuses its pods: namespace {namespace} enforces Pod Security "
                f"{refused.group(1)}, which forbids {refused.group(2)} (remove what it names, "
                "or ask an admin for a namespace whose Pod Security level allows it)"
            )
        if event.get("reason") in ("FailedCreate", "BackoffLimitExceeded"):
            return text
    return ""


# The API server's refusal of a pod over a ResourceQuota, as the controllers' FailedCreate
# events repeat it: `exceeded quota: NAME, requested: K=V,..., used: K=V,..., limited: K=V,...`.
QUOTA_REFUSAL = re.compile(
    r"exceeded quota: (?P<name>[^,]+), requested: (?P<requested>\S+), "
    r"used: (?P<used>\S+), limited: (?P<limited>\S+)"
)


def over_quota(message: str, namespace: str) -> str:
    """The API server's quota refusal in plain words: the quota, and per resource what one pod
    asks for against what is used of the hard limit; "" when the message is no such refusal."""
    found = QUOTA_REFUSAL.search(message)
    if found is None:
        return ""
    requested, used, hard = (_amounts(found.group(key)) for key in ("requested", "used", "limited"))
    figures = "; ".join(
        f"{key}: a pod asks for {amount}, {used.get(key, '0')} of {hard.get(key, '?')} used"
        for key, amount in requested.items()
    )
    return (
        f"over quota {found.group('name')} of namespace {namespace}, so the cluster refuses its "
        f"pods ({figures}); it starts once enough of the quota is free (delete or pause other "
        "jobs there, or ask an admin to raise the quota)"
    )


def _amounts(text: str) -> dict[str, str]:
    """`requests.cpu=4,limits.cpu=4` as {resource: amount}."""
    pairs = (item.partition("=") for item in text.split(",") if "=" in item)
    return {key: value for key, _, value in pairs}


# The API server's refusal of a pod that breaks its namespace's Pod Security level.
POD_SECURITY_REFUSAL = re.compile(r'violates PodSecurity "([^"]+)": (.+)$')


def notebook_token(containers: list[dict[str, Any]], generated: str = "") -> str:
    """The Jupyter token given on the command line (`--NotebookApp.token=…` and kin), else
    `generated`: the one gpuctl made for the notebook (its Secret, gpuctl.verbs.
    notebook_tokens) when its container reads it."""
    for container in containers:
        words = [*(container.get("command") or []), *(container.get("args") or [])]
        token = runtime.jupyter_token(words)
        if token:
            return token
    return generated if reads_generated_token(containers) else ""


def reads_generated_token(containers: list[dict[str, Any]]) -> bool:
    """Whether a container takes its Jupyter token from the Secret gpuctl generates."""
    return any(
        item.get("name") == c.NOTEBOOK_TOKEN_ENV and "valueFrom" in item
        for container in containers
        for item in container.get("env") or []
    )


def access_url(
    service: dict[str, Any] | None,
    pods: list[dict[str, Any]],
    nodes: dict[str, dict[str, Any]],
    containers: list[dict[str, Any]],
    generated_token: str = "",
) -> str:
    """`http://<node-ip>:<nodePort>` of the job's NodePort Service (with a notebook's token:
    its command line's, else `generated_token`, see notebook_token), through the node a pod
    runs on (any node when none runs yet)."""
    if not service:
        return ""
    ports = [p for p in (service.get("spec") or {}).get("ports") or [] if p.get("nodePort")]
    if not ports:
        return ""
    names = [(p.get("spec") or {}).get("nodeName") for p in pods] + list(nodes)
    for name in names:
        address = _node_ip(nodes.get(name or "", {}))
        if address:
            url = f"http://{address}:{ports[0]['nodePort']}"
            token = notebook_token(containers, generated_token)
            return f"{url}/?token={token}" if token else url
    return ""


def generated_token(cluster: ClusterAPI, name: str, namespace: str) -> str:
    """The token gpuctl generated for notebook `name` (its Secret); "" when there is none or
    the caller may not read Secrets."""
    try:
        secret = cluster.find("Secret", name + c.NOTEBOOK_TOKEN_SECRET_SUFFIX, namespace)
    except Forbidden:
        return ""
    encoded = ((secret or {}).get("data") or {}).get(c.NOTEBOOK_TOKEN_KEY, "")
    try:
        return base64.b64decode(encoded).decode()
    except (ValueError, UnicodeDecodeError):
        return ""


def _node_ip(node: shapes.Obj) -> str:
    node_status: shapes.NodeStatus = shapes.node(node).get("status") or {}
    addresses = node_status.get("addresses") or []
    for kind in ("ExternalIP", "InternalIP"):
        for address in addresses:
            if address.get("type") == kind:
                return address.get("address", "")
    return ""


@dataclass
class Details:
    """Everything `describe job` shows, gathered with a bounded number of requests."""

    job: dict[str, Any]
    pods: list[dict[str, Any]]
    events: list[dict[str, Any]]
    service: dict[str, Any] | None
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the last lines of the containers that crashed or failed (gpuctl.inventory.explain)
    logs: dict[explain.LogKey, list[str]] = field(default_factory=dict)
    preempted: preemption.Preemption | None = None  # the last time a pod of it was evicted
    token: str = ""  # a notebook's generated token (generated_token)


def gather(
    cluster: LogCluster, name: str, namespace: str, sees: visibility.Sees = visibility.everyone
) -> Details:
    """What `describe job` and GET /jobs/{id} show of job `name`, for a reader who `sees`
    those namespaces' work by name (gpuctl.inventory.visibility)."""
    job = find_job_or_partial(cluster, name, namespace)
    pods = pods_of(cluster, job)
    preempted_events = preemptions_of(cluster, job)
    events = events_about(cluster, job, pods, preempted_events)
    service = None
    nodes: dict[str, dict[str, Any]] = {}
    adapter = workloads.adapter_of(job)
    if adapter is not None and not adapter.runs_to_completion:  # a service: its access URL
        service = cluster.find("Service", c.SERVICE_PREFIX + name, namespace)
        if service is not None:
            try:
                nodes = {n["metadata"]["name"]: n for n in cluster.list("Node")}
            except Forbidden:
                nodes = {}  # who may not read nodes gets no access URL
    token = ""
    if service is not None and reads_generated_token(pod_template_containers(job)):
        token = generated_token(cluster, name, namespace)
    logs = last_lines(cluster, pods)
    preempted = last_preemption(cluster, job, preempted_events, sees)
    return Details(job, pods, events, service, nodes, logs, preempted, token)


# A job's events are read by field selector, one list per object they are about (never the
# namespace's every event): the workload, a Deployment's newest EVENT_OWNERS ReplicaSets, and
# EVENT_PODS of its pods (those not ready first); the newest MAX_EVENTS of them are kept.
MAX_EVENTS = 100
EVENT_PODS = 10
EVENT_OWNERS = 3


def events_about(
    cluster: ClusterAPI,
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    preempted: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """The events about the job's objects (`involved_objects`) and the scheduler's Preempted
    events about its former pods (`preempted`, preemptions_of), oldest first: the newest
    MAX_EVENTS, without scheduling failures of pods placed since."""
    namespace = job["metadata"]["namespace"]
    found: dict[str, dict[str, Any]] = {}
    for kind, name, uid in involved_objects(cluster, job, pods):
        wanted = f"involvedObject.kind={kind},involvedObject.name={name}"
        wanted += f",involvedObject.uid={uid}" if uid else ""
        for event in _events(cluster, namespace, wanted):
            found[_event_key(event)] = event
    for event in preempted:
        found[_event_key(event)] = dict(event)
    events = [e for e in found.values() if not stale_scheduling_failure(e, pods)]
    events.sort(key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")
    return events[-MAX_EVENTS:]


def _events(cluster: ClusterAPI, namespace: str, field_selector: str) -> list[dict[str, Any]]:
    """The events the selector picks; none for who may not read events (the pods' status
    still explains what it can)."""
    try:
        return cluster.list("Event", namespace, field_selector=field_selector)
    except Forbidden:
        return []


def _event_key(event: Mapping[str, Any]) -> str:
    meta = event.get("metadata") or {}
    return str(meta.get("uid") or meta.get("name") or id(event))


def involved_objects(
    cluster: ClusterAPI, job: dict[str, Any], pods: list[dict[str, Any]]
) -> list[tuple[str, str, str]]:
    """(kind, name, uid) of the objects whose events explain the job: its workload, the
    newest EVENT_OWNERS objects between it and its pods (a Deployment's ReplicaSets, which
    say why they cannot make pods), and EVENT_PODS of its pods, those not ready first."""
    meta = job["metadata"]
    out: list[tuple[str, str, str]] = []
    adapter = None if is_partial(job) else _adapter(job)
    if adapter is not None:
        out.append((adapter.kind, meta["name"], str(meta.get("uid") or "")))
        if adapter.pod_owner_kind:
            try:
                owners = cluster.list(
                    adapter.pod_owner_kind,
                    meta["namespace"],
                    label_selector=adapter.pod_selector(meta["name"]),
                )
            except Forbidden:
                owners = []
            owners.sort(key=lambda o: o["metadata"].get("creationTimestamp") or "", reverse=True)
            out += [_identity(adapter.pod_owner_kind, o) for o in owners[:EVENT_OWNERS]]
    chosen = sorted(pods, key=status.pod_is_ready)[:EVENT_PODS]  # not ready first
    out += [_identity("Pod", pod) for pod in chosen]
    return out


def _identity(kind: str, obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj.get("metadata") or {}
    return kind, str(meta.get("name", "")), str(meta.get("uid") or "")


def pod_template_containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The containers of a workload's pod template."""
    return list(pod_spec_of(obj).get("containers") or [])


def status_with_preemption(job: dict[str, Any], preempted: preemption.Preemption | None) -> str:
    """The job's status, Preempted rather than Pending when a higher-priority job evicted a
    pod of it (`preempted`)."""
    shown = status.workload_status(job)
    return c.Status.PREEMPTED if preempted is not None and shown == c.Status.PENDING else shown


def preemptions_of(cluster: ClusterAPI, job: dict[str, Any]) -> list[dict[str, Any]]:
    """The scheduler's Preempted events about the job's former pods (named `<job>-...`; gone
    by now, so not found by name), oldest first, the newest MAX_EVENTS: one list, of the
    namespace's Preempted events only."""
    name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
    wanted = f"reason={preemption.REASON},involvedObject.kind=Pod"
    return [
        dict(e)
        for e in preemption.preemption_events(_events(cluster, namespace, wanted))
        if str((e.get("involvedObject") or {}).get("name", "")).startswith(f"{name}-")
    ][-MAX_EVENTS:]


def last_preemption(
    cluster: ClusterAPI,
    job: dict[str, Any],
    events: Sequence[dict[str, Any]],
    sees: visibility.Sees = visibility.everyone,
) -> preemption.Preemption | None:
    """The newest preemption of one of the job's pods, with the preemptor's job (one read,
    none when the reader does not see the preemptor's namespace)."""
    name = job["metadata"]["name"]
    found = [
        e
        for e in preemption.preemption_events(events)
        if str((e.get("involvedObject") or {}).get("name", "")).startswith(f"{name}-")
    ]
    if not found:
        return None
    preemptors = preemption.preemptor_jobs(cluster, found[-1:], sees)
    return preemption.of_event(found[-1], preemptors, sees)


def preempted_jobs(
    cluster: ClusterAPI,
    jobs: Sequence[dict[str, Any]],
    namespace: str | None,
    sees: visibility.Sees = visibility.everyone,
) -> dict[tuple[str, str], preemption.Preemption]:
    """(namespace, job) -> its newest preemption, for the Pending jobs among `jobs` that had a
    pod preempted: one list of the scheduler's Preempted events, one read per preemptor the
    reader `sees`."""
    pending = [j for j in jobs if status.workload_status(j) == c.Status.PENDING]
    if not pending:
        return {}
    try:
        events = cluster.list("Event", namespace, field_selector=f"reason={preemption.REASON}")
    except Forbidden:
        return {}
    found = preemption.preemption_events(events)
    names: dict[str, list[str]] = {}
    for job in pending:
        names.setdefault(job["metadata"].get("namespace", ""), []).append(job["metadata"]["name"])
    newest: dict[tuple[str, str], Mapping[str, Any]] = {}
    for event in found:  # oldest first: the newest of each job stays
        where = str((event.get("involvedObject") or {}).get("namespace") or "")
        victim = str((event.get("involvedObject") or {}).get("name", ""))
        job_name = preemption.job_of_pod(victim, names.get(where, []))
        if job_name:
            newest[(where, job_name)] = event
    return {
        key: preemption.of_event(event, preemption.preemptor_jobs(cluster, [event], sees), sees)
        for key, event in newest.items()
    }


# At most this many pods have their crashed containers' logs read for one explanation.
LOGGED_PODS = 3


def last_lines(cluster: LogStreams, pods: list[dict[str, Any]]) -> dict[explain.LogKey, list[str]]:
    """The last lines of each container that crashed or failed (of the previous instance when
    it restarted since), for the explanation; a log the cluster does not serve is left out."""
    out: dict[explain.LogKey, list[str]] = {}
    troubled = [pod for pod in pods if explain.log_requests(pod)][:LOGGED_PODS]
    for pod in troubled:
        meta = pod["metadata"]
        for container, previous in explain.log_requests(pod):
            try:
                lines = cluster.logs(
                    meta["name"],
                    meta["namespace"],
                    container=container,
                    tail=explain.LAST_LINES,
                    previous=previous,
                )
                out[(meta["name"], container)] = list(lines)
            except KubeError:
                continue
    return out


def stale_scheduling_failure(event: dict[str, Any], pods: list[dict[str, Any]]) -> bool:
    """A FailedScheduling event of a pod that was scheduled since (at or after the event's
    last occurrence, to the second): no longer true, so not shown."""
    if event.get("reason") != "FailedScheduling":
        return False
    name = (event.get("involvedObject") or {}).get("name")
    pod = next((p for p in pods if p["metadata"]["name"] == name), None)
    pod_status: shapes.PodStatus = shapes.pod(pod or {}).get("status") or {}
    conditions = pod_status.get("conditions") or []
    scheduled = next(
        (
            cond.get("lastTransitionTime")
            for cond in conditions
            if cond.get("type") == "PodScheduled" and cond.get("status") == "True"
        ),
        None,
    )
    last = _last_seen(event)
    return bool(scheduled and last) and _seconds(last) <= _seconds(scheduled or "")


def _last_seen(event: dict[str, Any]) -> str:
    """When the event last happened: lastTimestamp, its series' last, or its eventTime."""
    series = event.get("series") or {}
    times = [event.get("lastTimestamp"), series.get("lastObservedTime"), event.get("eventTime")]
    known = [str(t) for t in times if t]
    return max(known, key=_seconds) if known else ""


def _seconds(timestamp: str) -> int:
    """An RFC 3339 time cut to the second (conditions carry seconds, events microseconds);
    0 for what is not one."""
    return int(parse_rfc3339(timestamp) or 0)


# ------------------------------------------------------------------------------- logs


@dataclass(frozen=True)
class LogOptions:
    follow: bool = False
    tail: int | None = None
    since_seconds: int | None = None
    grep: re.Pattern[str] | None = None
    pod: str | None = None  # only this pod
    limit_bytes: int | None = None  # read_logs: at most this many bytes of lines in all


@dataclass(frozen=True)
class LogLines:
    """What read_logs read: the lines, whether some were left out for `limit_bytes`, and when
    the last line was written (RFC 3339, as Kubernetes stamps it; None without lines)."""

    lines: list[str]
    truncated: bool = False
    last_timestamp: str | None = None


# What Kubernetes' `timestamps=true` puts before a line: RFC 3339 with up to nanoseconds, a
# space (at most 36 bytes with a zone offset).
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) ")
STAMP_BYTES = 36


def read_logs(
    cluster: LogCluster, job: dict[str, Any], options: LogOptions, stop: threading.Event
) -> LogLines:
    """The job's last lines (not followed), prefixed `[pod]` when it has several pods, the
    pods in name order: whole lines only, no more than `options.limit_bytes` bytes of them in
    all (each line counted with its line end, without the prefix); `truncated` says lines
    were left out for that. Kubernetes is asked for no more than that (and each line's
    timestamp, which gives `last_timestamp` and is taken off the line). Ends between two
    lines once `stop` is set (the reader left)."""
    namespace = job["metadata"]["namespace"]
    pods = _pods_asked(cluster, job, options)
    budget = options.limit_bytes
    lines: list[str] = []
    last: str | None = None
    for pod in pods:
        name = pod["metadata"]["name"]
        asked = None if budget is None else budget + 1 + STAMP_BYTES * (options.tail or 0)
        received = 0
        read = _pod_lines(
            cluster, name, namespace, options, follow=False, limit=asked, stamped=True
        )
        for raw in read:
            if stop.is_set():
                return LogLines(lines, True, last)
            received += len(raw.encode()) + 1
            found = _STAMP.match(raw)
            text = raw[found.end() :] if found else raw
            if options.grep is not None and not options.grep.search(text):
                continue
            size = len(text.encode()) + 1
            if budget is not None and size > budget:
                return LogLines(lines, True, last)
            budget = None if budget is None else budget - size
            lines.append(_shown(name, text, len(pods) > 1))
            last = found.group(1) if found else last
        if asked is not None and received >= asked:  # Kubernetes cut it
            return LogLines(lines, True, last)
    return LogLines(lines, False, last)


def _pods_asked(
    cluster: ClusterAPI, job: dict[str, Any], options: LogOptions
) -> list[dict[str, Any]]:
    """The job's pods, or the one `options.pod` names (GpuctlError when it has none such)."""
    pods = [
        p for p in pods_of(cluster, job) if not options.pod or p["metadata"]["name"] == options.pod
    ]
    if options.pod and not pods:
        raise GpuctlError(f"job {job['metadata']['name']!r} has no pod {options.pod!r}")
    return pods


def stream_logs(
    cluster: LogCluster,
    job: dict[str, Any],
    options: LogOptions,
    stop: threading.Event,
    *,
    prefix: bool = False,
) -> Iterator[str]:
    """The job's log lines, prefixed `[pod]` when it has several pods (or `prefix`: always,
    for lines of several jobs). With `follow`, pods that appear later are followed too, until
    `stop` is set or a finished Job's streams end."""
    namespace = job["metadata"]["namespace"]
    pods = _pods_asked(cluster, job, options)
    if not options.follow:
        prefix = prefix or len(pods) > 1
        for pod in pods:
            name = pod["metadata"]["name"]
            for line in _pod_lines(cluster, name, namespace, options, follow=False):
                yield _shown(name, line, prefix)
        return
    yield from _follow(cluster, job, pods, options, stop)


def _shown(pod: str, line: str, prefix: bool) -> str:
    return f"[{pod}] {line}" if prefix else line


def _pod_lines(
    cluster: LogStreams,
    pod: str,
    namespace: str,
    options: LogOptions,
    *,
    follow: bool,
    ends: LogEnds | None = None,
    limit: int | None = None,
    stamped: bool = False,
) -> Iterator[str]:
    """The pod's lines that `options.grep` picks, no more than `limit` bytes of them; with
    `stamped` (read_logs), every line as Kubernetes sends it with its timestamp, for the
    caller to pick."""
    try:
        for line in cluster.logs(
            pod,
            namespace,
            tail=options.tail,
            since_seconds=options.since_seconds,
            follow=follow,
            ends=ends,
            limit_bytes=limit,
            timestamps=stamped,
        ):
            if stamped or options.grep is None or options.grep.search(line):
                yield line
    except (NotFound, KubeError) as exc:
        if "is waiting to start" in str(exc) or "ContainerCreating" in str(exc):
            return  # not started yet: nothing to show (kubectl says the same)
        raise


def _follow(
    cluster: LogCluster,
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    options: LogOptions,
    stop: threading.Event,
) -> Iterator[str]:
    ends = LogEnds()  # the pods' streams, ended when following ends: a quiet pod's reader
    try:  # would otherwise wait (a thread, a connection) until the pod writes again
        yield from _follow_pods(cluster, job, pods, options, stop, ends)
    finally:
        ends.end()


def _follow_pods(
    cluster: LogCluster,
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    options: LogOptions,
    stop: threading.Event,
    ends: LogEnds,
) -> Iterator[str]:
    namespace = job["metadata"]["namespace"]
    lines: queue.Queue[tuple[str, str | None]] = queue.Queue()
    started: set[str] = set()
    adapter = _adapter(job)
    several = len(pods) > 1 or not adapter.runs_to_completion or adapter.pods(job) > 1

    def pump(pod: str) -> None:
        try:
            for line in _pod_lines(cluster, pod, namespace, options, follow=True, ends=ends):
                if stop.is_set():
                    break
                lines.put((pod, line))
        except KubeError as exc:
            lines.put((pod, f"<log stream ended: {exc}>"))
        finally:
            lines.put((pod, None))

    def start(found: list[dict[str, Any]]) -> None:
        for pod in found:
            name = pod["metadata"]["name"]
            phase = (pod.get("status") or {}).get("phase")
            if name in started or phase == "Pending" or (options.pod and name != options.pod):
                continue
            started.add(name)
            threading.Thread(target=pump, args=(name,), name=f"log-{name}", daemon=True).start()

    start(pods)
    open_streams = len(started)
    next_look = time.monotonic() + 1.0
    while not stop.is_set():
        try:
            pod, line = lines.get(timeout=0.2)
            if line is None:
                open_streams -= 1
            else:
                yield _shown(pod, line, several)
        except queue.Empty:
            pass
        if time.monotonic() >= next_look:  # new pods (a Deployment scaled, a Job retried)
            next_look = time.monotonic() + 1.0
            before = len(started)
            start(pods_of(cluster, job))
            open_streams += len(started) - before
            if open_streams == 0 and _finished(cluster, job):
                return


def _finished(cluster: ClusterAPI, job: dict[str, Any]) -> bool:
    """Has the job ended for good (a workload that runs to completion, or is gone)?"""
    adapter = _adapter(job)
    if not adapter.runs_to_completion:
        return False
    live = cluster.find(adapter.kind, job["metadata"]["name"], job["metadata"]["namespace"])
    return live is None or status.workload_status({**live, "kind": adapter.kind}) in (
        "Succeeded",
        "Failed",
    )


def _adapter(job: dict[str, Any]) -> WorkloadAdapter:
    """The job's workload adapter (a job's workload is one of the workload kinds)."""
    found = workloads.adapter_of(job)
    if found is None:
        raise GpuctlError(f"{ref(job['kind'], job['metadata']['name'])} is not a workload")
    return found
