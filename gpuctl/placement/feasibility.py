"""Could a request ever run here? The question `create`, `apply`, `validate` with a cluster,
POST /jobs and /jobs/batch ask before anything is written.

A request is infeasible when no node could hold it even with the cluster empty: its pool
does not exist or has no node; no node of its pool carries its GPU type; one pod asks for
more devices (or more shared GPU memory) than the largest node of its pool and type has; it
needs more distinct nodes than there are; or its pool's cap or its namespace's quota is below
what it asks. Nodes that are NotReady or cordoned count (they come back); busy nodes count as
empty. What is infeasible is refused (nothing written) unless the caller allows Pending, or
the cluster says it can add nodes (then a node's shape may still come: see `can_add_nodes`
in gpuctl.verbs.preflight).

Pure: the request, node objects and the pools' and quota's facts in, refusals out.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.placement.capacity import count_of, node_share_gib, node_total_gpus

DEFAULT_POOL_WORDS = "default-pool (the nodes in no pool)"


@dataclass(frozen=True)
class Request:
    """What one workload asks of the nodes, per pod and in all."""

    pool: str  # c.DEFAULT_POOL for the nodes in no pool
    gpu_type: str | None
    resource: str | None  # the accelerator resource name; None when it asks for none
    gpus: int  # whole devices per pod
    share_gib: int  # shared GPU memory per pod (gpu-share)
    pods: int
    distinct: bool  # one pod per node
    namespace: str
    splits_into_nodes: bool = False  # a training job: `node_count` spreads it over nodes

    @property
    def total_gpus(self) -> int:
        return self.gpus * self.pods


@dataclass(frozen=True)
class PoolFacts:
    """A pool's record as feasibility needs it; `exists` False for a pool with no record."""

    name: str
    exists: bool
    cap: int | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a request cannot run, at the spec field at fault, with the fix."""

    field: tuple[str, ...]
    message: str
    hint: str
    node_shape: bool = False  # a node that joins could lift it (a type, a size, a count)


@dataclass
class NodeFacts:
    """The nodes as feasibility sees them: name -> labels, and the node objects."""

    nodes: Sequence[Mapping[str, Any]]
    labels: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for node in self.nodes:
            metadata = shapes.meta(node)
            self.labels[metadata.get("name", "")] = dict(metadata.get("labels") or {})

    def in_pool(self, pool: str) -> list[Mapping[str, Any]]:
        return [n for n in self.nodes if _pool_of(self.labels[_name(n)]) == pool]

    def gpu_types(self, nodes: Sequence[Mapping[str, Any]]) -> set[str]:
        return {t for n in nodes if (t := _gpu_type(self.labels[_name(n)]))}


def _name(node: Mapping[str, Any]) -> str:
    return str(shapes.meta(node).get("name", ""))


def _pool_of(labels: Mapping[str, str]) -> str:
    return labels.get(c.Labels.POOL) or c.DEFAULT_POOL


def _gpu_type(labels: Mapping[str, str]) -> str:
    return next((labels[key] for key in c.GPU_TYPE_NODE_LABELS if labels.get(key)), "")


def where(pool: str) -> str:
    return DEFAULT_POOL_WORDS if pool == c.DEFAULT_POOL else f"pool {pool}"


def same_gpu_type(one: str | None, other: str | None) -> bool:
    """GPU type labels that differ only in letter case."""
    return bool(one and other and one.lower() == other.lower())


def refusals(
    request: Request,
    facts: NodeFacts,
    pool: PoolFacts | None,
    quota_hard: Mapping[str, str] | None = None,
) -> list[Refusal]:
    """Every reason `request` could never run on these nodes; [] when it could."""
    found = _pool_refusals(request, facts, pool)
    if found:
        return found
    nodes = facts.in_pool(request.pool)
    if request.gpu_type:
        typed = [n for n in nodes if _gpu_type(facts.labels[_name(n)]) == request.gpu_type]
        if not typed:
            return [_no_such_type(request, facts, nodes)]
        nodes = typed
    found = _size_refusals(request, nodes)
    found += _cap_refusals(request, pool)
    found += _quota_refusals(request, quota_hard or {})
    return found


def _pool_refusals(request: Request, facts: NodeFacts, pool: PoolFacts | None) -> list[Refusal]:
    if request.pool == c.DEFAULT_POOL or facts.in_pool(request.pool):
        return []
    if pool is not None and pool.exists:
        return [
            Refusal(
                ("resources", "pool"),
                f"pool {request.pool} has no nodes",
                f"add one: gpuctl add node NODE --pool {request.pool}",
                node_shape=True,
            )
        ]
    known = sorted({_pool_of(labels) for labels in facts.labels.values()} - {c.DEFAULT_POOL})
    return [
        Refusal(
            ("resources", "pool"),
            f"pool {request.pool} does not exist (pools: {', '.join(known) or 'none'}; "
            f"{c.DEFAULT_POOL} is the nodes in no pool)",
            _did_you_mean(request.pool, known)
            or f"create it: a file with kind: pool, metadata.name: {request.pool} and its "
            "nodes, then gpuctl create -f POOL.yaml",
        )
    ]


def _no_such_type(
    request: Request, facts: NodeFacts, nodes: Sequence[Mapping[str, Any]]
) -> Refusal:
    wanted = str(request.gpu_type)
    here = facts.gpu_types(nodes)
    everywhere = facts.gpu_types(facts.nodes)
    near = sorted(t for t in here if same_gpu_type(t, wanted))
    if near:
        return Refusal(
            ("resources", "gpu-type"),
            f"no node in {where(request.pool)} has GPU type {wanted!r}, but {near[0]!r} differs "
            "only in letter case",
            f"write it as the nodes have it: gpu-type: {near[0]} (labels are case-sensitive)",
        )
    elsewhere = sorted(
        {
            _pool_of(facts.labels[_name(n)])
            for n in facts.nodes
            if _gpu_type(facts.labels[_name(n)]) == wanted
        }
    )
    if elsewhere:
        return Refusal(
            ("resources", "gpu-type"),
            f"no node in {where(request.pool)} has GPU type {wanted!r} (types there: "
            f"{', '.join(sorted(here)) or 'none'})",
            f"nodes of that type are in {', '.join(where(p) for p in elsewhere)}: set "
            "resources.pool to one of them, or pick a type of this pool",
            node_shape=True,
        )
    return Refusal(
        ("resources", "gpu-type"),
        f"no node has GPU type {wanted!r} (types that exist: "
        f"{', '.join(sorted(everywhere)) or 'none'})",
        _did_you_mean(wanted, sorted(everywhere)) or "use one of the types that exist",
        node_shape=True,
    )


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    near = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not near:
        lowered = {choice.lower(): choice for choice in choices}
        near = [lowered[m] for m in difflib.get_close_matches(word.lower(), list(lowered), 1)]
    return f"did you mean {near[0]}?" if near else ""


def _size_refusals(request: Request, nodes: Sequence[Mapping[str, Any]]) -> list[Refusal]:
    if request.gpus > 0:
        return _device_refusals(request, nodes)
    if request.share_gib > 0:
        return _share_refusals(request, nodes)
    return []


def _device_refusals(request: Request, nodes: Sequence[Mapping[str, Any]]) -> list[Refusal]:
    sizes = {_name(n): node_total_gpus(n, request.resource)[0] for n in nodes}
    typed = f" with GPU type {request.gpu_type}" if request.gpu_type else ""
    kind = request.resource or "GPU"
    if not any(sizes.values()):
        return [
            Refusal(
                ("resources", "gpu"),
                f"no node in {where(request.pool)}{typed} has {kind} devices",
                "pick a pool or GPU type whose nodes have them (gpuctl get nodes)",
                node_shape=True,
            )
        ]
    largest = max(sorted(sizes), key=lambda name: sizes[name])  # the first by name of the largest
    most = sizes[largest]
    if request.gpus > most:
        return [
            Refusal(
                ("resources", "gpu"),
                f"a pod asks for {request.gpus} {kind}, more than any node in "
                f"{where(request.pool)}{typed} has: the largest, {largest}, has {most}",
                _split_hint(request, most),
                node_shape=True,
            )
        ]
    if request.distinct and request.pods > 1:
        holding = sum(1 for size in sizes.values() if size >= request.gpus)
        if holding < request.pods:
            return [
                Refusal(
                    ("resources", "node_count"),
                    f"{request.pods} pods need a node each with {request.gpus} {kind}, and "
                    f"{where(request.pool)}{typed} has {holding} such node(s)",
                    f"ask for at most {holding} nodes, or add nodes to the pool",
                    node_shape=True,
                )
            ]
    return []


def _split_hint(request: Request, most: int) -> str:
    if request.splits_into_nodes:
        nodes = math.ceil(request.total_gpus / most)
        return f"split it over nodes: node_count: {nodes} with gpu: {most}"
    return f"ask for at most gpu: {most} per pod"


def _share_refusals(request: Request, nodes: Sequence[Mapping[str, Any]]) -> list[Refusal]:
    per_gpu = {
        _name(n): node_share_gib(n) // max(node_total_gpus(n, c.GPU_RESOURCE)[0], 1) for n in nodes
    }
    best = max(per_gpu, key=lambda name: (per_gpu[name], name), default="")
    if not best or per_gpu[best] <= 0:
        return [
            Refusal(
                ("resources", "gpu-share"),
                f"no node in {where(request.pool)} offers shared GPU memory "
                f"({c.GPU_SHARE_RESOURCE})",
                "ask for whole GPUs (resources.gpu) or pick a pool with GPU-share nodes",
                node_shape=True,
            )
        ]
    if request.share_gib > per_gpu[best]:
        return [
            Refusal(
                ("resources", "gpu-share"),
                f"gpu-share asks for {request.share_gib}Gi of one GPU, and the GPUs in "
                f"{where(request.pool)} share at most {per_gpu[best]}Gi each ({best})",
                f"ask for at most gpu-share: {per_gpu[best]}Gi, or a whole GPU",
                node_shape=True,
            )
        ]
    return []


def _cap_refusals(request: Request, pool: PoolFacts | None) -> list[Refusal]:
    if pool is None or pool.cap is None or request.total_gpus <= pool.cap:
        return []
    return [
        Refusal(
            ("resources", "gpu"),
            f"the job asks for {request.total_gpus} GPUs in all, more than pool "
            f"{pool.name}'s cap of {pool.cap} (max-gpus)",
            f"ask for at most {pool.cap}, or raise the pool's max-gpus",
        )
    ]


def _quota_refusals(request: Request, hard: Mapping[str, str]) -> list[Refusal]:
    """A hard limit of the namespace's quota below what the job asks for in all."""
    asks: list[tuple[str, int, tuple[str, ...]]] = []
    if request.resource and request.gpus:
        asks.append((f"requests.{request.resource}", request.total_gpus, ("resources", "gpu")))
    if request.share_gib:
        asks.append(
            (
                f"requests.{c.GPU_SHARE_RESOURCE}",
                request.share_gib * request.pods,
                ("resources", "gpu-share"),
            )
        )
    found = []
    for key, wanted, path in asks:
        limit = count_of(hard.get(key))
        if limit is not None and wanted > limit:
            resource = key.removeprefix("requests.")
            found.append(
                Refusal(
                    path,
                    f"namespace {request.namespace}'s quota allows {limit} {resource} in all, "
                    f"and the job asks for {wanted}",
                    "ask for less, or ask an admin to raise the quota (gpuctl get quotas)",
                )
            )
    return found
