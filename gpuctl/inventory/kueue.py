"""Whether the cluster has Kueue, and which pools are Kueue ClusterQueues (see
constants.KUEUE_GROUP). A cluster without Kueue is normal: its API group is not served."""

from __future__ import annotations

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden, NotFound
from gpuctl.inventory.pools import read_records_if_allowed


def kueue_installed(cluster: ClusterAPI) -> bool:
    """Does the cluster serve Kueue's API? One request: a list of ClusterQueues answers 404
    where it does not (403 for who may not list them: Kueue is there all the same)."""
    try:
        cluster.list("ClusterQueue", label_selector=f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE}")
    except NotFound:
        return False
    except Forbidden:
        return True
    return True


def kueue_pools(cluster: ClusterAPI) -> frozenset[str]:
    """The pools whose record says they are ClusterQueues (none for who may not read the
    records)."""
    return frozenset(
        name
        for name, record in read_records_if_allowed(cluster).items()
        if (record.get("data") or {}).get(c.POOL_KUEUE_KEY) == "true"
    )
