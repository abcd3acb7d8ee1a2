"""Whether the cluster has Kueue, and which pools are Kueue ClusterQueues (see
constants.KUEUE_GROUP). A cluster without Kueue is normal: its API group is not served."""

from __future__ import annotations

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden, NotFound


def kueue_pools(cluster: ClusterAPI) -> frozenset[str] | None:
    """The pools that are ClusterQueues (gpuctl's, named after their pool); None when the
    cluster serves no Kueue API (one request: the list answers 404 then), or when the caller
    may not read ClusterQueues (the pools are then treated as without Kueue)."""
    try:
        queues = cluster.list(
            "ClusterQueue", label_selector=f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE}"
        )
    except (NotFound, Forbidden):
        return None
    return frozenset(
        queue["metadata"]["name"]
        for queue in queues
        if (queue["metadata"].get("labels") or {}).get(c.Labels.POOL) == queue["metadata"]["name"]
    )
