"""Resource pools: the record (ConfigMap `pool-<name>` in gpuctl-system) and the node labels.

A node is in pool P when it carries `runwhere.ai/pool=P`; a node the record lists that carries
no pool label (or does not exist) is shown too, so nothing the record claims goes unseen. The
labels are written by `create`/`apply -f pool.yaml` (checked before any write), `add node`
and `remove node`, and removed by `delete -f`. Nothing here prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.cluster.client import Cluster, Conflict, KubeError, NotFound
from gpuctl.errors import GpuctlError
from gpuctl.inventory import status
from gpuctl.inventory.nodes import (
    ATTEMPTS,
    NONE,
    active_pods,
    fields,
    gpu_cell,
    gpu_type,
    gpus_in_use,
    indent,
    labels_of,
    name_of,
    node_gpus,
    node_name_of,
    node_status,
    patch_labels,
    pool_of,
)
from gpuctl.render.engine import Manifest, NodeLabels


class PoolNotFound(GpuctlError):
    pass


class PoolConflict(GpuctlError):
    """Nodes a pool file cannot have; found before anything was written."""


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


def read_record(cluster: Cluster, pool: str) -> dict[str, Any] | None:
    return cluster.find("ConfigMap", record_name(pool), c.SYSTEM_NAMESPACE)


def read_records(cluster: Cluster) -> dict[str, dict[str, Any]]:
    """pool name -> its record, for every pool gpuctl recorded."""
    records = {}
    for item in cluster.list(
        "ConfigMap",
        c.SYSTEM_NAMESPACE,
        label_selector=f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE},{c.Labels.POOL}",
    ):
        name = ((item.get("data") or {}).get("name")) or labels_of(item).get(c.Labels.POOL)
        if name:
            records[str(name)] = item
    return records


# ------------------------------------------------------------------------ inventory


@dataclass
class Pool:
    name: str
    record: dict[str, Any] | None
    members: list[str]

    @property
    def description(self) -> str:
        return str(((self.record or {}).get("data") or {}).get("description") or "")


@dataclass
class Inventory:
    """Everything get/describe pools need, in three reads: records, nodes, active pods."""

    records: dict[str, dict[str, Any]]
    nodes: dict[str, dict[str, Any]]
    pods: list[dict[str, Any]]
    used: dict[str, int] = field(default_factory=dict)

    @classmethod
    def read(cls, cluster: Cluster) -> Inventory:
        records = read_records(cluster)
        nodes = {name_of(node): node for node in cluster.list("Node")}
        pods = active_pods(cluster)
        return cls(records, nodes, pods, gpus_in_use(pods))

    def members(self, pool: str) -> list[str]:
        labelled = {name for name, node in self.nodes.items() if pool_of(node) == pool}
        unlabelled = {
            name
            for name in recorded_nodes(self.records.get(pool))
            if name not in self.nodes or not pool_of(self.nodes[name])
        }
        return sorted(labelled | unlabelled)

    def pools(self) -> list[Pool]:
        names = set(self.records) | {pool_of(n) for n in self.nodes.values() if pool_of(n)}
        return [Pool(name, self.records.get(name), self.members(name)) for name in sorted(names)]

    def pool(self, name: str) -> Pool:
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

    def summary(self, pool: Pool) -> dict[str, Any]:
        """`-o yaml|json`: one pool, in the words of the seed's API (seed 004, 7.2.2)."""
        total, used = self.gpus(pool)
        return {
            "name": pool.name,
            "description": pool.description,
            "nodes": pool.members,
            "gpuTotal": total,
            "gpuUsed": used,
            "gpuFree": max(total - used, 0),
            "gpuType": self.gpu_types(pool),
            "record": f"configmap/{record_name(pool.name)}" if pool.record else None,
        }


POOL_HEADERS = ("NAME", "NODES", "GPU", "GPU-TYPES", "DESCRIPTION", "AGE")
POOL_WIDE_HEADERS = ("NAME", "NODES", "GPU", "GPU-TYPES", "NODE-NAMES", "DESCRIPTION", "AGE")


def pool_rows(
    inventory: Inventory, pools: Sequence[Pool], *, wide: bool = False, at: datetime | None = None
) -> list[list[str]]:
    rows = []
    for pool in pools:
        total, used = inventory.gpus(pool)
        stamp = (pool.record or {}).get("metadata", {}).get("creationTimestamp")
        row = [
            pool.name,
            str(len(pool.members)),
            gpu_cell(total, used),
            ",".join(sorted(inventory.gpu_types(pool))) or NONE,
        ]
        if wide:
            row.append(",".join(pool.members) or NONE)
        row += [pool.description, table.age(stamp, at) if stamp else NONE]
        rows.append(row)
    return rows


def describe_pool(inventory: Inventory, name: str, at: datetime | None = None) -> str:
    """`describe pool`: record, GPUs, GPU types with counts, nodes, and the jobs on them."""
    pool = inventory.pool(name)
    total, used = inventory.gpus(pool)
    stamp = (pool.record or {}).get("metadata", {}).get("creationTimestamp")
    types = inventory.gpu_types(pool)
    lines = fields(
        [
            ("Name", pool.name),
            ("Description", pool.description or NONE),
            (
                "Record",
                f"configmap/{record_name(name)} in {c.SYSTEM_NAMESPACE}"
                + (f" (created {table.age(stamp, at)} ago)" if stamp else "")
                if pool.record
                else "none (only node labels name this pool)",
            ),
            ("GPU", f"{total} total, {used} used, {max(total - used, 0)} free"),
            ("GPU types", ", ".join(f"{k}: {v}" for k, v in sorted(types.items())) or NONE),
        ]
    )
    recorded = recorded_nodes(pool.record)
    node_rows = []
    for node in pool.members:
        live = inventory.nodes.get(node)
        if live is None:
            note = "not found in the cluster"
        elif not pool_of(live):
            note = f"not labelled {c.Labels.POOL}"
        elif node not in recorded and pool.record:
            note = "not in the record"
        else:
            note = ""
        node_rows.append(
            [
                node,
                node_status(live) if live else "Missing",
                gpu_cell(node_gpus(live), inventory.used.get(node, 0)) if live else NONE,
                inventory.gpu_type(pool, node) or NONE,
                note,
            ]
        )
    lines += [f"Nodes: ({len(pool.members)})"]
    lines += (
        indent(table.table(("NAME", "STATUS", "GPU", "GPU-TYPE", "NOTE"), node_rows))
        if node_rows
        else [f"  {NONE}"]
    )
    jobs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    members = set(pool.members)
    for pod in inventory.pods:
        if node_name_of(pod) in members:
            job = status.job_name_of(labels_of(pod)) or name_of(pod)
            jobs.setdefault((pod["metadata"].get("namespace", ""), job), []).append(pod)
    job_rows = [
        [
            namespace,
            job,
            str(len(pods)),
            str(sum(status.pod_gpus(p) for p in pods)),
            ",".join(sorted({node_name_of(p) for p in pods})),
        ]
        for (namespace, job), pods in sorted(jobs.items())
    ]
    lines += [f"Jobs: ({len(job_rows)} running)"]
    lines += (
        indent(table.table(("NAMESPACE", "JOB", "PODS", "GPU", "NODES"), job_rows))
        if job_rows
        else [f"  {NONE}"]
    )
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ add and remove


def _update_record(
    cluster: Cluster, pool: str, add: dict[str, str | None], remove: Sequence[str]
) -> None:
    """Add and remove nodes in the record's `nodes`, with optimistic concurrency."""
    for _ in range(ATTEMPTS):
        record = read_record(cluster, pool)
        if record is None:
            return
        nodes = recorded_nodes(record)
        wanted = {k: v for k, v in {**nodes, **add}.items() if k not in remove}
        if wanted == nodes:
            return
        patch = {
            "metadata": {"resourceVersion": record["metadata"].get("resourceVersion")},
            "data": {"nodes": json.dumps(wanted, sort_keys=True)},
        }
        try:
            cluster.patch("ConfigMap", record_name(pool), c.SYSTEM_NAMESPACE, patch)
            return
        except Conflict:
            continue
    raise GpuctlError(f"the record of pool {pool} kept changing; try again")


def add_nodes(
    cluster: Cluster, pool: str, names: Sequence[str], overwrite: bool
) -> tuple[list[str], list[str]]:
    """Label the nodes `runwhere.ai/pool=POOL` and list them in the record.

    Every node is checked first (exists, not in another pool unless `overwrite`); any problem
    means nothing is written. (report lines, error lines)."""
    if read_record(cluster, pool) is None:
        raise PoolNotFound(f"pool {pool} not found (create it first: gpuctl create -f POOL.yaml)")
    nodes, errors = _read_nodes(cluster, names)
    for name, node in nodes.items():
        other = pool_of(node)
        if other and other != pool and not overwrite:
            errors.append(
                f"node/{name} is in pool {other}; add --overwrite to move it to pool {pool}"
            )
    if errors:
        return [], [*errors, f"nothing was changed in pool {pool}"]
    lines: list[str] = []
    added: dict[str, str | None] = {}
    for name, node in nodes.items():
        added[name] = gpu_type(node) or None
        if pool_of(node) == pool:
            lines.append(f"node/{name} already in pool {pool}")
            continue
        try:
            _set_pool(cluster, node, pool, overwrite)
        except GpuctlError as exc:
            errors.append(f"node/{name}: {exc}")
            added.pop(name)
            continue
        lines.append(f"node/{name} added to pool {pool}")
    _update_record(cluster, pool, added, ())
    return lines, errors


def remove_nodes(cluster: Cluster, pool: str, names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Remove `runwhere.ai/pool` from nodes of this pool and drop them from the record; every
    node is checked first. (report lines, error lines)."""
    record = read_record(cluster, pool)
    nodes, errors = _read_nodes(cluster, names)
    if record is None and not any(pool_of(n) == pool for n in nodes.values()):
        raise PoolNotFound(f"pool {pool} not found")
    recorded = recorded_nodes(record)
    for name, node in nodes.items():
        other = pool_of(node)
        if other != pool and not (not other and name in recorded):
            where = f"in pool {other}" if other else "in no pool"
            errors.append(f"node/{name} is not in pool {pool} (it is {where})")
    if errors:
        return [], [*errors, f"nothing was changed in pool {pool}"]
    lines: list[str] = []
    removed = []
    for name, node in nodes.items():
        try:
            if pool_of(node):
                _set_pool(cluster, node, None, False, expected=pool)
        except GpuctlError as exc:
            errors.append(f"node/{name}: {exc}")
            continue
        removed.append(name)
        lines.append(f"node/{name} removed from pool {pool}")
    _update_record(cluster, pool, {}, removed)
    return lines, errors


def _read_nodes(
    cluster: Cluster, names: Sequence[str]
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    nodes: dict[str, dict[str, Any]] = {}
    errors = []
    for name in dict.fromkeys(names):
        node = cluster.find("Node", name)
        if node is None:
            errors.append(f"node/{name} not found")
        else:
            nodes[name] = node
    return nodes, errors


def _set_pool(
    cluster: Cluster,
    node: dict[str, Any],
    pool: str | None,
    overwrite: bool,
    *,
    expected: str | None = None,
    extra: dict[str, str] | None = None,
) -> None:
    """Write (or with None remove) the node's pool label. A node that changed since it was read
    is read again and checked again: another pool may have claimed it meanwhile."""
    name = name_of(node)
    labels: dict[str, str | None] = {c.Labels.POOL: pool, **(extra or {})}
    for _ in range(ATTEMPTS):
        current = pool_of(node)
        if expected is not None and current != expected:
            raise PoolConflict(f"it is now in pool {current or '(none)'}, not {expected}")
        if pool is not None and current not in ("", pool) and not overwrite:
            raise PoolConflict(f"it is now in pool {current}; add --overwrite to move it")
        try:
            patch_labels(cluster, node, labels)
            return
        except Conflict:
            node = cluster.get("Node", name)
    raise GpuctlError("it kept changing while it was being labelled; try again")


# ----------------------------------------------------- create, apply and delete -f


@dataclass
class PoolLabels:
    """The node labels of the pool files in one create/apply/delete run.

    `check` reads and refuses before anything is written: a node that does not exist, a node
    two files claim, a node of another pool (unless `overwrite`). `write` then labels; for
    apply it also unlabels the nodes the previous record listed that the file dropped.
    """

    cluster: Cluster
    manifests: Sequence[Manifest]
    wanted: Sequence[NodeLabels]
    overwrite: bool = False
    previous: dict[str, dict[str, str | None]] = field(default_factory=dict)
    live: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def pools(self) -> dict[int, str]:
        """id(document) -> pool name, from the records the pool files render."""
        return {
            id(m.document): m.obj["metadata"]["labels"][c.Labels.POOL]
            for m in self.manifests
            if m.kind == "ConfigMap"
            and m.namespace == c.SYSTEM_NAMESPACE
            and c.Labels.POOL in (m.obj["metadata"].get("labels") or {})
        }

    def pool_of_claim(self, claim: NodeLabels) -> str:
        return claim.labels[c.Labels.POOL]

    def check(self, *, with_previous: bool = False) -> None:
        """Raise PoolConflict naming every problem; only reads (none without pool files)."""
        pools = self.pools
        if not pools:
            return
        if with_previous:
            for pool in pools.values():
                self.previous[pool] = recorded_nodes(read_record(self.cluster, pool))
        self.live = {name_of(node): node for node in self.cluster.list("Node")}
        problems = []
        claimed: dict[str, NodeLabels] = {}
        for claim in self.wanted:
            pool = self.pool_of_claim(claim)
            where = f"{claim.document.source}"
            first = claimed.setdefault(claim.node, claim)
            if first is not claim and self.pool_of_claim(first) != pool:
                problems.append(
                    f"node {claim.node} is in pool {pool} ({where}) and in pool "
                    f"{self.pool_of_claim(first)} ({first.document.source}); a node belongs "
                    "to one pool"
                )
                continue
            node = self.live.get(claim.node)
            if node is None:
                problems.append(f"node {claim.node} (pool {pool}, {where}) does not exist")
                continue
            other = pool_of(node)
            if other and other != pool and not self.overwrite:
                problems.append(
                    f"node {claim.node} is in pool {other}; pool {pool} ({where}) may take it "
                    "only with --overwrite"
                )
        if problems:
            raise PoolConflict("nothing was changed: " + "; ".join(problems))

    def write(
        self, done: Sequence[str] | None = None, suffix: str = "", dry_run: bool = False
    ) -> tuple[list[str], list[str]]:
        """Label the nodes of the pools whose record was written (`done`: the report lines of
        the run; None means all), and unlabel the nodes dropped since the previous record."""
        lines: list[str] = []
        errors: list[str] = []
        pools = self.pools
        ok = {
            pool
            for pool in pools.values()
            if done is None
            or any(
                line.startswith(f"configmap/{record_name(pool)} ") and not line.endswith(" failed")
                for line in done
            )
        }
        kept: dict[str, set[str]] = {}
        for claim in self.wanted:
            pool = self.pool_of_claim(claim)
            if pool not in ok:
                continue
            kept.setdefault(pool, set()).add(claim.node)
            node = self.live[claim.node]
            current = labels_of(node)
            changes = {k: v for k, v in claim.labels.items() if current.get(k) != v}
            if not changes:
                lines.append(f"node/{claim.node} unchanged{suffix}")
                continue
            if not dry_run:
                try:
                    extra = {k: v for k, v in changes.items() if k != c.Labels.POOL}
                    _set_pool(self.cluster, node, pool, self.overwrite, extra=extra)
                except (GpuctlError, NotFound) as exc:
                    errors.append(f"node/{claim.node}: {exc}")
                    continue
            lines.append(f"node/{claim.node} labeled{suffix}")
        for pool in sorted(ok):
            dropped = sorted(set(self.previous.get(pool, {})) - kept.get(pool, set()))
            for name in dropped:
                dropped_node = self.live.get(name)
                if dropped_node is None or pool_of(dropped_node) != pool:
                    continue  # gone, or another pool's now: not ours to unlabel
                if not dry_run:
                    try:
                        _set_pool(self.cluster, dropped_node, None, False, expected=pool)
                    except (GpuctlError, NotFound) as exc:
                        errors.append(f"node/{name}: {exc}")
                        continue
                lines.append(f"node/{name} unlabeled{suffix}")
        return lines, errors

    def sync_records(self) -> None:
        """After apply: the record lists exactly the file's nodes, even when the ConfigMap
        itself was unchanged (add/remove node edit the record, apply resets it to the file)."""
        wanted: dict[str, dict[str, str | None]] = {pool: {} for pool in self.pools.values()}
        for claim in self.wanted:
            wanted[self.pool_of_claim(claim)][claim.node] = claim.labels.get(c.Labels.GPU_TYPE)
        for pool, nodes in wanted.items():
            record = read_record(self.cluster, pool)
            have = recorded_nodes(record)
            if record is not None and have != nodes:
                _update_record(self.cluster, pool, nodes, [n for n in have if n not in nodes])

    def unlabel_all(self) -> tuple[list[str], list[str]]:
        """After delete: every node still labelled with one of these pools loses the label."""
        lines: list[str] = []
        errors: list[str] = []
        for pool in sorted(set(self.pools.values())):
            try:
                nodes = self.cluster.list("Node", label_selector=f"{c.Labels.POOL}={pool}")
            except KubeError as exc:
                errors.append(f"the nodes of pool {pool}: {exc}")
                continue
            for node in sorted(nodes, key=name_of):
                try:
                    _set_pool(self.cluster, node, None, False, expected=pool)
                except (GpuctlError, NotFound) as exc:
                    errors.append(f"node/{name_of(node)}: {exc}")
                    continue
                lines.append(f"node/{name_of(node)} unlabeled")
        return lines, errors
