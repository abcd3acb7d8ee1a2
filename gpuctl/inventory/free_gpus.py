"""A node's GPUs and how many of them are free, as placement sees it (the controller's
strategies and `gpuctl create` with resources.placement).

Data only: live Node and Pod objects (dicts) in, one NodeGpus per node out.

A node's GPUs: its allocatable accelerators (every vendor's resource names, or only the one a
request names: gpuctl.spec.accelerators), else its capacity, else NVIDIA's GPU-count label,
else 0. Its free GPUs: those minus the GPU requests of its pods that have not finished,
minus those of unfinished pods not yet on a node whose required node affinity pins them to this
one node (`gpuctl create` and the controller both pin that way, so each sees the other's
placements waiting for the scheduler), minus GPUs promised to placements that have no pod yet.
A node takes new pods when it is Ready, not cordoned and has no NoSchedule/NoExecute taint.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_FLOOR
from typing import Any, Final

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.inventory.status import pod_gpus
from gpuctl.spec import accelerators, quantity

# NVIDIA GPU feature discovery's label for the number of GPUs on a node.
GPU_COUNT_LABEL: Final = "nvidia.com/gpu.count"
HOSTNAME_LABEL: Final = c.Labels.HOSTNAME
CHEAP_NODE_LABEL: Final = c.Labels.CHEAP_NODE
FINISHED_PHASES: Final = ("Succeeded", "Failed")
BLOCKING_TAINT_EFFECTS: Final = ("NoSchedule", "NoExecute")


@dataclass(frozen=True)
class NodeGpus:
    """One node as placement sees it."""

    name: str
    labels: Mapping[str, str]
    gpus: int  # what the node offers in all
    source: str  # where `gpus` came from: allocatable, capacity, label <key>, or none
    used: int  # requested by its unfinished pods and promised to pending placements
    problem: str = ""  # why no new pod can go there (NotReady, cordoned, tainted); "" if none
    isolated: bool = False  # it carries its pool's taint: only that pool's jobs go there

    @property
    def free(self) -> int:
        return max(self.gpus - self.used, 0)

    @property
    def cheap(self) -> bool:
        return self.labels.get(CHEAP_NODE_LABEL) == "true"


def _count(value: object) -> int | None:
    if value is None or isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        return int(quantity.parse(value).to_integral_value(rounding=ROUND_FLOOR))
    except (ValueError, ArithmeticError):
        return None


def _devices(quantities: Mapping[str, Any] | None, resource: str | None) -> int | None:
    """Whole devices of `resource` (of every vendor when None); None when none is listed."""
    if resource is not None:
        return _count((quantities or {}).get(resource))
    if not accelerators.counts_by_resource(quantities):
        return None
    return accelerators.gpu_count(quantities)


def node_total_gpus(node: Mapping[str, Any], resource: str | None = None) -> tuple[int, str]:
    """(GPUs, where the number came from): allocatable, capacity, the GPU-count label, none.
    `resource`: count only that device-plugin resource (a request's), else every vendor's."""
    status: shapes.NodeStatus = shapes.node(node).get("status") or {}
    for field_name, quantities in (
        ("allocatable", status.get("allocatable")),
        ("capacity", status.get("capacity")),
    ):
        count = _devices(quantities, resource)
        if count is not None:
            return max(count, 0), field_name
    if resource not in (None, c.GPU_RESOURCE):
        return 0, "none"
    labels = shapes.meta(node).get("labels") or {}
    count = _count(labels.get(GPU_COUNT_LABEL))
    if count is not None:
        return max(count, 0), f"label {GPU_COUNT_LABEL}"
    return 0, "none"


def node_problem(node: Mapping[str, Any]) -> str:
    """Why a new pod cannot be placed on the node; "" when it can."""
    status: shapes.NodeStatus = shapes.node(node).get("status") or {}
    conditions = status.get("conditions") or []
    if not any(x.get("type") == "Ready" and x.get("status") == "True" for x in conditions):
        return "NotReady"
    spec: shapes.NodeSpec = shapes.node(node).get("spec") or {}
    if spec.get("unschedulable"):
        return "cordoned (unschedulable)"
    for taint in spec.get("taints") or []:
        if taint.get("effect") in BLOCKING_TAINT_EFFECTS and not _own_pool_taint(node, taint):
            value = f"={taint['value']}" if taint.get("value") else ""
            return f"tainted {taint.get('key')}{value}:{taint.get('effect')}"
    return ""


def in_isolated_pool(node: Mapping[str, Any]) -> bool:
    """The node carries its own pool's taint (the pool isolates its nodes)."""
    spec: shapes.NodeSpec = shapes.node(node).get("spec") or {}
    return any(_own_pool_taint(node, taint) for taint in spec.get("taints") or [])


def _own_pool_taint(node: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """The taint of the node's own pool keeps out what is not the pool's: no problem for the
    pool's jobs, which tolerate it (and the only ones that select the node)."""
    labels = shapes.meta(node).get("labels") or {}
    return taint.get("key") == c.POOL_TAINT_KEY and taint.get("value") == labels.get(c.Labels.POOL)


def required_node_terms(pod_spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    return list(required.get("nodeSelectorTerms") or [])


def pinned_nodes(pod_spec: Mapping[str, Any]) -> list[str]:
    """The nodes a required `kubernetes.io/hostname In [...]` affinity allows; [] when the pod
    spec has none."""
    for term in required_node_terms(pod_spec):
        for expression in term.get("matchExpressions") or []:
            if expression.get("key") == HOSTNAME_LABEL and expression.get("operator") == "In":
                return [str(value) for value in expression.get("values") or []]
    return []


def gpus_requested(pods: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """node name -> GPUs of its unfinished pods: those bound to it, and those not yet bound
    whose affinity pins them to it alone."""
    used: dict[str, int] = {}
    for pod in pods:
        spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
        status: shapes.PodStatus = shapes.pod(pod).get("status") or {}
        if status.get("phase") in FINISHED_PHASES:
            continue
        node = spec.get("nodeName")
        if not node:
            pinned = pinned_nodes(spec)
            node = pinned[0] if len(pinned) == 1 else None
        if node:
            used[node] = used.get(node, 0) + pod_gpus(dict(pod))
    return used


def node_gpus(
    nodes: Iterable[Mapping[str, Any]],
    pods: Iterable[Mapping[str, Any]],
    promised: Mapping[str, int] | None = None,
    resource: str | None = None,
) -> list[NodeGpus]:
    """Every node's GPUs and their use. `promised`: node -> GPUs of placements made whose pods
    do not exist yet (they hold their GPUs as if they were running). `resource`: count only the
    devices of that resource name (what a request asks for: a node of another vendor offers
    none), else every vendor's."""
    requested = gpus_requested(pods)
    promised = promised or {}
    result = []
    for node in nodes:
        metadata = shapes.meta(node)
        name = metadata.get("name", "")
        total, source = node_total_gpus(node, resource)
        result.append(
            NodeGpus(
                name=name,
                labels=dict(metadata.get("labels") or {}),
                gpus=total,
                source=source,
                used=requested.get(name, 0) + promised.get(name, 0),
                problem=node_problem(node),
                isolated=in_isolated_pool(node),
            )
        )
    return result
