"""One reconcile of one GPUWorkload, on a gpuctl cluster connection. The operator module calls
`Reconciler.reconcile` on every change the watch brings and again when it asks to be called
back. The Job is written as `gpuctl create` writes one (gpuctl.controller.workload) and
deleted by the Delete verb.

The rules:
- Failed is final (a Failed workload starts over when its spec changes).
- Scheduled is final once a pod of its Job has started (Running or finished). Until then the
  workload is looked at again every NODE_CHECK_SECONDS: when its node is NotReady or gone,
  the Job is deleted, status.replacements counts it, and the workload is placed again (its
  retries are kept). A pod that runs on a node that then fails is Kubernetes' to evict.
- A Job with the workload's job name that the workload owns is adopted, never made twice.
- Otherwise nodes and pods are read, the workload's strategy picks a node, the Job gpuctl
  renders for it is created there, and the status says Scheduled, where and which Job.
- No node fits: the attempt is counted in status.retries and retried after
  min(300, backoffSeconds·2^n) plus jitter; after maxRetries retries the phase is Failed.
- Placements run one at a time, and each sees the GPUs the previous ones took (in a read of
  the cluster made after their Job and status were written, or added to a read at most
  SNAPSHOT_SECONDS old), so two workloads never both take a node's last free GPUs.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI, StatusCluster
from gpuctl.cluster.errors import AlreadyExists, Invalid, KubeError, NotFound
from gpuctl.controller import backoff, resource
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.resource import Phase
from gpuctl.controller.workload import (
    WORKLOAD_LABEL,
    Workload,
    WorkloadInvalid,
    label_value,
    render_job,
    workload_selector,
)
from gpuctl.inventory.status import terminating
from gpuctl.placement import strategies
from gpuctl.placement.affinity import pinned_node
from gpuctl.placement.capacity import node_problem
from gpuctl.times import micro_rfc3339, parse_rfc3339, rfc3339
from gpuctl.verbs.delete import Delete

log = logging.getLogger("gpuctl.controller")

ERROR_RETRY_SECONDS: Final = 5.0  # after an API error, before trying again
# How long one read of nodes, pods and workloads serves successive placements (each placement
# is added to it at once). A burst of new workloads then costs one read, not one each; GPUs
# freed meanwhile are seen at the next read.
SNAPSHOT_SECONDS: Final = 2.0
PLACED_MEMORY_SECONDS: Final = 30.0
# How often a placed workload whose pod has not started is checked for a NotReady node.
NODE_CHECK_SECONDS: Final = 10.0
# How long a node must have been NotReady before its waiting workloads are placed again (a
# kubelet that misses a heartbeat or two under load comes back).
NOT_READY_GRACE_SECONDS: Final = 30.0
# How soon to look again while a deleted Job is still terminating.
TERMINATING_RETRY_SECONDS: Final = 1.0
CONDITION: Final = "Scheduled"
STARTED_PHASES: Final = ("Running", "Succeeded", "Failed")


class Reason:
    NO_SUITABLE_NODE: Final = "NoSuitableNode"
    RETRIES_EXHAUSTED: Final = "RetriesExhausted"
    INVALID_SPEC: Final = "InvalidSpec"
    JOB_NAME_TAKEN: Final = "JobNameTaken"
    API_ERROR: Final = "APIError"
    SCHEDULED: Final = "Scheduled"
    ADOPTED: Final = "JobAdopted"
    NODE_LOST: Final = "NodeNotReady"


@dataclass(frozen=True)
class Outcome:
    """What a reconcile did (the `result` label of the duration metric) and when to call it
    again (None: only on the next change)."""

    result: str
    requeue_after: float | None = None
    message: str = ""


# --------------------------------------------------------------------------- reading


def promised_gpus(
    workloads: Iterable[dict[str, Any]], pods: Iterable[dict[str, Any]]
) -> dict[str, int]:
    """node -> GPUs of Scheduled workloads that have no pod yet (their Job's pod is still to
    be made: the GPUs are taken all the same). A pod that exists counts where the placement
    rules count every pod: on its node, or, not yet bound, on the node it is pinned to; once
    finished (the workload stays Scheduled), nowhere."""
    made = {
        (pod["metadata"].get("namespace"), (pod["metadata"].get("labels") or {})[WORKLOAD_LABEL])
        for pod in pods
        if WORKLOAD_LABEL in (pod["metadata"].get("labels") or {})
    }
    promised: dict[str, int] = {}
    for obj in workloads:
        workload = Workload.of(obj)
        node = workload.status.get("assignedNode")
        if workload.status.get("phase") != Phase.SCHEDULED or not node:
            continue
        if (workload.namespace, label_value(workload.name)) not in made:
            promised[node] = promised.get(node, 0) + workload.gpus
    return promised


@dataclass(frozen=True)
class ClusterGpus:
    nodes: list[strategies.NodeGpus]
    workloads: list[dict[str, Any]]
    largest_pending: int = 0  # GPUs of the largest workload waiting for a node, when read

    def take(self, node: str, gpus: int) -> None:
        """Count a placement just made on `node` as using `gpus` GPUs."""
        for index, entry in enumerate(self.nodes):
            if entry.name == node:
                self.nodes[index] = dataclasses.replace(entry, used=entry.used + gpus)


def view_of(
    nodes: list[dict[str, Any]], pods: list[dict[str, Any]], workloads: list[dict[str, Any]]
) -> ClusterGpus:
    # A GPUWorkload asks for NVIDIA GPUs (it names no GPU type): other vendors' nodes offer none.
    found = strategies.node_gpus(nodes, pods, promised_gpus(workloads, pods), c.GPU_RESOURCE)
    return ClusterGpus(
        found,
        workloads,
        largest_pending(workloads),
    )


def read_cluster(
    cluster: ClusterAPI, namespace: str | None, node_selector: str | None = None
) -> ClusterGpus:
    """Every node's GPUs and their use: nodes (those matching `node_selector`, a label
    selector, when given), all pods (finished ones free nothing), and the GPUWorkloads of
    `namespace` (none when their CRD is not installed)."""
    nodes = cluster.list("Node", label_selector=node_selector)
    pods = cluster.list("Pod", None)
    try:
        workloads = cluster.list("GPUWorkload", namespace)
    except NotFound:
        workloads = []
    return view_of(nodes, pods, workloads)


def plan(
    view: ClusterGpus, workloads: Iterable[Workload], rng: random.Random
) -> list[strategies.Placement]:
    """Where `controller run` would place each workload, one after the other on `view` (each
    placement takes its GPUs, as run's do): `controller plan`, the same choice without the
    writes."""
    placements = []
    for workload in workloads:
        placement = strategies.place_open(workload.strategy, view.nodes, workload.gpus, rng)
        if placement.chosen is not None:
            view.take(placement.chosen.name, workload.gpus)
        placements.append(placement)
    return placements


def largest_pending(workloads: Iterable[dict[str, Any]]) -> int:
    return max(
        (
            Workload.of(obj).gpus
            for obj in workloads
            if (obj.get("status") or {}).get("phase") in (None, Phase.PENDING)
        ),
        default=0,
    )


# --------------------------------------------------------------------------- reconciling


class Reconciler:
    def __init__(
        self,
        cluster: StatusCluster,
        metrics: Metrics | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        snapshot_seconds: float = SNAPSHOT_SECONDS,
        node_selector: str | None = None,
        node_check_seconds: float = NODE_CHECK_SECONDS,
        cache: ClusterCache | None = None,
        not_ready_grace_seconds: float = NOT_READY_GRACE_SECONDS,
    ) -> None:
        self.cluster = cluster
        self.cache = cache
        self.not_ready_grace_seconds = not_ready_grace_seconds
        self.metrics = metrics or Metrics()
        self.rng = rng or random.Random()
        self.clock = clock
        self.snapshot_seconds = snapshot_seconds
        self.node_selector = node_selector or None
        self.node_check_seconds = node_check_seconds
        self._placing = threading.Lock()  # held while a snapshot is read, used and updated
        self._snapshot: tuple[float, str, ClusterGpus] | None = None
        # (namespace, name) -> (node, GPUs, when): placements made, counted until a read shows
        # them (a cache may lag behind this controller's own writes)
        self._placed: dict[tuple[str, str], tuple[str, int, float]] = {}
        self._namespace: str | None = None  # of the last read, for a metric read without cache
        self._fragmented = 0
        # (namespace, name) -> the resourceVersion of the last status this controller wrote,
        # until a copy of the workload at least that new is reconciled
        self._written: dict[tuple[str, str], int] = {}
        self._written_lock = threading.Lock()
        self.metrics.fragmentation.set_function(self.fragmented_gpus)

    def fragmented_gpus(self) -> float:
        """Free GPUs too few for the largest pending workload, as the cluster is when the
        metric is read (so it falls to 0 once no workload waits, placed or deleted): from the
        caches, else a read of the cluster; the last value when the read fails."""
        cache = self.cache
        try:
            if cache is not None:
                objects = (cache.nodes, cache.pods, cache.workloads)
                view = view_of(*(informer.objects() for informer in objects))
            elif self._namespace is not None:
                view = read_cluster(self.cluster, self._namespace, self.node_selector)
            else:  # nothing read yet
                return self._fragmented
        except KubeError as exc:
            log.warning("fragmented GPUs not measured, the last value stays: %s", exc)
            return self._fragmented
        self._fragmented = strategies.fragmentation(view.nodes, view.largest_pending)
        return self._fragmented

    def _cached(self, namespace: str) -> ClusterCache | None:
        """The cache, when it holds the GPUWorkloads of `namespace` (its own, or all) and can
        vouch for the cluster (not stale: else the cluster is read instead)."""
        cache = self.cache
        if cache is not None and cache.namespace in (None, namespace) and not cache.stale:
            return cache
        return None

    def _view(self, namespace: str) -> ClusterGpus:
        """The cluster's GPUs: the snapshot while it is fresh, else a new read (a cache of
        every namespace serves every namespace)."""
        now = time.monotonic()
        cache = self._cached(namespace)
        scope = "" if cache is not None and cache.namespace is None else namespace
        if self._snapshot is not None:
            taken, where, view = self._snapshot
            if where == scope and now - taken < self.snapshot_seconds:
                return view
        view = self._read(namespace)
        self._namespace = namespace
        self._count_own_placements(view, now)
        self._snapshot = (now, scope, view)
        return view

    def _read(self, namespace: str) -> ClusterGpus:
        cache = self._cached(namespace)
        if cache is None:
            return read_cluster(self.cluster, namespace, self.node_selector)
        return view_of(cache.nodes.objects(), cache.pods.objects(), cache.workloads.objects())

    def _count_own_placements(self, view: ClusterGpus, now: float) -> None:
        """Add the placements made that the read does not show yet (their workload is not
        Scheduled on that node in it); forget those it shows, and those older than
        PLACED_MEMORY_SECONDS (any read shows them by then)."""
        shown = {
            (Workload.of(obj).namespace, Workload.of(obj).name): (obj.get("status") or {}).get(
                "assignedNode"
            )
            for obj in view.workloads
            if (obj.get("status") or {}).get("phase") == Phase.SCHEDULED
        }
        for key, (node, gpus, when) in list(self._placed.items()):
            if shown.get(key) == node or now - when > PLACED_MEMORY_SECONDS:
                del self._placed[key]
            else:
                view.take(node, gpus)

    def reconcile(self, obj: dict[str, Any]) -> Outcome:
        started = time.monotonic()
        workload = Workload.of(obj)
        try:
            outcome = self._reconcile(workload, obj)
        except KubeError as exc:
            outcome = self._api_error(workload, exc)
        self.metrics.reconcile_duration.labels(outcome.result).observe(time.monotonic() - started)
        return outcome

    def _api_error(self, workload: Workload, error: KubeError) -> Outcome:
        """An API request failed: logged, counted, and said in the workload's status. A
        refused object (422 Invalid) is refused again until the spec changes: Failed. Anything
        else is tried again after ERROR_RETRY_SECONDS (a placed workload keeps its phase)."""
        self.metrics.failed.labels(Reason.API_ERROR).inc()
        final = isinstance(error, Invalid)
        what = "refused" if final else f"failed, retrying in {ERROR_RETRY_SECONDS:.0f}s"
        message = f"an API request {what}: {error}"
        log.warning("%s/%s: %s", workload.namespace, workload.name, message)
        if workload.status.get("phase") == Phase.SCHEDULED:
            return Outcome("error", ERROR_RETRY_SECONDS, message)
        phase = Phase.FAILED if final else Phase.PENDING
        retry_at = micro_rfc3339(self.clock() + ERROR_RETRY_SECONDS)
        fields = {} if final else {"nextRetryTime": retry_at}
        try:
            self._write_status(workload, phase, Reason.API_ERROR, message, **fields)
        except KubeError as again:
            log.warning(
                "%s/%s: its status could not be written either: %s",
                workload.namespace,
                workload.name,
                again,
            )
        return Outcome("error", None if final else ERROR_RETRY_SECONDS, message)

    def _reconcile(self, workload: Workload, obj: dict[str, Any]) -> Outcome:
        if terminating(obj):
            return Outcome("deleted")
        if workload.unreadable_status:
            log.warning(
                "%s/%s: its status cannot be read (%s); treated as new, the status is rewritten",
                workload.namespace,
                workload.name,
                workload.unreadable_status,
            )
        phase = workload.status.get("phase")
        observed = workload.status.get("observedGeneration")
        if phase == Phase.SCHEDULED:
            return self._check_node(workload)
        if phase == Phase.FAILED and observed == workload.generation:
            return Outcome("unchanged")
        if phase == Phase.FAILED:  # the spec changed since it failed: start over
            workload = Workload.of({**obj, "status": {}})
        wait = self._waiting(workload)
        if wait is not None:
            return Outcome("waiting", wait)
        return self._place(workload)

    def _waiting(self, workload: Workload) -> float | None:
        """Seconds until the next retry is due, or None when it is due now."""
        if workload.status.get("phase") != Phase.PENDING:
            return None
        due = parse_rfc3339(str(workload.status.get("nextRetryTime", "")))
        if due is None:
            return None
        left = due - self.clock()
        return left if left > 0 else None

    def _check_node(self, workload: Workload) -> Outcome:
        """A placed workload: final once its pod started; placed again when its node went
        NotReady or away first; else looked at again later."""
        pods = self._pods_of(workload)
        if any((pod.get("status") or {}).get("phase") in STARTED_PHASES for pod in pods):
            return Outcome("unchanged")
        node = str(workload.status.get("assignedNode") or "")
        lost = self._node_lost(workload.namespace, node)
        if not lost:
            return Outcome("unchanged", self.node_check_seconds)
        with self._placing:
            self._snapshot = None  # the GPUs promised there are free again
            self._placed.pop((workload.namespace, workload.name), None)
            return self._replace(workload, node, lost)

    def _node_lost(self, namespace: str, node: str) -> str:
        """ "gone", "NotReady" (for at least the grace period), or "" (from the cache when
        there is one: no lock, no request)."""
        cache = self._cached(namespace)
        if cache is not None:
            found = cache.nodes.get("", node)
        else:
            nodes = self.cluster.list("Node", label_selector=self.node_selector)
            found = next((item for item in nodes if item["metadata"]["name"] == node), None)
        if found is None:
            return "gone"
        if node_problem(found) != "NotReady":
            return ""
        ready = [
            cond
            for cond in (found.get("status") or {}).get("conditions") or []
            if cond.get("type") == "Ready"
        ]
        since = parse_rfc3339(str(ready[0].get("lastTransitionTime", ""))) if ready else None
        if since is not None and self.clock() - since < self.not_ready_grace_seconds:
            return ""
        return "NotReady"

    def _pods_of(self, workload: Workload) -> list[dict[str, Any]]:
        if self.cache is None or self.cache.stale:
            return self.cluster.list(
                "Pod", workload.namespace, label_selector=workload_selector(workload.name)
            )
        return [
            pod
            for pod in self.cache.pods.objects()
            if pod["metadata"].get("namespace") == workload.namespace
            and (pod["metadata"].get("labels") or {}).get(WORKLOAD_LABEL)
            == label_value(workload.name)
        ]

    def _replace(self, workload: Workload, node: str, lost: str) -> Outcome:
        # Foreground: the old Job stays (terminating) until its pods are gone, and _place waits
        # for it; a new Job of the same name next to the old one's pods can be left without a
        # pod by the Job controller, which tracks Jobs by name.
        deleted = Delete(self.cluster, ignore_not_found=True).run(  # gone is what is wanted
            [("Job", workload.job_name, workload.namespace)]
        )
        if deleted.causes:
            raise deleted.causes[0]
        self.metrics.replaced.inc()
        replacements = int(workload.status.get("replacements") or 0) + 1
        message = (
            f"node {node or '?'} is {lost} and the Job's pod had not started: Job "
            f"{workload.job_name} deleted, placing again (replacement {replacements})"
        )
        self._write_status(
            workload,
            Phase.PENDING,
            Reason.NODE_LOST,
            message,
            replacements=replacements,
            assignedNode=None,
            jobName=None,
        )
        return Outcome("replaced", TERMINATING_RETRY_SECONDS, message)

    def _place(self, workload: Workload) -> Outcome:
        # A workload with no status yet has never been placed, unless a run stopped between
        # creating its Job and writing status: then the create answers AlreadyExists and the
        # Job is adopted. Others may have a Job (or one still terminating) to look at first.
        if workload.status:
            job = self.cluster.find("Job", workload.job_name, workload.namespace)
            if job is not None and terminating(job):
                return Outcome("waiting", TERMINATING_RETRY_SECONDS, "the old Job is terminating")
            if job is not None:
                return self._adopt(workload, job)
        placement = self._choose(workload)
        if placement.chosen is None:
            return self._no_node(workload, placement.reason)
        node = placement.chosen.name
        try:
            job = render_job(workload, node, placement.chosen.labels.get(c.Labels.POOL))
            self.cluster.create(job)
        except WorkloadInvalid as exc:
            self._release(workload, node)
            return self._fail(workload, Reason.INVALID_SPEC, str(exc))
        except AlreadyExists:  # made meanwhile by someone else: adopt it if it is ours
            self._release(workload, node)
            existing = self.cluster.get("Job", workload.job_name, workload.namespace)
            if terminating(existing):
                return Outcome("waiting", TERMINATING_RETRY_SECONDS, "the old Job is terminating")
            return self._adopt(workload, existing)
        except BaseException:
            with self._placing:  # the Job may or may not have been made: read again
                self._snapshot = None
            raise
        self.metrics.scheduled.labels(workload.strategy).inc()
        self._write_status(
            workload,
            Phase.SCHEDULED,
            Reason.SCHEDULED,
            f"Job {workload.job_name} created on {node} "
            f"({workload.strategy}: {placement.candidates[0].reason})",
            assignedNode=node,
            jobName=workload.job_name,
            strategy=workload.strategy,
        )
        return Outcome("scheduled", self.node_check_seconds, node)

    def _choose(self, workload: Workload) -> strategies.Placement:
        """The strategy's choice, its GPUs taken at once in the view (one choice at a time;
        the requests that follow run in parallel with other choices)."""
        with self._placing:
            view = self._view(workload.namespace)
            # a GPUWorkload names no pool (its Job joins the chosen node's pool)
            (placement,) = plan(view, [workload], self.rng)
            if placement.chosen is not None:
                node = placement.chosen.name
                key = (workload.namespace, workload.name)
                self._placed[key] = (node, workload.gpus, time.monotonic())
            return placement

    def _release(self, workload: Workload, node: str) -> None:
        """Give back the GPUs `_choose` took: no Job was made for them."""
        with self._placing:
            self._placed.pop((workload.namespace, workload.name), None)
            if self._snapshot is not None:
                self._snapshot[2].take(node, -workload.gpus)

    def _adopt(self, workload: Workload, job: dict[str, Any]) -> Outcome:
        owners = job["metadata"].get("ownerReferences") or []
        if not any(ref.get("uid") == workload.uid for ref in owners):
            return self._fail(
                workload,
                Reason.JOB_NAME_TAKEN,
                f"a Job named {workload.job_name} exists and belongs to something else",
            )
        node = pinned_node(job)
        self._write_status(
            workload,
            Phase.SCHEDULED,
            Reason.ADOPTED,
            f"Job {workload.job_name} already exists on {node or 'its node'}; adopted",
            assignedNode=node,
            jobName=workload.job_name,
            strategy=workload.strategy,
        )
        return Outcome("adopted", self.node_check_seconds, node)

    def _no_node(self, workload: Workload, why: str) -> Outcome:
        self.metrics.failed.labels(Reason.NO_SUITABLE_NODE).inc()
        retries = int(workload.status.get("retries") or 0)
        if retries >= workload.max_retries:
            return self._fail(
                workload,
                Reason.RETRIES_EXHAUSTED,
                f"{why}; gave up after {retries} retries",
                retries=retries,
            )
        wait = backoff.delay(workload.backoff_seconds, retries, self.rng)
        self.metrics.retries.inc()
        self._write_status(
            workload,
            Phase.PENDING,
            Reason.NO_SUITABLE_NODE,
            f"{why}; retry {retries + 1} of {workload.max_retries} in {wait:.0f}s",
            retries=retries + 1,
            nextRetryTime=micro_rfc3339(self.clock() + wait),
        )
        return Outcome("retry", wait, why)

    def _fail(self, workload: Workload, reason: str, message: str, **fields: Any) -> Outcome:
        if reason != Reason.RETRIES_EXHAUSTED:
            self.metrics.failed.labels(reason).inc()
        self._write_status(workload, Phase.FAILED, reason, message, **fields)
        return Outcome("failed", None, message)

    def _write_status(
        self, workload: Workload, phase: str, reason: str, message: str, **fields: Any
    ) -> None:
        stamp = rfc3339(self.clock())
        status: dict[str, Any] = {}
        if workload.unreadable_status:  # merge patch: remove every field it may have wrong
            status = dict.fromkeys(resource.status_schema()["properties"])
        status |= {
            "phase": phase,
            "reason": reason,
            "message": message,
            "observedGeneration": workload.generation,
            "retries": int(workload.status.get("retries") or 0),
            "conditions": [
                {
                    "type": CONDITION,
                    "status": "True" if phase == Phase.SCHEDULED else "False",
                    "reason": reason,
                    "message": message,
                    "lastTransitionTime": stamp,
                    "observedGeneration": workload.generation,
                }
            ],
            **fields,
        }
        if phase != Phase.PENDING:
            status["nextRetryTime"] = None  # merge patch: remove it
        log.info("%s/%s %s (%s): %s", workload.namespace, workload.name, phase, reason, message)
        written = self.cluster.patch_status(
            resource.KIND, workload.name, workload.namespace, status
        )
        version = str((written.get("metadata") or {}).get("resourceVersion") or "")
        if version.isdigit():
            with self._written_lock:
                self._written[(workload.namespace, workload.name)] = int(version)

    def behind(self, obj: dict[str, Any]) -> bool:
        """Is `obj` older than the status this controller last wrote on it (a watch that has
        not brought that write yet)? Reconciling such a copy would place the workload again."""
        meta = obj.get("metadata") or {}
        key = (str(meta.get("namespace") or "default"), str(meta.get("name") or ""))
        version = str(meta.get("resourceVersion") or "")
        with self._written_lock:
            wrote = self._written.get(key)
            if wrote is None or not version.isdigit():
                return False
            if int(version) >= wrote:
                del self._written[key]
                return False
            return True

    def forget(self, namespace: str, name: str) -> None:
        """The workload is gone: nothing is remembered of it."""
        with self._written_lock:
            self._written.pop((namespace, name), None)
