"""The cluster as the create verb sees it from the controller: the two cluster-wide lists its
checks make before each Job is written (every node, for feasibility; every pod that holds
resources, for a pool's cap) come from the controller's watched cache while the cache can
vouch for the cluster, instead of a LIST of every node and pod per placement. Everything else
goes to the cluster.

The cache holds the nodes the controller places on (its node selector, all nodes without
one), slimmed to what placement reads (labels, taints, capacity, readiness), and every pod
(those that finished are left out here, as the LIST's field selector leaves them out). The
objects are the cache's own: the verb's checks read them and never change them.
"""

from __future__ import annotations

from typing import Any

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.forwarding import Forwarding
from gpuctl.controller.cache import ClusterCache
from gpuctl.inventory.nodes import ACTIVE_PODS

_FINISHED = ("Succeeded", "Failed")


class CachedReads(Forwarding):
    """`cluster`, with `list("Node")` and the list of active pods served by `cache` while it
    is fresh (ClusterCache.stale is empty)."""

    def __init__(self, cluster: ClusterAPI, cache: ClusterCache) -> None:
        self._cluster = cluster
        self.cache = cache
        self.namespace = cluster.namespace

    @property
    def cluster(self) -> ClusterAPI:
        return self._cluster

    def _cached(
        self,
        kind: str,
        namespace: str | None,
        label_selector: str | None,
        field_selector: str | None,
    ) -> list[dict[str, Any]] | None:
        if namespace is not None or label_selector or self.cache.stale:
            return None
        if kind == "Node" and not field_selector:
            return list(self.cache.nodes.objects())
        if kind == "Pod" and field_selector == ACTIVE_PODS:
            return [
                pod
                for pod in self.cache.pods.objects()
                if (pod.get("status") or {}).get("phase") not in _FINISHED
            ]
        return None

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[dict[str, Any]]:
        cached = self._cached(kind, namespace, label_selector, field_selector)
        if cached is not None:
            return cached
        return self.cluster.list(
            kind, namespace, label_selector=label_selector, field_selector=field_selector
        )
