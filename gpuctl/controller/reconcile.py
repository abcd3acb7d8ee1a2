"""One reconcile of one GPUWorkload, on a gpuctl cluster connection. The operator module calls
`Reconciler.reconcile` on every change the watch brings and again when it asks to be called
back. The Job is written by the Create verb, as `gpuctl create` of the workload's training
spec writes it (gpuctl.controller.workload), and deleted by the Delete verb.

The rules:
- Failed is final (a Failed workload starts over when its spec changes).
- Scheduled is final once a pod of its Job has started (Running or finished). Until then the
  workload is looked at again every NODE_CHECK_SECONDS: when its node is NotReady or gone,
  the Job is deleted, status.replacements counts it, and the workload is placed again (its
  retries are kept). A pod that runs on a node that then fails is Kubernetes' to evict.
- A Job with the workload's job name that the workload owns is adopted, never made twice;
  a job of that name that is not the workload's (another Job, an inference job) fails it.
- Otherwise nodes and pods are read, the workload's strategy picks a node, and the Job is
  created there by the Create verb with the cluster's render options (a node in a pool that
  is a Kueue ClusterQueue: the Job is queued there, counted against the pool's cap, and
  starts once Kueue admits it). The status says Scheduled, where and which Job.
- No node fits, or the verb refuses the Job before writing anything (a request the
  namespace's quota or Pod Security level never allows, a pool without Kueue at its GPU
  cap): the attempt is counted in status.retries and retried after
  min(300, backoffSeconds·2^n) plus jitter; after maxRetries retries the phase is Failed
  (gpuctl.controller.status writes every status).
- Placements run one at a time, and each sees the GPUs the previous ones took (in a read of
  the cluster made after their Job and status were written, or added to a read at most
  SNAPSHOT_SECONDS old), so two workloads never both take a node's last free GPUs
  (gpuctl.controller.placer over the capacity model; what is read: gpuctl.controller.view).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any, Final

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI, StatusCluster
from gpuctl.cluster.errors import AlreadyExists, KubeError
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.nodeloss import NOT_READY_GRACE_SECONDS, NodeCheck
from gpuctl.controller.placer import SNAPSHOT_SECONDS, Placer
from gpuctl.controller.reads import CachedReads
from gpuctl.controller.resource import Phase
from gpuctl.controller.status import Outcome, Reason, StatusWriter
from gpuctl.controller.workload import JobMarks, Workload, WorkloadInvalid, job_manifests
from gpuctl.inventory.status import terminating
from gpuctl.placement.affinity import pinned_node
from gpuctl.render.engine import Manifest
from gpuctl.verbs.common import VerbResult
from gpuctl.verbs.create import Create
from gpuctl.verbs.delete import Delete
from gpuctl.verbs.errors import ApplyFailed, Unschedulable
from gpuctl.verbs.options import cluster_options

log = logging.getLogger("gpuctl.controller")

# How often a placed workload whose pod has not started is checked for a NotReady node.
NODE_CHECK_SECONDS: Final = 10.0
# How soon to look again while a deleted Job is still terminating.
TERMINATING_RETRY_SECONDS: Final = 1.0


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
        self.metrics = metrics or Metrics()
        self.rng = rng or random.Random()
        self.clock = clock
        self.node_check_seconds = node_check_seconds
        node_selector = node_selector or None
        self.placer = Placer(cluster, cache, node_selector, snapshot_seconds)
        self.nodes = NodeCheck(
            cluster, self.placer.cached, cache, node_selector, clock, not_ready_grace_seconds
        )
        self.status = StatusWriter(cluster, self.metrics, self.rng, clock)
        # what the create verb reads of every node and pod: from the cache when it can vouch
        self.writer: ClusterAPI = cluster if cache is None else CachedReads(cluster, cache)
        self.metrics.fragmentation.set_function(self.placer.fragmented_gpus)

    def reconcile(self, obj: dict[str, Any]) -> Outcome:
        started = time.monotonic()
        workload = Workload.of(obj)
        try:
            outcome = self._reconcile(workload, obj)
        except KubeError as exc:
            outcome = self.status.api_error(workload, exc)
        self.metrics.reconcile_duration.labels(outcome.result).observe(time.monotonic() - started)
        return outcome

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
        wait = self.status.retry_wait(workload)
        if wait is not None:
            return Outcome("waiting", wait)
        return self._place(workload)

    def _check_node(self, workload: Workload) -> Outcome:
        """A placed workload: final once its pod started; placed again when its node went
        NotReady or away first; else looked at again later."""
        if self.nodes.started(workload):
            return Outcome("unchanged")
        node = str(workload.status.get("assignedNode") or "")
        lost = self.nodes.lost(workload.namespace, node)
        if not lost:
            return Outcome("unchanged", self.node_check_seconds)
        with self.placer.freeing(workload):  # the GPUs promised there are free again
            return self._replace(workload, node, lost)

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
        self.status.write(
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
        placement = self.placer.choose(workload, self.rng)
        if placement.chosen is None:
            return self.status.no_node(workload, placement.reason)
        node = placement.chosen.name
        try:
            said = self._create(workload, node, placement.chosen.labels.get(c.Labels.POOL))
        except WorkloadInvalid as exc:
            self.placer.release(workload, node)
            return self.status.fail(workload, Reason.INVALID_SPEC, str(exc))
        except ApplyFailed as exc:  # refused before anything was written
            self.placer.release(workload, node)
            reason = Reason.UNSCHEDULABLE if isinstance(exc, Unschedulable) else Reason.REFUSED
            return self.status.no_node(workload, _one_line(str(exc)), reason)
        except AlreadyExists:  # made meanwhile by someone else: adopt it if it is ours
            self.placer.release(workload, node)
            existing = self.cluster.find("Job", workload.job_name, workload.namespace)
            if existing is None:  # a job of that name that is not a Job (an inference job)
                return self._taken(workload)
            if terminating(existing):
                return Outcome("waiting", TERMINATING_RETRY_SECONDS, "the old Job is terminating")
            return self._adopt(workload, existing)
        except BaseException:
            self.placer.reread()  # the Job may or may not have been made
            raise
        self.metrics.scheduled.labels(workload.strategy).inc()
        self.status.write(
            workload,
            Phase.SCHEDULED,
            Reason.SCHEDULED,
            f"Job {workload.job_name} created on {node} "
            f"({workload.strategy}: {placement.candidates[0].reason}){said}",
            assignedNode=node,
            jobName=workload.job_name,
            strategy=workload.strategy,
        )
        return Outcome("scheduled", self.node_check_seconds, node)

    def _create(self, workload: Workload, node: str, pool: str | None) -> str:
        """Write the workload's Job on `node` through the create verb, as `gpuctl create` of
        its training spec writes it (the cluster's Kueue pools read first, as create reads
        them): its checks refuse before anything is written (ApplyFailed, Unschedulable; a
        job of that name that exists already: AlreadyExists), the PriorityClass its pods
        name is installed or left out, a Job in a Kueue pool is queued there (and the
        namespace's LocalQueue made). A failed write raises the cluster's error. Returns what
        else the verb said, for the status message."""
        manifests = job_manifests(workload, pool, cluster_options(self.writer))
        verb = Create(self.writer, marks=JobMarks(workload=workload, node=node))
        result = verb.run(manifests)
        if not result.ok:
            if result.causes:
                raise result.causes[0]
            raise ApplyFailed("; ".join(result.errors))
        for warning in result.warnings:
            log.warning("%s/%s: %s", workload.namespace, workload.name, warning)
        return _said(result, manifests)

    def _taken(self, workload: Workload) -> Outcome:
        return self.status.fail(
            workload,
            Reason.JOB_NAME_TAKEN,
            f"a job named {workload.job_name} exists and belongs to something else",
        )

    def _adopt(self, workload: Workload, job: dict[str, Any]) -> Outcome:
        owners = job["metadata"].get("ownerReferences") or []
        if not any(ref.get("uid") == workload.uid for ref in owners):
            return self._taken(workload)
        node = pinned_node(job)
        self.status.write(
            workload,
            Phase.SCHEDULED,
            Reason.ADOPTED,
            f"Job {workload.job_name} already exists on {node or 'its node'}; adopted",
            assignedNode=node,
            jobName=workload.job_name,
            strategy=workload.strategy,
        )
        return Outcome("adopted", self.node_check_seconds, node)

    def behind(self, obj: dict[str, Any]) -> bool:
        """Is `obj` older than the status this controller last wrote on it (a watch that has
        not brought that write yet)? Reconciling such a copy would place the workload again."""
        return self.status.behind(obj)

    def forget(self, namespace: str, name: str) -> None:
        """The workload is gone: nothing is remembered of it."""
        self.status.forget(namespace, name)


def _one_line(message: str) -> str:
    """A verb's refusal (a line per problem) as one status message."""
    return "; ".join(line.strip() for line in message.splitlines() if line.strip())


def _said(written: VerbResult, manifests: list[Manifest]) -> str:
    """What else the create verb did or said, a "; "-led clause each: the Kueue pool the Job
    is queued in (it starts once the pool's ClusterQueue admits it), its warnings."""
    words = [
        f"queued in Kueue pool {queue} (it starts once the pool's ClusterQueue admits it)"
        for m in manifests
        if (queue := (m.obj["metadata"].get("labels") or {}).get(c.KUEUE_QUEUE_LABEL))
    ]
    return "".join(f"; {word}" for word in words + written.warnings)
