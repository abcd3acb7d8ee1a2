"""Nodes: their GPUs and who uses them, their labels, and `gpuctl label node`.

Queries return table rows or text; label changes return kubectl-style report lines and error
lines. Nothing here prints: the CLI layer does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.client import Conflict, NotFound
from gpuctl.errors import GpuctlError, UsageError
from gpuctl.inventory import status
from gpuctl.spec import quantity

# Pods that still hold their resources: everything not finished (terminating ones included,
# as the scheduler counts them until they are gone).
ACTIVE_PODS = "status.phase!=Succeeded,status.phase!=Failed"
NONE = "<none>"
ATTEMPTS = 3  # a label write raced by another writer is read and checked again

# A label name after the prefix, and a label value (Kubernetes' syntax, at most 63 characters).
_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = re.compile(rf"^{re.escape(c.USER_NODE_LABEL_PREFIX)}{_NAME}$")
_VALUE = re.compile(rf"^({_NAME})?$")


class NodeNotFound(GpuctlError):
    pass


class LabelRefused(GpuctlError):
    """A label key or value gpuctl will not write; nothing was written."""


class LabelConflict(LabelRefused):
    """The node has the key with another value, and overwriting was not asked for."""


class LabelNotFound(LabelRefused):
    """The node has no label with that key (to remove or to read)."""


# --------------------------------------------------------------------------- reading


def node_status(node: dict[str, Any]) -> str:
    """Ready or NotReady from the Ready condition, as kubectl's STATUS column."""
    conditions = (node.get("status") or {}).get("conditions") or []
    ready = any(x.get("type") == "Ready" and x.get("status") == "True" for x in conditions)
    words = "Ready" if ready else "NotReady"
    if (node.get("spec") or {}).get("unschedulable"):
        words += ",SchedulingDisabled"
    return words


def labels_of(obj: dict[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("labels") or {})


def name_of(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def gpu_type(node: dict[str, Any]) -> str:
    """The GPU model: runwhere.ai/gpu-type, else g8s.host/gpu-type, else ""."""
    labels = labels_of(node)
    return next((labels[key] for key in c.GPU_TYPE_NODE_LABELS if labels.get(key)), "")


def pool_of(node: dict[str, Any]) -> str:
    return labels_of(node).get(c.Labels.POOL, "")


def _resource(node: dict[str, Any], field: str, name: str) -> Decimal:
    value = ((node.get("status") or {}).get(field) or {}).get(name)
    try:
        return quantity.parse(value) if value is not None else Decimal(0)
    except ValueError:
        return Decimal(0)


def node_gpus(node: dict[str, Any]) -> int:
    """Whole GPUs the scheduler may hand out (allocatable nvidia.com/gpu)."""
    return int(_resource(node, "allocatable", c.GPU_RESOURCE))


def active_pods(cluster: ClusterAPI) -> list[dict[str, Any]]:
    """Every pod that holds resources, in every namespace: one request, not one per node."""
    return cluster.list("Pod", None, field_selector=ACTIVE_PODS)


def node_name_of(pod: dict[str, Any]) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def gpus_in_use(pods: Iterable[dict[str, Any]]) -> dict[str, int]:
    """node name -> GPUs requested by the pods placed on it."""
    used: dict[str, int] = {}
    for pod in pods:
        node = node_name_of(pod)
        if node:
            used[node] = used.get(node, 0) + status.pod_gpus(pod)
    return used


def gpu_cell(total: int, used: int) -> str:
    """total/used/free, e.g. 8/4/4."""
    return f"{total}/{used}/{max(total - used, 0)}"


def get_node(cluster: ClusterAPI, name: str) -> dict[str, Any]:
    node = cluster.find("Node", name)
    if node is None:
        raise NodeNotFound(f"node {name} not found")
    return node


def list_nodes(
    cluster: ClusterAPI, pool: str | None = None, gpu_type_filter: str | None = None
) -> list[dict[str, Any]]:
    """Nodes, optionally of one pool (label selector) and one GPU model (either label)."""
    selector = f"{c.Labels.POOL}={pool}" if pool else None
    nodes = cluster.list("Node", label_selector=selector)
    if gpu_type_filter:
        # A label selector cannot OR two keys: the GPU type is matched here.
        nodes = [
            node
            for node in nodes
            if any(labels_of(node).get(key) == gpu_type_filter for key in c.GPU_TYPE_NODE_LABELS)
        ]
    return sorted(nodes, key=name_of)


NODE_HEADERS = ("NAME", "STATUS", "GPU", "GPU-TYPE", "POOL", "AGE")
NODE_WIDE_HEADERS = (*NODE_HEADERS, "CPU", "MEMORY", "INTERNAL-IP", "VERSION")


def node_rows(
    nodes: Sequence[dict[str, Any]],
    used: dict[str, int],
    *,
    wide: bool = False,
    at: datetime | None = None,
) -> list[list[str]]:
    """`get nodes` rows: NAME STATUS GPU(total/used/free) GPU-TYPE POOL AGE [+ wide columns]."""
    rows = []
    for node in nodes:
        name = name_of(node)
        row = [
            name,
            node_status(node),
            gpu_cell(node_gpus(node), used.get(name, 0)),
            gpu_type(node) or NONE,
            pool_of(node) or NONE,
            table.age((node.get("metadata") or {}).get("creationTimestamp"), at),
        ]
        if wide:
            state = node.get("status") or {}
            capacity = state.get("capacity") or {}
            address = next(
                (
                    a.get("address", "")
                    for a in state.get("addresses") or []
                    if a.get("type") == "InternalIP"
                ),
                NONE,
            )
            row += [
                str(capacity.get("cpu", NONE)),
                str(capacity.get("memory", NONE)),
                address,
                str((state.get("nodeInfo") or {}).get("kubeletVersion") or NONE),
            ]
        rows.append(row)
    return rows


# -------------------------------------------------------------------------- describe


def pods_on(pods: Iterable[dict[str, Any]], node: str) -> list[dict[str, Any]]:
    found = [pod for pod in pods if node_name_of(pod) == node]
    return sorted(found, key=lambda p: (p["metadata"].get("namespace", ""), name_of(p)))


def _requests(pods: Iterable[dict[str, Any]], resource: str) -> Decimal:
    total = Decimal(0)
    for pod in pods:
        for container in (pod.get("spec") or {}).get("containers") or []:
            value = ((container.get("resources") or {}).get("requests") or {}).get(resource)
            if value is None:
                continue
            try:
                total += quantity.parse(value)
            except ValueError:
                continue
    return total


def _amount(value: Decimal, resource: str) -> str:
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


def fields(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """`Key:   value` lines aligned as kubectl describe aligns them."""
    width = max((len(key) for key, _ in pairs), default=0) + 3
    return [f"{key + ':':<{width}}{value}".rstrip() for key, value in pairs]


def indent(text: str, by: str = "  ") -> list[str]:
    return [by + line if line else line for line in text.splitlines()]


def describe_node(
    cluster: ClusterAPI, name: str, pool_names: Sequence[str] = (), at: datetime | None = None
) -> str:
    """`describe node`: status, resources and their use, GPU type, pools, labels, conditions,
    and the pods on it with their GPUs. `pool_names` are the pools whose record lists it."""
    node = get_node(cluster, name)
    pods = pods_on(
        cluster.list("Pod", None, field_selector=f"spec.nodeName={name},{ACTIVE_PODS}"), name
    )
    metadata = node.get("metadata") or {}
    stamp = metadata.get("creationTimestamp")
    # A node is in the pool its label names; the records only count for an unlabelled node.
    pools = [pool_of(node)] if pool_of(node) else sorted(set(pool_names))
    gpus = node_gpus(node)
    gpus_used = sum(status.pod_gpus(pod) for pod in pods)
    lines = fields(
        [
            ("Name", name),
            ("Status", node_status(node)),
            ("Created", f"{stamp} ({table.age(stamp, at)} ago)" if stamp else NONE),
            ("GPU type", gpu_type(node) or NONE),
            ("GPU", f"{gpus} total, {gpus_used} used, {max(gpus - gpus_used, 0)} free"),
            ("Pools", ", ".join(pools) or NONE),
        ]
    )
    capacity = (node.get("status") or {}).get("capacity") or {}
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    resources = [
        r
        for r in ("cpu", "memory", c.GPU_RESOURCE, c.GPU_SHARE_RESOURCE)
        if r in capacity or r in allocatable
    ]
    rows = [
        [
            resource,
            str(capacity.get(resource, NONE)),
            str(allocatable.get(resource, NONE)),
            _amount(_requests(pods, resource), resource),
        ]
        for resource in resources
    ]
    lines += [
        "Resources:",
        *indent(table.table(("RESOURCE", "CAPACITY", "ALLOCATABLE", "REQUESTED"), rows)),
    ]
    labels = labels_of(node)
    lines += ["Labels:", *([f"  {k}={v}" for k, v in sorted(labels.items())] or [f"  {NONE}"])]
    conditions = (node.get("status") or {}).get("conditions") or []
    condition_rows = [
        [
            str(x.get("type", "")),
            str(x.get("status", "")),
            str(x.get("reason", "")),
            str(x.get("message", "")),
        ]
        for x in conditions
    ]
    lines += ["Conditions:"]
    lines += (
        indent(table.table(("TYPE", "STATUS", "REASON", "MESSAGE"), condition_rows))
        if condition_rows
        else [f"  {NONE}"]
    )
    pod_rows = [
        [
            str(pod["metadata"].get("namespace", "")),
            name_of(pod),
            status.job_name_of(labels_of(pod)) or NONE,
            str(status.pod_gpus(pod)),
            status.pod_status(pod),
            table.age(pod["metadata"].get("creationTimestamp"), at),
        ]
        for pod in pods
    ]
    lines += [f"Pods: ({len(pods)} active)"]
    lines += (
        indent(table.table(("NAMESPACE", "NAME", "JOB", "GPU", "STATUS", "AGE"), pod_rows))
        if pod_rows
        else [f"  {NONE}"]
    )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- labels


@dataclass(frozen=True)
class LabelChange:
    """`KEY=VALUE` to set, or `KEY` (or kubectl's `KEY-`) to remove (value None)."""

    key: str
    value: str | None

    @classmethod
    def parse(cls, text: str, delete: bool) -> LabelChange:
        if "=" in text:
            if delete:
                raise UsageError(f"{text!r}: --delete takes a KEY without =VALUE")
            key, value = text.split("=", 1)
            change = cls(key, value)
        elif delete or text.endswith("-"):
            change = cls(text[:-1] if text.endswith("-") and not delete else text, None)
        else:
            raise UsageError(f"{text!r}: give KEY=VALUE to set a label, or KEY --delete")
        change.check()
        return change

    def check(self) -> None:
        """Only g8s.host/ keys: they must not collide with other people's labels."""
        if not self.key.startswith(c.USER_NODE_LABEL_PREFIX):
            raise LabelRefused(
                f"label key {self.key!r} refused: keys gpuctl writes on nodes must start with "
                f"{c.USER_NODE_LABEL_PREFIX} (so they never collide with other tools' labels), "
                f"e.g. {c.Labels.GPU_TYPE_USER}"
            )
        if not _KEY.match(self.key):
            raise LabelRefused(
                f"label key {self.key!r} refused: after {c.USER_NODE_LABEL_PREFIX} give at most "
                "63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
            )
        if self.value is not None and not _VALUE.match(self.value):
            raise LabelRefused(
                f"label value {self.value!r} refused: at most 63 letters, digits, '-', '_' or "
                "'.', starting and ending with a letter or digit"
            )


def patch_labels(
    cluster: ClusterAPI, node: dict[str, Any], labels: dict[str, str | None]
) -> dict[str, Any]:
    """A merge patch on metadata.labels (None removes a key), only if the node has not changed
    since it was read: the resourceVersion makes a concurrent writer a Conflict, not a loss."""
    patch = {
        "metadata": {
            "resourceVersion": (node.get("metadata") or {}).get("resourceVersion"),
            "labels": labels,
        }
    }
    return cluster.patch("Node", name_of(node), None, patch)


def change_label(cluster: ClusterAPI, name: str, change: LabelChange, overwrite: bool) -> str:
    """Set or remove one label on one node; the kubectl report line. Raises GpuctlError."""
    for _ in range(ATTEMPTS):
        node = cluster.find("Node", name)
        if node is None:
            raise NodeNotFound(f"node/{name} not found")
        current = labels_of(node).get(change.key)
        if change.value is None:
            if current is None:
                raise LabelNotFound(f"node/{name} has no label {change.key}")
        elif current == change.value:
            return f"node/{name} not labeled (already {change.key}={current})"
        elif current is not None and not overwrite:
            raise LabelConflict(
                f"node/{name}: {change.key} already has the value {current!r} (conflict, 409); "
                "add --overwrite to replace it"
            )
        try:
            patch_labels(cluster, node, {change.key: change.value})
        except Conflict:
            continue  # changed under us: read and check again
        return f"node/{name} {'unlabeled' if change.value is None else 'labeled'}"
    raise GpuctlError(f"node/{name} kept changing while it was being labelled; try again")


def label_nodes(
    cluster: ClusterAPI, names: Sequence[str], change: LabelChange, overwrite: bool
) -> tuple[list[str], list[str]]:
    """Each node on its own, as kubectl does: (report lines, error lines)."""
    lines, errors = [], []
    for name in names:
        try:
            lines.append(change_label(cluster, name, change, overwrite))
        except NotFound:
            errors.append(f"node/{name} not found")
        except GpuctlError as exc:
            errors.append(str(exc) if str(exc).startswith("node/") else f"node/{name}: {exc}")
    return lines, errors


def label_rows(
    cluster: ClusterAPI, names: Sequence[str], key: str
) -> tuple[list[list[str]], list[str]]:
    """`get label`: (NAME, KEY, VALUE rows, errors for missing nodes or labels)."""
    rows, errors = [], []
    for name in names:
        node = cluster.find("Node", name)
        if node is None:
            errors.append(f"node/{name} not found")
            continue
        value = labels_of(node).get(key)
        if value is None:
            errors.append(f"node/{name} has no label {key}")
            continue
        rows.append([name, key, value])
    return rows, errors
