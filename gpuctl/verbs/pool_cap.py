"""Change an existing pool's GPU cap. The pool file its record stands for, with only
`max-gpus` changed, is applied as `gpuctl apply -f pool.yaml` applies it: the record, and where
Kueue is installed the ClusterQueue's GPU quota, are updated in place; the pool's nodes (their
labels and taints), allowed GPU types, isolation and description stay as they are."""

from __future__ import annotations

from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory.nodes import labels_of, name_of
from gpuctl.inventory.pools import (
    PoolNotFound,
    allowed_gpu_types,
    gpu_cap,
    read_record,
    recorded_nodes,
)


def pool_file(record: dict[str, Any], live: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The pool file a record stands for. A node keeps its `gpu-type` only where the node
    carries that very runwhere.ai/gpu-type label (`live`: node name -> node), so applying the
    file writes no node label."""
    data = record.get("data") or {}
    nodes: dict[str, dict[str, str]] = {}
    for name, recorded in recorded_nodes(record).items():
        node = live.get(name)
        same = node is not None and recorded and labels_of(node).get(c.Labels.GPU_TYPE) == recorded
        nodes[name] = {"gpu-type": recorded} if same and recorded else {}
    spec: dict[str, Any] = {
        "kind": "pool",
        "version": c.SPEC_VERSIONS[-1],
        "metadata": {"name": data.get("name", ""), "description": data.get("description", "")},
        "nodes": nodes,
        "isolation": data.get(c.POOL_ISOLATION_KEY) or c.DEFAULT_POOL_ISOLATION,
    }
    if allowed_gpu_types(record):
        spec["gpu-types"] = allowed_gpu_types(record)
    if gpu_cap(record) is not None:
        spec["max-gpus"] = gpu_cap(record)
    return spec


def capped_file(cluster: ClusterAPI, pool: str, cap: int | None) -> str:
    """The pool's file (YAML) as it is, with `max-gpus` set to `cap` (None: no cap). A pool
    without a record (only node labels name it) has no cap to change: PoolNotFound."""
    record = read_record(cluster, pool)
    if record is None:
        raise PoolNotFound(
            f"pool {pool} not found (a pool that only node labels name has no record to hold "
            "a cap: create it first)"
        )
    wanted = set(recorded_nodes(record))
    live = {name_of(n): n for n in cluster.list("Node") if name_of(n) in wanted}
    spec = pool_file(record, live)
    spec.pop("max-gpus", None)
    if cap is not None:
        spec["max-gpus"] = cap
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True)
