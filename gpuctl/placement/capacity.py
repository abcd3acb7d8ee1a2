"""The capacity model: what each node offers, what is claimed on it, and what a pool holds.
Every reader and writer that asks "what is free", "what is used" or "where does a pod fit"
asks here: create/apply pinning and feasibility, the controller's plan and run, `get nodes`,
`get/describe pools`, GET /pools and /nodes, and the console (through the REST API).

Data only: live Node and Pod objects (dicts) in, numbers out; no cluster calls.

- A node's devices: its allocatable accelerators (every vendor's resource names, or only the
  one a request names: gpuctl.spec.accelerators), else its capacity, else NVIDIA's GPU-count
  label, else 0. Its shared GPU memory: allocatable (else capacity) of the GPU-share device
  plugin's resource (constants.GPU_SHARE_RESOURCE, in GiB), spread evenly over its NVIDIA GPUs.
- A pod claims its whole devices, and its GiB of shared memory, on the node it is bound to;
  not yet bound, on the node its required node affinity pins it to alone (`gpuctl create`
  and the controller both pin that way, so each sees the other's placements waiting for the
  scheduler). Finished pods claim nothing. Placements made whose pods do not exist yet are
  claims too (`promised`).
- Shares take whole GPUs away from whole-GPU placement: the shared memory claimed on a node
  occupies as many of its GPUs as it needs when packed (ceil(claimed GiB / GiB per GPU)), so
  a node with one 20Gi share of an 80Gi GPU has one GPU fewer for whole-GPU jobs.
- A node takes new pods when it is Ready, not cordoned and has no NoSchedule/NoExecute taint
  (its own pool's taint aside: its pool's jobs tolerate it).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_FLOOR
from typing import Any, Final

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.spec import accelerators, quantity
from gpuctl.workloads import adapter_of
from gpuctl.workloads.adapter import container_gpus, container_share

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
    share_gib: int = 0  # shared GPU memory it offers in all (GiB)
    share_used_gib: int = 0  # shared GPU memory claimed on it (GiB)

    @property
    def free(self) -> int:
        return free_of(self.gpus, self.used)

    @property
    def cheap(self) -> bool:
        return self.labels.get(CHEAP_NODE_LABEL) == "true"

    @property
    def pool(self) -> str:
        """The node's pool; "" for the default pool (the nodes in no pool)."""
        return self.labels.get(c.Labels.POOL, "")

    @property
    def share_free_gib(self) -> int:
        return max(self.share_gib - self.share_used_gib, 0)


def free_of(total: int, used: int) -> int:
    """Free devices of `total` with `used` claimed: never below 0 (claims beyond a node's
    devices, such as pods bound before it shrank, leave nothing free)."""
    return max(total - used, 0)


def count_of(value: object) -> int | None:
    """A whole number of devices from a quantity (floored); None when absent or unreadable."""
    if value is None or isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        return int(quantity.parse(value).to_integral_value(rounding=ROUND_FLOOR))
    except (ValueError, ArithmeticError):
        return None


def _devices(quantities: Mapping[str, Any] | None, resource: str | None) -> int | None:
    """Whole devices of `resource` (of every vendor when None); None when none is listed."""
    if resource is not None:
        return count_of((quantities or {}).get(resource))
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
    count = count_of(labels.get(GPU_COUNT_LABEL))
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


def pod_devices(pod: Mapping[str, Any]) -> int:
    """Whole accelerators (every vendor's) the pod's containers ask for."""
    spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
    return sum(container_gpus(container) for container in spec.get("containers") or [])


def pod_share(pod: Mapping[str, Any]) -> int:
    """GiB of shared GPU memory the pod's containers ask for (gpu-share); 0 for none."""
    spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
    return sum(container_share(container) for container in spec.get("containers") or [])


def claimed_node(pod: Mapping[str, Any], *, bound_only: bool = False) -> str:
    """The node an unfinished pod claims resources on: the one it is bound to, else (unless
    `bound_only`) the one node its affinity pins it to; "" for none."""
    spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
    status: shapes.PodStatus = shapes.pod(pod).get("status") or {}
    if status.get("phase") in FINISHED_PHASES:
        return ""
    node = spec.get("nodeName") or ""
    if not node and not bound_only:
        pinned = pinned_nodes(spec)
        node = pinned[0] if len(pinned) == 1 else ""
    return node


@dataclass
class Claims:
    """What pods claim on one node: whole devices and GiB of shared memory."""

    devices: int = 0
    share_gib: int = 0


def claims_by_node(
    pods: Iterable[Mapping[str, Any]], *, bound_only: bool = False
) -> dict[str, Claims]:
    """node name -> what its unfinished pods claim there (see `claimed_node`)."""
    claims: dict[str, Claims] = {}
    for pod in pods:
        node = claimed_node(pod, bound_only=bound_only)
        if node:
            entry = claims.setdefault(node, Claims())
            entry.devices += pod_devices(pod)
            entry.share_gib += pod_share(pod)
    return claims


def node_share_gib(node: Mapping[str, Any]) -> int:
    """GiB of shared GPU memory the node offers (allocatable, else capacity); 0 for none."""
    status: shapes.NodeStatus = shapes.node(node).get("status") or {}
    for quantities in (status.get("allocatable"), status.get("capacity")):
        count = count_of((quantities or {}).get(c.GPU_SHARE_RESOURCE))
        if count is not None:
            return max(count, 0)
    return 0


def shared_devices(gpus: int, share_gib: int, share_used_gib: int) -> int:
    """Whole GPUs that `share_used_gib` of shared memory occupies on a node of `gpus` GPUs
    sharing `share_gib` GiB: as few as hold it (ceil), at most all of them; one when the
    node does not say how its memory is spread."""
    if share_used_gib <= 0 or gpus <= 0:
        return 0
    if share_gib <= 0:
        return 1
    return min(gpus, math.ceil(share_used_gib * gpus / share_gib))


def node_usage(
    nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]
) -> dict[str, int]:
    """node name -> GPUs in use by the pods bound to it, the GPUs its shares occupy included:
    what `get nodes`, `get pools` and GET /nodes and /pools show as used."""
    claims = claims_by_node(pods, bound_only=True)
    used: dict[str, int] = {}
    for node in nodes:
        name = shapes.meta(node).get("name", "")
        claim = claims.get(name)
        if claim is not None:
            nvidia, _ = node_total_gpus(node, c.GPU_RESOURCE)
            occupied = shared_devices(nvidia, node_share_gib(node), claim.share_gib)
            used[name] = claim.devices + occupied
    return used


def pool_claimed(
    pods: Iterable[Mapping[str, Any]],
    pool: str,
    nodes: Mapping[str, Mapping[str, Any]],
    leave_out: Collection[tuple[str, str]] = (),
) -> int:
    """The GPUs the unfinished pods of the pool's jobs claim (bound or not: what counts
    against its cap, max-gpus): their whole devices, and the GPUs their shares occupy on each
    node (one per share not yet on a node). The pods of the (namespace, job) pairs in
    `leave_out` are left out."""
    ours = []
    for pod in pods:
        metadata = shapes.meta(pod)
        labels = metadata.get("labels") or {}
        job = (metadata.get("namespace", ""), labels.get(c.Labels.INSTANCE, ""))
        if labels.get(c.Labels.POOL) == pool and job not in leave_out:
            ours.append(pod)
    total = sum(pod_devices(pod) for pod in ours)
    for name, claim in claims_by_node(ours).items():
        node = nodes.get(name)
        nvidia = node_total_gpus(node, c.GPU_RESOURCE)[0] if node else 1
        total += shared_devices(nvidia, node_share_gib(node) if node else 0, claim.share_gib)
    unplaced = [pod for pod in ours if not claimed_node(pod) and pod_share(pod) > 0]
    return total + len(unplaced)


def beyond_cap(used: int, cap: int, asks: Iterable[int]) -> list[int | None]:
    """For each ask of GPUs in a pool, in order: the GPUs claimed before it when it would
    take the pool beyond its cap (it is refused, and claims nothing), else None (it fits,
    and counts against the cap for the asks after it)."""
    verdicts: list[int | None] = []
    for gpus in asks:
        if used + gpus > cap:
            verdicts.append(used)
        else:
            verdicts.append(None)
            used += gpus
    return verdicts


def pinned_claims(
    workloads: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]
) -> dict[str, int]:
    """node -> GPUs of the pods that workloads pinned to nodes (create and apply with
    resources.placement) have still to make: a placement made is a claim before its pods
    exist, so two creates in a row never both take a node's last GPUs. Each unfinished
    workload's missing pods go on its pinned nodes that hold none of its pods yet, in order."""
    made: dict[tuple[str, str], list[str]] = {}
    for pod in pods:
        metadata = shapes.meta(pod)
        node = claimed_node(pod)
        instance = (metadata.get("labels") or {}).get(c.Labels.INSTANCE)
        if instance and node:
            made.setdefault((metadata.get("namespace", ""), instance), []).append(node)
    claims: dict[str, int] = {}
    for obj in workloads:
        adapter = adapter_of(obj)
        if adapter is None or adapter.finished(obj):
            continue
        nodes = pinned_nodes(adapter.pod_spec(obj))
        metadata = shapes.meta(obj)
        existing = made.get((metadata.get("namespace", ""), metadata.get("name", "")), [])
        missing = adapter.pods(obj) - len(existing)
        per_pod = adapter.gpus_per_pod(obj)
        free_nodes = [n for n in nodes if n not in existing] or nodes
        for index in range(missing if per_pod and nodes else 0):
            node = free_nodes[index % len(free_nodes)]
            claims[node] = claims.get(node, 0) + per_pod
    return claims


def node_gpus(
    nodes: Iterable[Mapping[str, Any]],
    pods: Iterable[Mapping[str, Any]],
    promised: Mapping[str, int] | None = None,
    resource: str | None = None,
) -> list[NodeGpus]:
    """Every node's GPUs and their use. `promised`: node -> GPUs of placements made whose pods
    do not exist yet (they hold their GPUs as if they were running). `resource`: count only the
    devices of that resource name (what a request asks for: a node of another vendor offers
    none), else every vendor's. GPUs that shares occupy count as used."""
    claims = claims_by_node(pods)
    promised = promised or {}
    result = []
    for node in nodes:
        metadata = shapes.meta(node)
        name = metadata.get("name", "")
        total, source = node_total_gpus(node, resource)
        claim = claims.get(name) or Claims()
        share_gib = node_share_gib(node)
        occupied = 0
        if resource in (None, c.GPU_RESOURCE):
            nvidia = total if resource else node_total_gpus(node, c.GPU_RESOURCE)[0]
            occupied = shared_devices(nvidia, share_gib, claim.share_gib)
        result.append(
            NodeGpus(
                name=name,
                labels=dict(metadata.get("labels") or {}),
                gpus=total,
                source=source,
                used=claim.devices + occupied + promised.get(name, 0),
                problem=node_problem(node),
                isolated=in_isolated_pool(node),
                share_gib=share_gib,
                share_used_gib=claim.share_gib,
            )
        )
    return result
