"""Has a placed workload lost its node before its pod started? Its pods and its node are read
from the caches when they can vouch for the cluster (no request), else from the cluster. A
node counts as lost when it is gone, or NotReady for at least the grace period (a kubelet that
misses a heartbeat or two under load comes back).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final

from gpuctl.cluster.api import ClusterAPI
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.workload import WORKLOAD_LABEL, Workload, label_value, workload_selector
from gpuctl.placement.capacity import node_problem
from gpuctl.times import parse_rfc3339

# How long a node must have been NotReady before its waiting workloads are placed again.
NOT_READY_GRACE_SECONDS: Final = 30.0
STARTED_PHASES: Final = ("Running", "Succeeded", "Failed")


class NodeCheck:
    def __init__(
        self,
        cluster: ClusterAPI,
        cached: Callable[[str], ClusterCache | None],
        cache: ClusterCache | None = None,
        node_selector: str | None = None,
        clock: Callable[[], float] = time.time,
        not_ready_grace_seconds: float = NOT_READY_GRACE_SECONDS,
    ) -> None:
        self.cluster = cluster
        self.cached = cached  # the cache when it serves a namespace's reads, else None
        self.cache = cache
        self.node_selector = node_selector
        self.clock = clock
        self.not_ready_grace_seconds = not_ready_grace_seconds

    def started(self, workload: Workload) -> bool:
        """Has a pod of the workload's Job started (Running or finished)?"""
        pods = self._pods_of(workload)
        return any((pod.get("status") or {}).get("phase") in STARTED_PHASES for pod in pods)

    def lost(self, namespace: str, node: str) -> str:
        """ "gone", "NotReady" (for at least the grace period), or "" (from the cache when
        there is one: no lock, no request)."""
        cache = self.cached(namespace)
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
