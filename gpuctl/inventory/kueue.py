"""Whether the cluster has Kueue, at which API version, and which pools are Kueue
ClusterQueues (see constants.KUEUE_GROUP). A cluster without Kueue is normal: its API group
is not served."""

from __future__ import annotations

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden
from gpuctl.cluster.resources import kueue_version
from gpuctl.inventory.pools import read_records_if_allowed


def served_kueue_version(cluster: ClusterAPI) -> str | None:
    """The Kueue API version gpuctl reads and writes on this cluster (v1beta2 where served,
    else v1beta1: constants.KUEUE_VERSIONS), from its API discovery; None where it serves
    neither (no Kueue, for gpuctl). Who may not read discovery is told the oldest version
    gpuctl supports: Kueue may be there, and its writes then say whether it is."""
    try:
        return kueue_version(cluster.served_versions(c.KUEUE_GROUP))
    except Forbidden:
        return c.KUEUE_VERSIONS[-1]


def kueue_pools(cluster: ClusterAPI) -> frozenset[str]:
    """The pools whose record says they are ClusterQueues (none for who may not read the
    records)."""
    return frozenset(
        name
        for name, record in read_records_if_allowed(cluster).items()
        if (record.get("data") or {}).get(c.POOL_KUEUE_KEY) == "true"
    )
