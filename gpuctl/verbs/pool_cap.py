"""Change an existing pool's GPU cap. The pool file its record stands for, with only
`max-gpus` changed, is rendered as `gpuctl apply -f pool.yaml` renders it; of what it renders,
only what a cap sets is written: the record's cap (and its Kueue mark and fingerprint), and
where Kueue is installed the ClusterQueue's GPU quota, in place. The pool's nodes (their labels
and taints), allowed GPU types, isolation and description are not written at all, so a node
that `add node` or `remove node` moves at the same moment is neither lost nor brought back: the
record is patched at the version the file was built from, and built again if it moved."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.client import Conflict
from gpuctl.errors import GpuctlError
from gpuctl.inventory.nodes import labels_of, name_of
from gpuctl.inventory.pools import (
    PoolNotFound,
    allowed_gpu_types,
    gpu_cap,
    read_record,
    record_name,
    recorded_nodes,
)
from gpuctl.render.engine import Manifest
from gpuctl.verbs.common import ObjectResult, VerbResult
from gpuctl.verbs.node_labels import ATTEMPTS
from gpuctl.verbs.plan import desired_object


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


def capped_file(cluster: ClusterAPI, record: dict[str, Any], cap: int | None) -> str:
    """The pool file (YAML) `record` stands for, with `max-gpus` set to `cap` (None: no cap)."""
    wanted = set(recorded_nodes(record))
    live = {name_of(n): n for n in cluster.list("Node") if name_of(n) in wanted}
    spec = pool_file(record, live)
    spec.pop("max-gpus", None)
    if cap is not None:
        spec["max-gpus"] = cap
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True)


# The record's keys a cap change writes; a key the rendered record lacks is removed.
CAP_KEYS = (c.POOL_MAX_GPUS_KEY, c.POOL_KUEUE_KEY)


@dataclass
class SetPoolCap:
    """Set (or with None remove) a pool's GPU cap. `render` turns a pool file into its
    manifests as the front end renders specs (its options and its admission rules)."""

    cluster: ClusterAPI
    render: Callable[[str], Sequence[Manifest]]

    def run(self, pool: str, cap: int | None) -> VerbResult:
        from gpuctl.verbs.apply import Apply

        for _ in range(ATTEMPTS):
            record = read_record(self.cluster, pool)
            if record is None:
                raise PoolNotFound(
                    f"pool {pool} not found (a pool that only node labels name has no record "
                    "to hold a cap: create it first)"
                )
            manifests = self.render(capped_file(self.cluster, record, cap))
            try:
                written = self._write_record(record, _record_manifest(manifests, pool))
            except Conflict:
                continue  # add/remove node moved the record: build the file again
            result = VerbResult([written])
            queues = [m for m in manifests if m.group == c.KUEUE_GROUP]
            if queues:
                result.extend(Apply(self.cluster, prune=False).run(queues))
            return result
        raise GpuctlError(f"the record of pool {pool} kept changing; nothing was changed")

    def _write_record(self, record: dict[str, Any], manifest: Manifest) -> ObjectResult:
        """Patch the cap's keys and the fingerprint at the record's resourceVersion (a
        Conflict when it moved since it was read)."""
        desired = desired_object(manifest)
        hash_key = c.RENDER_HASH_ANNOTATION
        wanted = {
            "data": {key: desired["data"].get(key) for key in CAP_KEYS},
            "annotations": {hash_key: desired["metadata"]["annotations"][hash_key]},
        }
        have = {
            "data": {key: (record.get("data") or {}).get(key) for key in CAP_KEYS},
            "annotations": {hash_key: (record["metadata"].get("annotations") or {}).get(hash_key)},
        }
        name, namespace = manifest.name, manifest.namespace
        if wanted == have:
            return ObjectResult("ConfigMap", name, namespace, "unchanged", record)
        version = record["metadata"]["resourceVersion"]
        patch = {
            "metadata": {"resourceVersion": version, "annotations": wanted["annotations"]},
            "data": wanted["data"],
        }
        written = self.cluster.patch("ConfigMap", name, namespace, patch)
        return ObjectResult("ConfigMap", name, namespace, "configured", written)


def _record_manifest(manifests: Sequence[Manifest], pool: str) -> Manifest:
    for manifest in manifests:
        if manifest.kind == "ConfigMap" and manifest.name == record_name(pool):
            return manifest
    raise AssertionError(f"the pool file of {pool} rendered no record")  # pragma: no cover
