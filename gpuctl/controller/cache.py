"""What placement reads, kept current by watches instead of listed at every placement: the
nodes (those of the node selector), every pod, and the namespace's GPUWorkloads, each held by
the cluster layer's Informer (list, then watch; list again when the version is gone). Nodes and
pods are kept slimmed to the fields placement reads (a node's labels, spec, capacity and
conditions; a pod's node, phase and container resources), so 1,000 nodes and their pods stay
small. A stale cache (gpuctl.cluster.cache says when) is not read: placement reads the
cluster itself then.
"""

from __future__ import annotations

from typing import Any

from gpuctl.cluster.cache import Cache, Source, Watched


def _metadata(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    keep = ("name", "namespace", "uid", "labels", "resourceVersion", "deletionTimestamp")
    return {key: meta[key] for key in keep if key in meta}


def slim_node(node: dict[str, Any]) -> dict[str, Any]:
    status = node.get("status") or {}
    return {
        "metadata": _metadata(node),
        "spec": node.get("spec") or {},
        "status": {
            "allocatable": status.get("allocatable") or {},
            "capacity": status.get("capacity") or {},
            "conditions": [
                cond for cond in status.get("conditions") or [] if cond.get("type") == "Ready"
            ],
        },
    }


def slim_pod(pod: dict[str, Any]) -> dict[str, Any]:
    spec = pod.get("spec") or {}

    def containers(key: str) -> list[dict[str, Any]]:
        return [
            {"name": item.get("name"), "resources": item.get("resources") or {}}
            for item in spec.get(key) or []
        ]

    return {
        "metadata": _metadata(pod),
        "spec": {
            "nodeName": spec.get("nodeName"),
            # where a pod not yet bound is pinned: placement counts its GPUs there
            "affinity": {"nodeAffinity": (spec.get("affinity") or {}).get("nodeAffinity")},
            "containers": containers("containers"),
            "initContainers": containers("initContainers"),
        },
        "status": {"phase": (pod.get("status") or {}).get("phase")},
    }


class ClusterCache:
    """Nodes, pods and GPUWorkloads for placement, each kept by an Informer."""

    def __init__(
        self, cluster: Source, namespace: str | None, node_selector: str | None, kind: str
    ) -> None:
        """`namespace`: the GPUWorkloads of that namespace; None: of every namespace."""
        self.namespace = namespace
        self._cache = Cache(
            cluster,
            [Watched("Node", None, node_selector or ""), Watched("Pod"), Watched(kind, namespace)],
            {"Node": slim_node, "Pod": slim_pod},
        )
        self.nodes, self.pods, self.workloads = self._cache.informers

    @property
    def stale(self) -> str:
        """Why the cache may not show the cluster as it is now ("" when it does): placement
        then reads the cluster itself, and fails (to be retried) when the cluster is down."""
        return next((why for why in (i.stale for i in self._cache.informers) if why), "")

    def start(self, timeout: float = 60.0) -> bool:
        """Start watching; True once all three have listed (within `timeout`)."""
        self._cache.start()
        return self._cache.wait_ready(timeout)

    def stop(self) -> None:
        self._cache.stop()
