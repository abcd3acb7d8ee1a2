"""Where the controller places a workload: one placement at a time, each on the capacity model
(gpuctl.placement) as the previous ones left it, so two workloads never both take a node's last
free GPUs. One read of the cluster (from the caches when they can vouch for it) serves
successive placements for SNAPSHOT_SECONDS; the placements made that a read does not show yet
are the capacity model's remembered claims (placement.claims.RecentPlacements).
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections.abc import Iterator
from typing import Final

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.resource import Phase
from gpuctl.controller.view import ClusterGpus, Objects, plan, read_objects, view_of
from gpuctl.controller.workload import Workload
from gpuctl.placement import strategies
from gpuctl.placement.claims import RecentPlacements

log = logging.getLogger("gpuctl.controller")

# How long one read of nodes, pods and workloads serves successive placements (each placement
# is added to it at once). A burst of new workloads then costs one read, not one each; GPUs
# freed meanwhile are seen at the next read.
SNAPSHOT_SECONDS: Final = 2.0


class Placer:
    def __init__(
        self,
        cluster: ClusterAPI,
        cache: ClusterCache | None = None,
        node_selector: str | None = None,
        snapshot_seconds: float = SNAPSHOT_SECONDS,
    ) -> None:
        self.cluster = cluster
        self.cache = cache
        self.node_selector = node_selector
        self.snapshot_seconds = snapshot_seconds
        self._placing = threading.Lock()  # held while a snapshot is read, used and updated
        self._snapshot: tuple[float, str, ClusterGpus] | None = None
        self.recent = RecentPlacements()
        self._namespace: str | None = None  # of the last read, for a metric read without cache
        self._fragmented = 0

    def fragmented_gpus(self) -> float:
        """Free GPUs too few for the largest pending workload, as the cluster is when the
        metric is read (so it falls to 0 once no workload waits, placed or deleted): from the
        caches, else a read of the cluster; the last value when the read fails."""
        cache = self.cache
        try:
            if cache is not None:
                view = view_of(*_cached_objects(cache))
            elif self._namespace is not None:
                view = view_of(*read_objects(self.cluster, self._namespace, self.node_selector))
            else:  # nothing read yet
                return self._fragmented
        except KubeError as exc:
            log.warning("fragmented GPUs not measured, the last value stays: %s", exc)
            return self._fragmented
        self._fragmented = view.capacity.fragmented(view.largest_pending)
        return self._fragmented

    def cached(self, namespace: str) -> ClusterCache | None:
        """The cache, when it holds the GPUWorkloads of `namespace` (its own, or all) and can
        vouch for the cluster (not stale: else the cluster is read instead)."""
        cache = self.cache
        if cache is not None and cache.namespace in (None, namespace) and not cache.stale:
            return cache
        return None

    def choose(self, workload: Workload, rng: random.Random) -> strategies.Placement:
        """The strategy's choice, its GPUs taken at once in the view (one choice at a time;
        the requests that follow run in parallel with other choices)."""
        with self._placing:
            view = self._view(workload.namespace)
            # a GPUWorkload names no pool (its Job joins the chosen node's pool)
            (placement,) = plan(view, [workload], rng)
            if placement.chosen is not None:
                key = (workload.namespace, workload.name)
                self.recent.add(key, placement.chosen.name, workload.gpus, time.monotonic())
            return placement

    def release(self, workload: Workload, node: str) -> None:
        """Give back the GPUs `choose` took: no Job was made for them."""
        with self._placing:
            self.recent.drop((workload.namespace, workload.name))
            if self._snapshot is not None:
                self._snapshot[2].capacity.take(node, -workload.gpus)

    def reread(self) -> None:
        """Read the cluster again for the next placement (a Job may or may not have been
        made)."""
        with self._placing:
            self._snapshot = None

    @contextlib.contextmanager
    def freeing(self, workload: Workload) -> Iterator[None]:
        """While the workload's placement is undone: no placement runs, and the next one reads
        the cluster again (the GPUs promised to it are free again)."""
        with self._placing:
            self._snapshot = None
            self.recent.drop((workload.namespace, workload.name))
            yield

    def _view(self, namespace: str) -> ClusterGpus:
        """The cluster's GPUs: the snapshot while it is fresh, else a new read (a cache of
        every namespace serves every namespace)."""
        now = time.monotonic()
        cache = self.cached(namespace)
        scope = "" if cache is not None and cache.namespace is None else namespace
        if self._snapshot is not None:
            taken, where, view = self._snapshot
            if where == scope and now - taken < self.snapshot_seconds:
                return view
        nodes, pods, workloads = (
            _cached_objects(cache)
            if cache is not None
            else read_objects(self.cluster, namespace, self.node_selector)
        )
        remembered = self.recent.unseen(_scheduled_on(workloads), now)
        view = view_of(nodes, pods, workloads, remembered)
        self._namespace = namespace
        self._snapshot = (now, scope, view)
        return view


def _cached_objects(cache: ClusterCache) -> Objects:
    return cache.nodes.objects(), cache.pods.objects(), cache.workloads.objects()


def _scheduled_on(workloads: list[dict[str, object]]) -> dict[tuple[str, str], str]:
    """(namespace, name) -> the node of each Scheduled workload, as read."""
    shown: dict[tuple[str, str], str] = {}
    for obj in workloads:
        workload = Workload.of(obj)
        if workload.status.get("phase") == Phase.SCHEDULED:
            shown[(workload.namespace, workload.name)] = str(workload.status.get("assignedNode"))
    return shown
