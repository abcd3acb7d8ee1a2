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

from collections.abc import Iterator
from typing import Any

from gpuctl.cluster.api import ClusterAPI
from gpuctl.controller.cache import ClusterCache
from gpuctl.inventory.nodes import ACTIVE_PODS

_FINISHED = ("Succeeded", "Failed")


class CachedReads:
    """`cluster`, with `list("Node")` and the list of active pods served by `cache` while it
    is fresh (ClusterCache.stale is empty)."""

    def __init__(self, cluster: ClusterAPI, cache: ClusterCache) -> None:
        self.cluster = cluster
        self.cache = cache
        self.namespace = cluster.namespace

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

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        return self.cluster.get(kind, name, namespace)

    def find(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        return self.cluster.find(kind, name, namespace)

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        return self.cluster.create(obj, dry_run=dry_run)

    def replace(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        return self.cluster.replace(obj, dry_run=dry_run)

    def patch(
        self,
        kind: str,
        name: str,
        namespace: str | None,
        patch: Any,
        *,
        patch_type: str = "merge",
    ) -> dict[str, Any]:
        return self.cluster.patch(kind, name, namespace, patch, patch_type=patch_type)

    def delete(
        self,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Foreground",
        grace_period: int | None = None,
        dry_run: bool = False,
    ) -> None:
        self.cluster.delete(
            kind,
            name,
            namespace,
            propagation=propagation,
            grace_period=grace_period,
            dry_run=dry_run,
        )

    def watch(
        self,
        kind: str,
        namespace: str | None,
        *,
        resource_version: str,
        field_selector: str | None = None,
        label_selector: str | None = None,
        timeout_seconds: int = 30,
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        return self.cluster.watch(
            kind,
            namespace,
            resource_version=resource_version,
            field_selector=field_selector,
            label_selector=label_selector,
            timeout_seconds=timeout_seconds,
        )

    def served_versions(self, group: str) -> tuple[str, ...]:
        return self.cluster.served_versions(group)
