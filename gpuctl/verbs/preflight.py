"""Checks of where the workloads could run, made before anything is written.

A pool with no nodes, or a GPU type that no node carries, is a warning: nodes may still join
(a cluster autoscaler, `gpuctl add node`), so the job is created and waits, Pending. So is a pod
asking for more GPUs than any node of its pool (and GPU type) has in all, naming the largest
node; `scale notebook` refuses that instead (`oversize_is_error`). A GPU type
that differs from a node's label only in letter case is an error: label values are
case-sensitive, so the job could never be placed, and the fix is in the spec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden
from gpuctl.inventory.free_gpus import node_total_gpus
from gpuctl.inventory.nodes import active_pods, same_gpu_type
from gpuctl.inventory.pools import claimed_gpus, gpu_cap, read_record, record_name
from gpuctl.inventory.status import pod_gpus
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.spec import check
from gpuctl.verbs.errors import ApplyFailed


@dataclass
class Placement:
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _pod_spec(manifest: Manifest) -> dict[str, Any] | None:
    adapter = workloads.adapter(manifest.kind)
    return None if adapter is None else adapter.pod_spec(manifest.obj)


def wanted_gpu_type(pod_spec: Mapping[str, Any]) -> str | None:
    """The GPU type the pod template requires (its node affinity on a GPU-type label)."""
    affinity = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    for term in affinity.get("nodeSelectorTerms") or []:
        for expression in term.get("matchExpressions") or []:
            if expression.get("key") in c.GPU_TYPE_NODE_LABELS and expression.get("values"):
                return str(expression["values"][0])
    return None


def check_placement(
    cluster: ClusterAPI,
    manifests: Sequence[Manifest],
    claims: Sequence[NodeLabels] = (),
    *,
    oversize_is_error: bool = False,
) -> Placement:
    """Warnings and errors about the pools and GPU types the workloads ask for. Nodes that
    pool files of the same run are about to label count as labelled."""
    asks = [(m, spec) for m in manifests if (spec := _pod_spec(m)) is not None]
    result = Placement()
    if not asks:
        return result
    _check_caps(cluster, manifests, result)
    try:
        listed = cluster.list("Node")
    except Forbidden:  # e.g. a user whose RBAC covers only their namespace
        result.warnings.append("placement not checked: you may not read the cluster's nodes")
        return result
    nodes: dict[str, dict[str, str]] = {
        node["metadata"]["name"]: dict(node["metadata"].get("labels") or {}) for node in listed
    }
    totals = {node["metadata"]["name"]: node_total_gpus(node)[0] for node in listed}
    for claim in claims:
        nodes.setdefault(claim.node, {}).update(claim.labels)
    for manifest, pod_spec in asks:
        pool = (pod_spec.get("nodeSelector") or {}).get(c.Labels.POOL)
        # a job without a pool runs on the nodes in no pool (default-pool)
        candidates = {
            name: labels
            for name, labels in nodes.items()
            if labels.get(c.Labels.POOL) == pool or (pool is None and not labels.get(c.Labels.POOL))
        }
        if pool is not None and not candidates:
            result.warnings.append(_empty_pool(cluster, manifest, pool, manifests))
            continue
        _check_gpu_type(manifest, wanted_gpu_type(pod_spec), pool, candidates, result)
        problem = _oversize(manifest, pod_spec, pool, candidates, totals)
        if problem:
            (result.errors if oversize_is_error else result.warnings).append(problem)
    return result


def _pool_record(
    cluster: ClusterAPI, pool: str, manifests: Sequence[Manifest]
) -> dict[str, Any] | None:
    """The pool's record as this run writes it (a pool file among the manifests), else the
    cluster's."""
    for m in manifests:
        if (
            m.kind == "ConfigMap"
            and m.namespace == c.SYSTEM_NAMESPACE
            and m.name == record_name(pool)
        ):
            return m.obj
    return read_record(cluster, pool)


def _check_caps(cluster: ClusterAPI, manifests: Sequence[Manifest], result: Placement) -> None:
    """A job that would take its pool beyond its GPU cap (max-gpus) is an error: the GPUs of
    the unfinished pods of the pool's jobs, plus what this run's jobs ask (a job applied again
    counts once: its own pods are left out), may not exceed the cap. A job in a Kueue queue is
    not refused: Kueue holds it Queued until the pool's ClusterQueue has room."""
    asks: dict[str, list[tuple[Manifest, int]]] = {}
    for m in manifests:
        adapter, pod_spec = workloads.adapter(m.kind), _pod_spec(m)
        pool = ((pod_spec or {}).get("nodeSelector") or {}).get(c.Labels.POOL)
        queued = c.KUEUE_QUEUE_LABEL in (m.obj["metadata"].get("labels") or {})
        if adapter is not None and pool and not queued and adapter.gpus(m.obj) > 0:
            asks.setdefault(pool, []).append((m, adapter.gpus(m.obj)))
    try:
        limits = {pool: gpu_cap(_pool_record(cluster, pool, manifests)) for pool in asks}
        caps = {pool: cap for pool, cap in limits.items() if cap is not None}
        pods = active_pods(cluster) if caps else []
    except Forbidden:
        result.warnings.append("pool GPU caps not checked: you may not read the pools or pods")
        return
    ours = {(m.namespace or "", m.name) for m in manifests if _pod_spec(m) is not None}
    for pool, cap in sorted(caps.items()):
        used = claimed_gpus(pods, pool, ours)
        for manifest, gpus in asks[pool]:
            if used + gpus > cap:
                result.errors.append(
                    f"{manifest.ref}: pool {pool}: {used} of {cap} GPUs used, this job asks "
                    f"{gpus} (cap {cap})"
                )
            else:
                used += gpus


def _oversize(
    manifest: Manifest,
    pod_spec: Mapping[str, Any],
    pool: str | None,
    candidates: dict[str, dict[str, str]],
    totals: dict[str, int],
) -> str:
    """Why no node of the pool (and GPU type) could ever hold one pod's GPUs; "" when one can
    or when there is no such node to compare with (the other checks speak of that)."""
    wanted, gpu_type = pod_gpus({"spec": pod_spec}), wanted_gpu_type(pod_spec)
    if wanted <= 0:
        return ""
    fitting = [
        name
        for name, labels in candidates.items()
        if gpu_type is None
        or any(same_gpu_type(labels.get(key), gpu_type) for key in c.GPU_TYPE_NODE_LABELS)
    ]
    if not fitting:
        return ""
    largest = max(fitting, key=lambda name: (totals.get(name, 0), name))
    if totals.get(largest, 0) >= wanted:
        return ""
    where = f"in pool {pool}" if pool else "in default-pool (the nodes in no pool)"
    typed = f" with GPU type {gpu_type}" if gpu_type else ""
    return (
        f"{manifest.ref}: a pod asks for {wanted} GPUs, more than any node {where}{typed} has: "
        f"the largest, {largest}, has {totals.get(largest, 0)}"
    )


def _empty_pool(
    cluster: ClusterAPI, manifest: Manifest, pool: str, manifests: Sequence[Manifest]
) -> str:
    """The warning for a pool without nodes, with the command that fixes it: `add node` for a
    pool that exists (or that a pool file of this run creates), else creating the pool."""
    made_here = any(
        m.kind == "ConfigMap" and m.namespace == c.SYSTEM_NAMESPACE and m.name == record_name(pool)
        for m in manifests
    )
    try:
        exists: bool | None = made_here or read_record(cluster, pool) is not None
    except Forbidden:  # who may not read the pool records cannot tell
        exists = None
    if exists:
        return (
            f"{manifest.ref}: pool {pool} has no nodes, so it will stay Pending until nodes "
            f"join the pool (gpuctl add node NODE --pool {pool})"
        )
    create = (
        f"create it with its nodes first: a file with kind: pool, metadata.name: {pool} and "
        f"nodes: {{NODE: {{}}}}, then gpuctl create -f POOL.yaml"
    )
    if exists is None:
        return (
            f"{manifest.ref}: pool {pool} has no nodes, so it will stay Pending until nodes "
            f"join it (if the pool does not exist, {create}; else gpuctl add node NODE --pool "
            f"{pool})"
        )
    return (
        f"{manifest.ref}: pool {pool} does not exist, so it will stay Pending until the pool "
        f"has nodes: {create}"
    )


def _check_gpu_type(
    manifest: Manifest,
    wanted: str | None,
    pool: str | None,
    candidates: dict[str, dict[str, str]],
    result: Placement,
) -> None:
    if wanted is None:
        return
    types = {
        labels[key]
        for labels in candidates.values()
        for key in c.GPU_TYPE_NODE_LABELS
        if key in labels
    }
    if wanted in types:
        return
    where = f"in pool {pool}" if pool else "in default-pool (the nodes in no pool)"
    near = sorted(t for t in types if same_gpu_type(t, wanted))
    if near:
        result.errors.append(
            f"{manifest.ref}: no node {where} has GPU type {wanted!r}, but {near[0]!r} differs "
            "only in letter case (labels are case-sensitive: write it as the nodes have it)"
        )
        return
    have = ", ".join(sorted(types)) or "none"
    result.warnings.append(
        f"{manifest.ref}: no node {where} has GPU type {wanted!r} (types there: {have}), so "
        "it will stay Pending until such a node joins"
    )


def spec_warnings(manifests: Sequence[Manifest]) -> list[str]:
    """The warnings of each job spec among the manifests, once per spec (gpuctl.spec.check.
    spec_warnings): an image or command that targets another vendor than the GPU type's, a
    workdir on a sensitive host path."""
    seen: set[int] = set()
    warnings = []
    for manifest in manifests:
        if _pod_spec(manifest) is None or id(manifest.document) in seen:
            continue
        seen.add(id(manifest.document))
        warnings += [str(problem) for problem in check.spec_warnings(manifest.document)]
    return warnings


def placement_or_refuse(
    cluster: ClusterAPI,
    manifests: Sequence[Manifest],
    claims: Sequence[NodeLabels] = (),
    *,
    oversize_is_error: bool = False,
) -> Placement:
    """`check_placement`, raising ApplyFailed (nothing written) when it found an error."""
    placement = check_placement(cluster, manifests, claims, oversize_is_error=oversize_is_error)
    placement.warnings += spec_warnings(manifests)
    if placement.errors:
        raise ApplyFailed("nothing was changed: " + "; ".join(placement.errors))
    return placement
