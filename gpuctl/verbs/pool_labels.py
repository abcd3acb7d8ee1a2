"""Pool membership writes: `add node`, `remove node`, and the node labels of pool files in
create, apply and delete. Each node is checked before anything is written; a node that
changed since it was read is read and checked again (another pool may have claimed it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.client import Conflict, KubeError, NotFound
from gpuctl.errors import GpuctlError
from gpuctl.inventory.nodes import gpu_type, labels_of, name_of, pool_of, same_gpu_type
from gpuctl.inventory.pools import (
    PoolConflict,
    PoolNotFound,
    allowed_gpu_types,
    isolated,
    read_record,
    read_records,
    record_name,
    recorded_nodes,
    wrote_gpu_type,
)
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.verbs.common import ObjectResult, VerbResult
from gpuctl.verbs.node_labels import ATTEMPTS, patch_labels

# ------------------------------------------------------------------ add and remove


def _update_record(
    cluster: ClusterAPI, pool: str, add: dict[str, str | None], remove: Sequence[str]
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


def add_nodes(cluster: ClusterAPI, pool: str, names: Sequence[str], overwrite: bool) -> VerbResult:
    """Label the nodes `runwhere.ai/pool=POOL` and list them in the record.

    Every node is checked first (exists, not in another pool unless `overwrite`); any problem
    means nothing is written. One result a node, one error line a node that failed."""
    record = read_record(cluster, pool)
    if record is None:
        raise PoolNotFound(f"pool {pool} not found (create it first: gpuctl create -f POOL.yaml)")
    tainted = isolated(record)
    nodes, errors = _read_nodes(cluster, names)
    refused = VerbResult(errors=errors)
    allowed = allowed_gpu_types(record)
    for name, node in nodes.items():
        other = pool_of(node)
        if other and other != pool and not overwrite:
            refused.refuse(f"node/{name} is in pool {other}", f"move it to pool {pool}")
        types = [labels_of(node)[k] for k in c.GPU_TYPE_NODE_LABELS if labels_of(node).get(k)]
        if allowed and not any(same_gpu_type(t, a) for t in types for a in allowed):
            refused.fail(
                f"node/{name} has GPU type {', '.join(types) or '(none)'}, but pool {pool} "
                f"allows only {', '.join(allowed)} (compared without letter case)"
            )
    if not refused.ok:
        refused.fail(f"nothing was changed in pool {pool}")
        return refused
    result = VerbResult()
    added: dict[str, str | None] = {}
    for name, node in nodes.items():
        added[name] = gpu_type(node) or None
        previous = pool_of(node)
        if previous == pool and pool_taints(node, pool, tainted) is None:
            result.objects.append(_node(name, f"already in pool {pool}"))
            continue
        try:
            _set_pool(cluster, node, pool, overwrite, isolated=tainted)
        except GpuctlError as exc:
            result.fail(f"node/{name}: {exc}", exc if isinstance(exc, KubeError) else None)
            added.pop(name)
            continue
        result.objects.append(_node(name, _joined(previous, pool)))
    _update_record(cluster, pool, added, ())
    forget_elsewhere(cluster, pool, list(added))
    return result


def _node(name: str, outcome: str) -> ObjectResult:
    return ObjectResult("Node", name, None, outcome)


def _joined(previous: str, pool: str) -> str:
    """What became of a node that joined `pool`, saying where it came from."""
    if previous == pool:
        return f"already in pool {pool}; its taint brought up to date"
    if previous:
        return f"moved from pool {previous} to pool {pool}"
    return f"added to pool {pool}"


def pool_taints(node: dict[str, Any], pool: str | None, tainted: bool) -> list[Any] | None:
    """The node's taints once it is in `pool` (None: in no pool): every taint but a pool's,
    plus `runwhere.ai/pool=POOL:NoSchedule` when the pool isolates. None when that is what the
    node has already."""
    current = list((node.get("spec") or {}).get("taints") or [])
    wanted = [t for t in current if t.get("key") != c.POOL_TAINT_KEY]
    if pool is not None and tainted:
        wanted.append({"key": c.POOL_TAINT_KEY, "value": pool, "effect": c.POOL_TAINT_EFFECT})
    return None if wanted == current else wanted


def forget_elsewhere(cluster: ClusterAPI, pool: str, names: Sequence[str]) -> None:
    """Nodes that joined `pool` leave every other pool's record, so no view still counts them
    in the pool they left (a node is in one pool)."""
    if not names:
        return
    for other, record in read_records(cluster).items():
        listed = [name for name in names if name in recorded_nodes(record)]
        if other != pool and listed:
            _update_record(cluster, other, {}, listed)


def remove_nodes(cluster: ClusterAPI, pool: str, names: Sequence[str]) -> VerbResult:
    """Remove `runwhere.ai/pool` from nodes of this pool and drop them from the record; every
    node is checked first. One result a node, one error line a node that failed."""
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
        return VerbResult(errors=[*errors, f"nothing was changed in pool {pool}"])
    result = VerbResult()
    removed = []
    for name, node in nodes.items():
        try:
            if pool_of(node):
                _set_pool(cluster, node, None, False, expected=pool)
        except GpuctlError as exc:
            result.fail(f"node/{name}: {exc}", exc if isinstance(exc, KubeError) else None)
            continue
        removed.append(name)
        result.objects.append(_node(name, f"removed from pool {pool}"))
    _update_record(cluster, pool, {}, removed)
    return result


def _read_nodes(
    cluster: ClusterAPI, names: Sequence[str]
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
    cluster: ClusterAPI,
    node: dict[str, Any],
    pool: str | None,
    overwrite: bool,
    *,
    expected: str | None = None,
    extra: dict[str, str | None] | None = None,
    isolated: bool = True,
) -> None:
    """Write (or with None remove) the node's pool label and, in the same patch, its pool taint
    (`isolated`), so a node is never labelled without its taint or the other way round: a
    failed write leaves the node as it was. A node that changed since it was read is read
    again and checked again: another pool may have claimed it meanwhile."""
    name = name_of(node)
    labels: dict[str, str | None] = {c.Labels.POOL: pool, **(extra or {})}
    for _ in range(ATTEMPTS):
        current = pool_of(node)
        if expected is not None and current != expected:
            raise PoolConflict(f"it is now in pool {current or '(none)'}, not {expected}")
        if pool is not None and current not in ("", pool) and not overwrite:
            raise PoolConflict(f"it is now in pool {current}, which took it meanwhile")
        try:
            patch_labels(cluster, node, labels, pool_taints(node, pool, isolated))
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

    cluster: ClusterAPI
    manifests: Sequence[Manifest]
    wanted: Sequence[NodeLabels]
    overwrite: bool = False
    previous: dict[str, dict[str, str | None]] = field(default_factory=dict)
    live: dict[str, dict[str, Any]] = field(default_factory=dict)
    # pool -> the nodes on which it wrote runwhere.ai/gpu-type (from its record, then this run)
    wrote: dict[str, set[str]] = field(default_factory=dict)

    def allowed(self) -> dict[str, list[str]]:
        """pool -> the GPU models its file allows, from the records the pool files render."""
        return {pool: allowed_gpu_types(record) for pool, record in self._records().items()}

    def isolated(self) -> dict[str, bool]:
        """pool -> whether its nodes carry its taint, from the records the pool files render."""
        return {pool: isolated(record) for pool, record in self._records().items()}

    def _records(self) -> dict[str, dict[str, Any]]:
        """pool -> the record (ConfigMap) its pool file renders."""
        return {
            m.obj["metadata"]["labels"][c.Labels.POOL]: m.obj
            for m in self.manifests
            if m.kind == "ConfigMap"
            and m.namespace == c.SYSTEM_NAMESPACE
            and c.Labels.POOL in (m.obj["metadata"].get("labels") or {})
        }

    def read_wrote(self) -> None:
        """What each pool wrote before, from its record: read before the record changes."""
        for pool in set(self.pools.values()):
            self.wrote[pool] = set(wrote_gpu_type(read_record(self.cluster, pool)))

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

    def split(self, manifests: Sequence[Manifest]) -> tuple[list[Manifest], list[Manifest]]:
        """(the pool files' objects, the rest): pools are written, and their nodes labelled,
        before the workloads that select those nodes."""
        pools = self.pools
        ours = [m for m in manifests if id(m.document) in pools]
        return ours, [m for m in manifests if id(m.document) not in pools]

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
        # a node that two of the files put in two pools was refused by render
        # (engine.node_pool_problems), before the cluster was read
        for claim in self.wanted:
            pool = self.pool_of_claim(claim)
            where = f"{claim.document.source}"
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
        problems += self._gpu_type_problems()
        if problems:
            raise PoolConflict("nothing was changed: " + "; ".join(problems))
        self.read_wrote()

    def _gpu_type_problems(self) -> list[str]:
        """Nodes whose GPU model (their labels, or what the file says of them) the pool does
        not allow."""
        allowed = self.allowed()
        problems = []
        for claim in self.wanted:
            pool = self.pool_of_claim(claim)
            node = self.live.get(claim.node)
            if node is None or not allowed.get(pool):
                continue
            labels = {**labels_of(node), **claim.labels}
            types = [labels[k] for k in c.GPU_TYPE_NODE_LABELS if labels.get(k)]
            if not any(same_gpu_type(t, a) for t in types for a in allowed[pool]):
                problems.append(
                    f"node {claim.node} has GPU type {', '.join(types) or '(none)'}, but pool "
                    f"{pool} allows only {', '.join(allowed[pool])} (compared without letter case)"
                )
        return problems

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
        isolation = self.isolated()
        for claim in self.wanted:
            pool = self.pool_of_claim(claim)
            if pool not in ok:
                continue
            kept.setdefault(pool, set()).add(claim.node)
            try:
                outcome = self._write_claim(claim, isolation.get(pool, True), dry_run)
            except (GpuctlError, NotFound) as exc:
                errors.append(f"node/{claim.node}: {exc}")
                continue
            lines.append(f"node/{claim.node} {outcome}{suffix}")
        if not dry_run:
            for pool in sorted(ok):
                forget_elsewhere(self.cluster, pool, sorted(kept.get(pool, set())))
                _save_wrote(self.cluster, pool, self.wrote.get(pool, set()))
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

    def _write_claim(self, claim: NodeLabels, tainted: bool, dry_run: bool) -> str:
        """Label (and taint, when the pool isolates) one node of a pool file in one patch;
        what became of it. A node with the pool's labels but not its taint (labelled before
        pools had taints, or the pool's isolation changed) gets only the taint."""
        pool = self.pool_of_claim(claim)
        node = self.live[claim.node]
        current = labels_of(node)
        changes = {k: v for k, v in claim.labels.items() if current.get(k) != v}
        if not changes and pool_taints(node, pool, tainted) is None:
            return "unchanged"
        if not changes:
            if not dry_run:
                _set_pool(self.cluster, node, pool, False, expected=pool, isolated=tainted)
            return "tainted" if tainted else "untainted"
        extra: dict[str, str | None] = {k: v for k, v in changes.items() if k != c.Labels.POOL}
        if not dry_run:
            _set_pool(self.cluster, node, pool, self.overwrite, extra=extra, isolated=tainted)
            if c.Labels.GPU_TYPE in extra and c.Labels.GPU_TYPE not in current:
                self.wrote.setdefault(pool, set()).add(claim.node)
        previous = pool_of(node)
        return f"labeled (moved from pool {previous})" if previous not in ("", pool) else "labeled"

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
        """After delete: every node still labelled with one of these pools loses the label, and
        runwhere.ai/gpu-type where the pool wrote it (`read_wrote` first, while the record
        exists); a gpu-type label that was there before the pool stays."""
        lines: list[str] = []
        errors: list[str] = []
        for pool in sorted(set(self.pools.values())):
            try:
                nodes = self.cluster.list("Node", label_selector=f"{c.Labels.POOL}={pool}")
            except KubeError as exc:
                errors.append(f"the nodes of pool {pool}: {exc}")
                continue
            for node in sorted(nodes, key=name_of):
                wrote = name_of(node) in self.wrote.get(pool, set())
                extra: dict[str, str | None] | None = {c.Labels.GPU_TYPE: None} if wrote else None
                try:
                    _set_pool(self.cluster, node, None, False, expected=pool, extra=extra)
                except (GpuctlError, NotFound) as exc:
                    errors.append(f"node/{name_of(node)}: {exc}")
                    continue
                lines.append(f"node/{name_of(node)} unlabeled")
        return lines, errors


def _save_wrote(cluster: ClusterAPI, pool: str, wrote: set[str]) -> None:
    """Keep in the pool's record the nodes on which it wrote runwhere.ai/gpu-type."""
    record = read_record(cluster, pool)
    if record is None or set(wrote_gpu_type(record)) == wrote:
        return
    data = {c.POOL_WROTE_GPU_TYPE_KEY: json.dumps(sorted(wrote))}
    cluster.patch("ConfigMap", record_name(pool), c.SYSTEM_NAMESPACE, {"data": data})


def node_results(lines: Sequence[str], suffix: str = "") -> list[ObjectResult]:
    """`node/NAME labeled (dry run)` report lines as results."""
    results = []
    for line in lines:
        what, outcome = line.removesuffix(suffix).split(" ", 1)
        results.append(ObjectResult("Node", what.removeprefix("node/"), None, outcome))
    return results
