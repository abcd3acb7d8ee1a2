"""Nodes: their GPUs and who uses them, and their labels (read only; writes are in
gpuctl.verbs.node_labels).

Queries return table rows or text; label changes return kubectl-style report lines and error
lines. Nothing here prints: the CLI layer does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.cluster.api import ClusterAPI
from gpuctl.errors import GpuctlError, UsageError
from gpuctl.placement.capacity import node_total_gpus
from gpuctl.spec import accelerators, quantity

# Pods that still hold their resources: everything not finished (terminating ones included,
# as the scheduler counts them until they are gone).
ACTIVE_PODS = "status.phase!=Succeeded,status.phase!=Failed"
NONE = "<none>"


class NodeNotFound(GpuctlError):
    pass


# --------------------------------------------------------------------------- reading


def node_status(node: shapes.Obj) -> str:
    """Ready or NotReady from the Ready condition, as kubectl's STATUS column."""
    status: shapes.NodeStatus = shapes.node(node).get("status") or {}
    conditions = status.get("conditions") or []
    ready = any(x.get("type") == "Ready" and x.get("status") == "True" for x in conditions)
    words = "Ready" if ready else "NotReady"
    spec: shapes.NodeSpec = shapes.node(node).get("spec") or {}
    if spec.get("unschedulable"):
        words += ",SchedulingDisabled"
    return words


# `--status` / `?status=`: kubectl's words (Ready also matches a cordoned node, whose STATUS is
# Ready,SchedulingDisabled) and the API documents' (active, maintaining, faulty).
NODE_STATUS_FILTERS: Final = ("Ready", "NotReady", "SchedulingDisabled")
DOCUMENT_NODE_STATUS: Final = ("active", "maintaining", "faulty")


def document_status(node: shapes.Obj) -> str:
    """The API documents' words for kubectl's STATUS: Ready is active, cordoned
    (SchedulingDisabled) is maintaining, NotReady is faulty."""
    shown = node_status(node)
    if shown.startswith("NotReady"):
        return "faulty"
    return "maintaining" if "SchedulingDisabled" in shown else "active"


def status_matches(node: shapes.Obj, wanted: str) -> bool:
    """Whether the node's status is `wanted`, in either vocabulary, in any letter case."""
    word = wanted.casefold()
    if word in (w.casefold() for w in DOCUMENT_NODE_STATUS):
        return document_status(node) == word
    return word in (w.casefold() for w in node_status(node).split(","))


def same_gpu_type(one: str | None, other: str | None) -> bool:
    """GPU model names compare without letter case (`a100-80g` is `A100-80G`): the one rule
    for `--gpu-type` filters, a pool's allowed types and a job's GPU type."""
    return bool(one) and bool(other) and str(one).casefold() == str(other).casefold()


def labels_of(obj: shapes.Obj) -> dict[str, str]:
    return dict(shapes.meta(obj).get("labels") or {})


def name_of(obj: shapes.Obj) -> str:
    return str(shapes.meta(obj).get("name", ""))


def gpu_type(node: shapes.Obj) -> str:
    """The GPU model: runwhere.ai/gpu-type, else g8s.host/gpu-type, else ""."""
    labels = labels_of(node)
    return next((labels[key] for key in c.GPU_TYPE_NODE_LABELS if labels.get(key)), "")


def vendor(node: shapes.Obj) -> str:
    """The node's accelerator vendor (NVIDIA, AMD, Intel, Huawei Ascend) by the device-plugin
    resource it advertises, else its vendor's operator labels, else its GPU-type label; ""
    for a node without accelerators."""
    status: shapes.NodeStatus = shapes.node(node).get("status") or {}
    capacity = {**(status.get("capacity") or {}), **(status.get("allocatable") or {})}
    found = accelerators.vendor_of_node(capacity, labels_of(node))
    return found.title if found else ""


def pool_of(node: shapes.Obj) -> str:
    return labels_of(node).get(c.Labels.POOL, "")


def node_gpus(node: shapes.Obj) -> int:
    """The node's accelerators as placement counts them, every vendor's: allocatable, else
    capacity, else NVIDIA's GPU-count label, else 0."""
    return node_total_gpus(node)[0]


def active_pods(cluster: ClusterAPI) -> list[dict[str, Any]]:
    """Every pod that holds resources, in every namespace: one request, not one per node."""
    return cluster.list("Pod", None, field_selector=ACTIVE_PODS)


def node_name_of(pod: shapes.Obj) -> str:
    spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
    return spec.get("nodeName") or ""


def get_node(cluster: ClusterAPI, name: str) -> dict[str, Any]:
    node = cluster.find("Node", name)
    if node is None:
        raise NodeNotFound(f"node {name} not found")
    return node


def list_nodes(
    cluster: ClusterAPI,
    pool: str | None = None,
    gpu_type_filter: str | None = None,
    status_filter: str | None = None,
) -> list[dict[str, Any]]:
    """Nodes, optionally of one pool (label selector), one GPU model (either label, any
    letter case) and one status (`status_matches`)."""
    selector = f"{c.Labels.POOL}={pool}" if pool else None
    return sorted(
        (
            node
            for node in cluster.list("Node", label_selector=selector)
            if node_matches(node, gpu_type_filter, status_filter)
        ),
        key=name_of,
    )


def node_matches(node: shapes.Obj, gpu_type_filter: str | None, status_filter: str | None) -> bool:
    """The filters a label selector cannot express: a GPU model on either key, a status."""
    if gpu_type_filter and not any(
        same_gpu_type(labels_of(node).get(key), gpu_type_filter) for key in c.GPU_TYPE_NODE_LABELS
    ):
        return False
    return status_filter is None or status_matches(node, status_filter)


# -------------------------------------------------------------------------- describe


def pods_on(pods: Iterable[dict[str, Any]], node: str) -> list[dict[str, Any]]:
    found = [pod for pod in pods if node_name_of(pod) == node]
    return sorted(found, key=lambda p: (p["metadata"].get("namespace", ""), name_of(p)))


def requested(pods: Iterable[shapes.Obj], resource: str) -> Decimal:
    total = Decimal(0)
    for pod in pods:
        spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
        for container in spec.get("containers") or []:
            resources: shapes.ResourceRequirements = container.get("resources") or {}
            value = (resources.get("requests") or {}).get(resource)
            if value is None:
                continue
            try:
                total += quantity.parse(value)
            except ValueError:
                continue
    return total


def amount_text(value: Decimal, resource: str) -> str:
    """A quantity for people: cores or millicores, memory in Gi/Mi/Ki, devices as counts."""
    if value == value.to_integral_value():
        if resource == "memory":
            for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
                if value >= size and value % size == 0:
                    return f"{int(value // size)}{unit}"
        return str(int(value))
    if resource == "cpu":
        return f"{int(value * 1000)}m"
    return f"{value:f}"


# ------------------------------------------------------------- GPU labels and label keys

# GPU feature discovery (NVIDIA GPU Operator) publishes the model and memory as nvidia.com/gpu.*
_GFD_PREFIX = "nvidia.com/gpu."
_VENDOR_LABEL_KEYS = frozenset(
    key for vendor in accelerators.VENDORS for key, _ in vendor.node_labels
)
# Prefixes under which `--gpu-type PREFIX/VALUE` names a GPU model (the users' documents write
# `--gpu-type g8s.host/a100-80g`), and the one word after them that names the key instead.
_GPU_TYPE_PREFIXES = (c.USER_NODE_LABEL_PREFIX, c.LABEL_DOMAIN)
_GPU_TYPE_WORD = "gpu-type"


def gpu_labels(node: shapes.Obj) -> dict[str, str]:
    """A node's GPU labels: the two GPU-type keys, any g8s.host/ key naming a GPU, GPU
    feature discovery's nvidia.com/gpu.* labels and the other vendors' operator labels."""
    return {
        key: value
        for key, value in sorted(labels_of(node).items())
        if key in c.GPU_TYPE_NODE_LABELS
        or key in _VENDOR_LABEL_KEYS
        or key.startswith(_GFD_PREFIX)
        or (key.startswith(c.USER_NODE_LABEL_PREFIX) and "gpu" in key.lower())
    }


def gpu_label_summaries(nodes: Sequence[shapes.Obj]) -> list[dict[str, Any]]:
    """`-o yaml|json` of the same, in the words of the users' API (nodes/labels/all)."""
    return [
        {
            "nodeName": name_of(node),
            "gpuLabels": [{"key": k, "value": v} for k, v in gpu_labels(node).items()],
            "boundPools": [pool_of(node)] if pool_of(node) else [],
        }
        for node in nodes
    ]


def key_summaries(nodes: Sequence[shapes.Obj], key: str) -> list[dict[str, Any]]:
    return [
        {"nodeName": name_of(node), "labelKey": key, "labelValue": labels_of(node).get(key)}
        for node in nodes
    ]


@dataclass(frozen=True)
class GpuTypeQuery:
    """What `--gpu-type X` asks for: nodes of one GPU model (`value`), or, when X names a
    GPU-type label key, that label on every node (`key`)."""

    value: str | None = None
    key: str | None = None

    @classmethod
    def parse(cls, text: str) -> GpuTypeQuery:
        """`a100-80g`, `g8s.host/a100-80g` (a model) or `g8s.host/gpu-type` (the key)."""
        if text in c.GPU_TYPE_NODE_LABELS or text.startswith(_GFD_PREFIX):
            return cls(key=text)
        for prefix in _GPU_TYPE_PREFIXES:
            if text.startswith(prefix):
                rest = text.removeprefix(prefix)
                return cls(key=text) if rest == _GPU_TYPE_WORD else cls(value=rest)
        if "/" in text:
            raise UsageError(
                f"--gpu-type {text!r}: give a GPU model (a100-80g or g8s.host/a100-80g) "
                "or a GPU-type label key (g8s.host/gpu-type)"
            )
        return cls(value=text)
