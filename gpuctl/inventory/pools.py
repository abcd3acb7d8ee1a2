"""Resource pools: the record (ConfigMap `pool-<name>` in gpuctl-system) and the node labels.

A node is in pool P when it carries `runwhere.ai/pool=P`; a node the record lists that carries
no pool label (or does not exist) is shown too, so nothing the record claims goes unseen. The
labels are written by `create`/`apply -f pool.yaml` (checked before any write), `add node`
and `remove node`, and removed by `delete -f`. Nothing here prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden
from gpuctl.errors import GpuctlError
from gpuctl.inventory import status
from gpuctl.inventory.nodes import (
    active_pods,
    gpu_type,
    labels_of,
    name_of,
    node_gpus,
    node_name_of,
    pool_of,
)
from gpuctl.placement.capacity import free_of, node_usage, pool_claimed


class PoolNotFound(GpuctlError):
    pass


class PoolConflict(GpuctlError):
    """Nodes a pool file cannot have; found before anything was written."""


RECORD_SELECTOR = f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE},{c.Labels.POOL}"


def record_name(pool: str) -> str:
    return c.POOL_CONFIGMAP_PREFIX + pool


def recorded_nodes(record: dict[str, Any] | None) -> dict[str, str | None]:
    """The record's `nodes` (JSON: node name -> GPU type or null); {} when unreadable."""
    text = ((record or {}).get("data") or {}).get("nodes") or "{}"
    try:
        nodes = json.loads(text)
    except ValueError:
        return {}
    return (
        {str(k): (str(v) if v else None) for k, v in nodes.items()}
        if isinstance(nodes, dict)
        else {}
    )


def _json_list(record: dict[str, Any] | None, key: str) -> list[str]:
    text = ((record or {}).get("data") or {}).get(key) or "[]"
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return [str(v) for v in value if v] if isinstance(value, list) else []


def allowed_gpu_types(record: dict[str, Any] | None) -> list[str]:
    """The GPU models the pool allows ([]: any)."""
    return _json_list(record, c.POOL_GPU_TYPES_KEY)


def isolated(record: dict[str, Any] | None) -> bool:
    """Whether the pool's nodes carry its taint: every pool but a shared one (a record written
    before pools had isolation is isolated too)."""
    value = ((record or {}).get("data") or {}).get(c.POOL_ISOLATION_KEY)
    return (value or c.DEFAULT_POOL_ISOLATION) != "shared"


def gpu_cap(record: dict[str, Any] | None) -> int | None:
    """The pool's GPU cap (max-gpus); None when it has none."""
    value = ((record or {}).get("data") or {}).get(c.POOL_MAX_GPUS_KEY)
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


def wrote_gpu_type(record: dict[str, Any] | None) -> list[str]:
    """The nodes on which the pool wrote runwhere.ai/gpu-type (its delete removes only those)."""
    return _json_list(record, c.POOL_WROTE_GPU_TYPE_KEY)


def read_record(cluster: ClusterAPI, pool: str) -> dict[str, Any] | None:
    """The pool's record; None when there is none or it is being deleted (`delete` reported it
    deleted, and the garbage collector removes it a moment later)."""
    record = cluster.find("ConfigMap", record_name(pool), c.SYSTEM_NAMESPACE)
    return None if record is None or status.terminating(record) else record


def read_records(cluster: ClusterAPI) -> dict[str, dict[str, Any]]:
    """pool name -> its record, for every pool gpuctl recorded and is not deleting."""
    records = {}
    for item in cluster.list(
        "ConfigMap",
        c.SYSTEM_NAMESPACE,
        label_selector=RECORD_SELECTOR,
    ):
        if status.terminating(item):
            continue
        name = ((item.get("data") or {}).get("name")) or labels_of(item).get(c.Labels.POOL)
        if name:
            records[str(name)] = item
    return records


def pools_of(
    name: str, node: dict[str, Any] | None, records: dict[str, dict[str, Any]]
) -> list[str]:
    """The pools node `name` is in: the one rule behind every view (get/describe pool and
    node, GET /pools, GET /nodes). Its `runwhere.ai/pool` label decides (what jobs select);
    a node without the label (or that no longer exists) is in the pools whose record lists it,
    so nothing a record claims goes unseen."""
    label = pool_of(node) if node is not None else ""
    if label:
        return [label]
    return sorted(pool for pool, record in records.items() if name in recorded_nodes(record))


def read_records_if_allowed(cluster: ClusterAPI) -> dict[str, dict[str, Any]]:
    """`read_records`, or {} for who may not read gpuctl-system (the labels still decide)."""
    try:
        return read_records(cluster)
    except Forbidden:
        return {}


# ------------------------------------------------------------------------ inventory


@dataclass
class Pool:
    name: str
    record: dict[str, Any] | None
    members: list[str]

    @property
    def description(self) -> str:
        if self.name == c.DEFAULT_POOL:
            return "the nodes in no pool"
        return str(((self.record or {}).get("data") or {}).get("description") or "")


@dataclass
class Inventory:
    """Everything get/describe pools need, in three reads: records, nodes, active pods."""

    records: dict[str, dict[str, Any]]
    nodes: dict[str, dict[str, Any]]
    pods: list[dict[str, Any]]
    used: dict[str, int] = field(default_factory=dict)

    @classmethod
    def read(cls, cluster: ClusterAPI) -> Inventory:
        records = read_records(cluster)
        nodes = {name_of(node): node for node in cluster.list("Node")}
        pods = active_pods(cluster)
        return cls(records, nodes, pods, node_usage(nodes.values(), pods))

    def members(self, pool: str) -> list[str]:
        if pool in c.DEFAULT_POOL_NAMES:  # the nodes in no pool
            return sorted(name for name in self.nodes if not self.pools_of(name))
        names = set(self.nodes) | set(recorded_nodes(self.records.get(pool)))
        return sorted(name for name in names if pool in self.pools_of(name))

    def pools_of(self, node: str) -> list[str]:
        return pools_of(node, self.nodes.get(node), self.records)

    def pools(self) -> list[Pool]:
        """Every pool, and the default pool (the nodes in no pool) when it has nodes."""
        names = set(self.records) | {pool_of(n) for n in self.nodes.values() if pool_of(n)}
        found = [Pool(name, self.records.get(name), self.members(name)) for name in sorted(names)]
        default = Pool(c.DEFAULT_POOL, None, self.members(c.DEFAULT_POOL))
        return [*found, default] if default.members else found

    def pool(self, name: str) -> Pool:
        if name in c.DEFAULT_POOL_NAMES:
            return Pool(c.DEFAULT_POOL, None, self.members(c.DEFAULT_POOL))
        found = Pool(name, self.records.get(name), self.members(name))
        if found.record is None and not found.members:
            raise PoolNotFound(f"pool {name} not found")
        return found

    def gpus(self, pool: Pool) -> tuple[int, int]:
        """(total, used) over the pool's nodes that exist."""
        present = [n for n in pool.members if n in self.nodes]
        return (
            sum(node_gpus(self.nodes[n]) for n in present),
            sum(self.used.get(n, 0) for n in present),
        )

    def cap(self, pool: Pool) -> tuple[int, int | None]:
        """(the GPUs its jobs' pods request, its cap or None): what `max-gpus` counts."""
        return pool_claimed(self.pods, pool.name, self.nodes), gpu_cap(pool.record)

    def gpu_type(self, pool: Pool, node: str) -> str:
        """The node's GPU model from its labels, else what the record says."""
        if node in self.nodes and gpu_type(self.nodes[node]):
            return gpu_type(self.nodes[node])
        return recorded_nodes(pool.record).get(node) or ""

    def gpu_types(self, pool: Pool) -> dict[str, int]:
        """GPU model -> GPUs of that model in the pool."""
        counts: dict[str, int] = {}
        for node in pool.members:
            kind = self.gpu_type(pool, node)
            if kind:
                gpus = node_gpus(self.nodes[node]) if node in self.nodes else 0
                counts[kind] = counts.get(kind, 0) + gpus
        return counts

    def jobs_in(self, pool: Pool) -> dict[tuple[str, str], list[dict[str, Any]]]:
        """(namespace, job) -> its active pods on the pool's nodes."""
        jobs: dict[tuple[str, str], list[dict[str, Any]]] = {}
        members = set(pool.members)
        for pod in self.pods:
            if node_name_of(pod) in members:
                job = status.job_name_of(labels_of(pod)) or name_of(pod)
                jobs.setdefault((pod["metadata"].get("namespace", ""), job), []).append(pod)
        return jobs

    def summary(self, pool: Pool) -> dict[str, Any]:
        """`-o yaml|json`: one pool, in the shape of the users' REST API documents."""
        total, used = self.gpus(pool)
        return {
            "name": pool.name,
            "description": pool.description,
            "nodes": pool.members,
            "gpuTotal": total,
            "gpuUsed": used,
            "gpuFree": free_of(total, used),
            "gpuType": self.gpu_types(pool),
            "gpuCap": self.cap(pool)[1],
            "gpuCapUsed": self.cap(pool)[0],
            "record": f"configmap/{record_name(pool.name)}" if pool.record else None,
        }
