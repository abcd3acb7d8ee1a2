"""Checks of where the workloads could run, made before anything is written.

Feasibility (gpuctl.placement.feasibility): a workload that no node could hold even with the
cluster empty (a pool that does not exist or has no nodes, a GPU type no node of its pool
carries, a pod larger than the largest node of its pool and type, a pool cap or a namespace
quota below the request) is refused: Unschedulable, nothing written, each reason at its spec
field with the fix. `allow_pending` (`--allow-pending`, REST `allowPending=true`) accepts it
instead, with the reasons as warnings, for clusters that add nodes on demand; so is a refusal
that a new node could lift (a type, a size, a node count) where the cluster says it can add
nodes (a Karpenter NodePool, or the cluster autoscaler's status ConfigMap): the warning names
what was read. A busy cluster is no reason: the job is accepted and waits, Pending. Nor is
a cluster with no nodes at all (one being built, or scaled to zero): there is nothing to
compare with yet.

A job that would take a pool without Kueue beyond its cap, counting what runs there now, is
refused too (with Kueue it waits, Queued).

Pod Security: a job whose pods its namespace's enforced level (the label
`pod-security.kubernetes.io/enforce`, as a quota's `pod_security` sets it) forbids is refused
too, in the API server's words (gpuctl.placement.podsecurity), at the spec field at fault with
the fix. The namespace is the one this run writes (a quota among the files), else the
cluster's; one that does not exist yet enforces nothing. `allow_pending` does not accept it:
the API server refuses each of its pods, so the Job's controller fails to create them for as
long as it waits (FailedCreate), and no node joining changes that.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden, KubeError, NotFound
from gpuctl.errors import Problem
from gpuctl.inventory.nodes import active_pods, name_of
from gpuctl.inventory.pools import gpu_cap, read_record, record_name
from gpuctl.inventory.status import pod_gpu_resource
from gpuctl.placement import feasibility, podsecurity
from gpuctl.placement.affinity import one_pod_per_node, required_gpu_type
from gpuctl.placement.capacity import (
    beyond_cap,
    count_of,
    pod_devices,
    pod_share,
    pool_claimed,
)
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.spec import check
from gpuctl.verbs.errors import ApplyFailed, Unschedulable


@dataclass
class Placement:
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    infeasible: list[Problem] = field(default_factory=list)  # refused: Unschedulable
    forbidden: list[Problem] = field(default_factory=list)  # by Pod Security: Unschedulable


def _pod_spec(manifest: Manifest) -> dict[str, Any] | None:
    adapter = workloads.adapter(manifest.kind)
    return None if adapter is None else adapter.pod_spec(manifest.obj)


def check_placement(
    cluster: ClusterAPI,
    manifests: Sequence[Manifest],
    claims: Sequence[NodeLabels] = (),
    *,
    allow_pending: bool = False,
) -> Placement:
    """Warnings, errors and infeasible requests among the workloads. Nodes that pool files of
    the same run are about to label count as labelled."""
    asks = [(m, spec) for m in manifests if (spec := _pod_spec(m)) is not None]
    result = Placement()
    if not asks:
        return result
    _check_pod_security(cluster, manifests, asks, result)
    try:
        nodes = labelled_as_claimed(cluster.list("Node"), claims)
    except Forbidden:  # e.g. a user whose RBAC covers only their namespace
        result.warnings.append("placement not checked: you may not read the cluster's nodes")
        return result
    _check_caps(cluster, manifests, nodes, result)
    if not nodes:  # a cluster being built, or scaled to zero: nothing to compare with yet
        return result
    facts = feasibility.NodeFacts(nodes)
    quotas: dict[str, dict[str, str]] = {}  # each read once, however many jobs ask
    pools: dict[str, feasibility.PoolFacts | None] = {}
    growth: list[str] = []  # read once, when a refusal needs it
    for manifest, pod_spec in asks:
        request = request_of(manifest, pod_spec)
        if request.pool not in pools:
            pools[request.pool] = _pool_facts(cluster, request.pool, manifests)
        pool = pools[request.pool]
        if request.namespace not in quotas:
            quotas[request.namespace] = _quota_hard(cluster, request.namespace)
        for refusal in feasibility.refusals(request, facts, pool, quotas[request.namespace]):
            problem = manifest.document.problem(refusal.field, refusal.message, refusal.hint)
            if refusal.node_shape and not allow_pending and not growth:
                growth.append(can_add_nodes(cluster))
            if allow_pending:
                result.warnings.append(
                    f"{problem} (accepted as pending was allowed: it stays "
                    "Pending until this changes)"
                )
            elif refusal.node_shape and growth[0]:
                result.warnings.append(f"{problem} (accepted: {growth[0]})")
            else:
                result.infeasible.append(problem)
    return result


def request_of(manifest: Manifest, pod_spec: Mapping[str, Any]) -> feasibility.Request:
    """What one rendered workload asks of the nodes."""
    adapter = workloads.adapter(manifest.kind)
    assert adapter is not None
    pod = {"spec": pod_spec}
    labels = manifest.obj["metadata"].get("labels") or {}
    return feasibility.Request(
        pool=(pod_spec.get("nodeSelector") or {}).get(c.Labels.POOL) or c.DEFAULT_POOL,
        gpu_type=required_gpu_type(pod_spec),
        resource=pod_gpu_resource(pod),
        gpus=pod_devices(pod),
        share_gib=pod_share(pod),
        pods=adapter.pods(manifest.obj),
        distinct=one_pod_per_node(pod_spec),
        namespace=manifest.namespace,
        splits_into_nodes=labels.get(c.Labels.JOB_TYPE) == "training",
    )


def labelled_as_claimed(
    nodes: list[dict[str, Any]], claims: Sequence[NodeLabels]
) -> list[dict[str, Any]]:
    """Nodes as they will be labelled once the run's pool files labelled them."""
    wanted: dict[str, dict[str, str]] = {}
    for claim in claims:
        wanted.setdefault(claim.node, {}).update(claim.labels)
    result = []
    for node in nodes:
        labels = wanted.get(name_of(node))
        if labels:
            node = copy.deepcopy(node)
            node["metadata"].setdefault("labels", {}).update(labels)
        result.append(node)
    return result


def can_add_nodes(cluster: ClusterAPI) -> str:
    """What says the cluster adds nodes on demand, in words ("" when nothing does): Karpenter's
    NodePools (karpenter.sh), else the cluster autoscaler's status ConfigMap in kube-system.
    Neither says which node shapes it can add, so any shape counts as possible."""
    try:
        pools = cluster.list("NodePool", None)
    except KubeError:  # no Karpenter (NotFound), or not allowed to read them
        pools = []
    if pools:
        return f"the cluster can add nodes ({len(pools)} Karpenter NodePool(s))"
    try:
        status = cluster.find("ConfigMap", "cluster-autoscaler-status", "kube-system")
    except KubeError:
        status = None
    if status is not None:
        return "the cluster can add nodes (the cluster autoscaler's status ConfigMap)"
    return ""


def _pool_facts(
    cluster: ClusterAPI, pool: str, manifests: Sequence[Manifest]
) -> feasibility.PoolFacts | None:
    """The pool's record as this run writes it, else the cluster's; None where it cannot be
    read (no refusal is then made for it) or for the default pool."""
    if pool == c.DEFAULT_POOL:
        return None
    try:
        record = _pool_record(cluster, pool, manifests)
    except Forbidden:
        return None
    return feasibility.PoolFacts(pool, record is not None, gpu_cap(record))


def _quota_hard(cluster: ClusterAPI, namespace: str) -> dict[str, str]:
    """The smallest hard limit of each resource over the namespace's ResourceQuotas."""
    if not namespace:
        return {}
    try:
        quotas = cluster.list("ResourceQuota", namespace)
    except (Forbidden, NotFound):
        return {}
    hard: dict[str, str] = {}
    for quota in quotas:
        for key, value in ((quota.get("spec") or {}).get("hard") or {}).items():
            known = count_of(hard.get(key))
            if known is None or (count_of(value) or 0) < known:
                hard[key] = str(value)
    return hard


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


def _check_caps(
    cluster: ClusterAPI,
    manifests: Sequence[Manifest],
    nodes: Sequence[dict[str, Any]],
    result: Placement,
) -> None:
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
    by_name = {name_of(node): node for node in nodes}
    for pool, cap in sorted(caps.items()):
        claimed = pool_claimed(pods, pool, by_name, ours)
        verdicts = beyond_cap(claimed, cap, [gpus for _, gpus in asks[pool]])
        for (manifest, gpus), used in zip(asks[pool], verdicts, strict=True):
            if used is not None:
                result.errors.append(
                    f"{manifest.ref}: pool {pool}: {used} of {cap} GPUs used, this job asks "
                    f"{gpus} (cap {cap})"
                )


# Where a Pod Security check points in a job spec, and what lifts it there: the workdirs are
# the only host paths (and the only volumes restricted forbids) gpuctl's pods mount;
# `security: restricted` meets restricted's container and pod settings. gpuctl's pods never
# ask for host namespaces or privileged containers; those point at the document.
_POD_SECURITY_FIXES: Mapping[str, tuple[tuple[str, ...], str]] = {
    "hostPathVolumes": (("storage", "workdirs"), "remove storage.workdirs"),
    "restrictedVolumes": (("storage", "workdirs"), "remove storage.workdirs"),
    "allowPrivilegeEscalation": (("security",), "set security: restricted"),
    "capabilities_restricted": (("security",), "set security: restricted"),
    "runAsNonRoot": (("security",), "set security: restricted"),
    "seccompProfile_restricted": (("security",), "set security: restricted"),
}


def _check_pod_security(
    cluster: ClusterAPI,
    manifests: Sequence[Manifest],
    asks: Sequence[tuple[Manifest, dict[str, Any]]],
    result: Placement,
) -> None:
    """Each workload whose pod template its namespace's enforced Pod Security level forbids
    is refused (`result.forbidden`), once per namespace read."""
    namespaces: dict[str, Mapping[str, Any] | None] = {}
    for manifest, pod_spec in asks:
        name = manifest.namespace
        if not name:
            continue
        if name not in namespaces:
            namespaces[name] = _namespace(cluster, name, manifests, result)
        namespace = namespaces[name]
        if namespace is None:
            continue
        found = podsecurity.verdict(namespace, {"spec": pod_spec})
        if found.violations:
            result.forbidden.append(_pod_security_problem(manifest, found))


def _namespace(
    cluster: ClusterAPI, name: str, manifests: Sequence[Manifest], result: Placement
) -> Mapping[str, Any] | None:
    """The namespace as this run writes it (a quota's), else the cluster's; an empty one
    (nothing enforced) when it does not exist yet; None, with a warning, when it may not be
    read."""
    for m in manifests:
        if m.kind == "Namespace" and m.name == name:
            return m.obj
    try:
        return cluster.find("Namespace", name) or {}
    except Forbidden:
        result.warnings.append(f"Pod Security not checked: you may not read namespace {name}")
        return None


def _pod_security_problem(manifest: Manifest, found: podsecurity.Verdict) -> Problem:
    """The refusal at the spec field of its first check gpuctl's spec can lift, with each
    fix, or a laxer level from an admin."""
    fixes: list[str] = []
    at: tuple[str, ...] = ()
    for violation in found.violations:
        path, fix = _POD_SECURITY_FIXES.get(violation.check, ((), ""))
        at = at or path
        if fix and fix not in fixes:
            fixes.append(fix)
    host_paths = any(
        v.level == "baseline" or v.check == "restrictedVolumes" for v in found.violations
    )
    laxer = "privileged" if host_paths else "baseline"
    admin = f"ask an admin for a quota with pod_security: {laxer}"
    hint = f"{' and '.join(fixes)}, or {admin}" if fixes else admin
    where = f"namespace {manifest.namespace} refuses the pods of {manifest.ref}: "
    return manifest.document.problem(at, where + str(found), hint)


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
    allow_pending: bool = False,
    nothing: str = "nothing was changed",
) -> Placement:
    """`check_placement`, raising Unschedulable (a request no node could ever hold) or
    ApplyFailed (another error) before anything is written."""
    placement = check_placement(cluster, manifests, claims, allow_pending=allow_pending)
    placement.warnings += spec_warnings(manifests)
    if placement.infeasible or placement.forbidden:
        raise Unschedulable(placement.infeasible, nothing, forbidden=placement.forbidden)
    if placement.errors:
        raise ApplyFailed(f"{nothing}: " + "; ".join(placement.errors))
    return placement
