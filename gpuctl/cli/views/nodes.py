"""`get nodes` rows, `describe node` text and `get label` rows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory import status
from gpuctl.inventory.nodes import (
    ACTIVE_PODS,
    NONE,
    amount_text,
    get_node,
    gpu_labels,
    gpu_type,
    labels_of,
    name_of,
    node_gpus,
    node_status,
    pods_on,
    pool_of,
    requested,
    vendor,
)
from gpuctl.placement.capacity import free_of
from gpuctl.spec import accelerators


def gpu_cell(total: int, used: int) -> str:
    """total/used/free, e.g. 8/4/4."""
    return f"{total}/{used}/{free_of(total, used)}"


NODE_HEADERS = ("NAME", "STATUS", "GPU", "VENDOR", "GPU-TYPE", "POOL", "AGE")


NODE_WIDE_HEADERS = (*NODE_HEADERS, "CPU", "MEMORY", "INTERNAL-IP", "VERSION")


def node_rows(
    nodes: Sequence[dict[str, Any]],
    used: dict[str, int],
    *,
    wide: bool = False,
    at: datetime | None = None,
    member_of: dict[str, list[str]] | None = None,
) -> list[list[str]]:
    """`get nodes` rows: NAME STATUS GPU(total/used/free, every vendor's devices) VENDOR
    GPU-TYPE POOL AGE [+ wide columns].
    `member_of`: node -> its pools (inventory.pools.pools_of); else the pool labels."""
    rows = []
    for node in nodes:
        name = name_of(node)
        member = (member_of or {}).get(name, [pool_of(node)] if pool_of(node) else [])
        row = [
            name,
            node_status(node),
            gpu_cell(node_gpus(node), used.get(name, 0)),
            vendor(node) or NONE,
            gpu_type(node) or NONE,
            ",".join(member) or NONE,
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


def indent(text: str, by: str = "  ") -> list[str]:
    return [by + line if line else line for line in text.splitlines()]


def describe_node(
    cluster: ClusterAPI, name: str, pool_names: Sequence[str] = (), at: datetime | None = None
) -> str:
    """`describe node`: status, resources and their use, GPU type, pools, labels, conditions,
    and the pods on it with their GPUs. `pool_names`: its pools (inventory.pools.pools_of)."""
    node = get_node(cluster, name)
    pods = pods_on(
        cluster.list("Pod", None, field_selector=f"spec.nodeName={name},{ACTIVE_PODS}"), name
    )
    metadata = node.get("metadata") or {}
    stamp = metadata.get("creationTimestamp")
    pools = list(pool_names)
    gpus = node_gpus(node)
    gpus_used = sum(status.pod_gpus(pod) for pod in pods)
    lines = table.fields(
        [
            ("Name", name),
            ("Status", node_status(node)),
            ("Created", f"{stamp} ({table.age(stamp, at)} ago)" if stamp else NONE),
            ("Vendor", vendor(node) or NONE),
            ("GPU type", gpu_type(node) or NONE),
            ("GPU", f"{gpus} total, {gpus_used} used, {free_of(gpus, gpus_used)} free"),
            ("Pools", ", ".join(pools) or NONE),
        ]
    )
    capacity = (node.get("status") or {}).get("capacity") or {}
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    resources = [
        r
        for r in ("cpu", "memory", *accelerators.ALL_RESOURCES, c.GPU_SHARE_RESOURCE)
        if r in capacity or r in allocatable
    ]
    rows = [
        [
            resource,
            str(capacity.get(resource, NONE)),
            str(allocatable.get(resource, NONE)),
            amount_text(requested(pods, resource), resource),
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


GPU_LABEL_HEADERS = ("NAME", "GPU-LABELS", "POOL")


def gpu_label_rows(nodes: Sequence[dict[str, Any]]) -> list[list[str]]:
    """`get gpu-type --all` rows: NAME, GPU-LABELS (key=value,…), POOL."""
    return [
        [
            name_of(node),
            ",".join(f"{k}={v}" for k, v in gpu_labels(node).items()) or NONE,
            pool_of(node) or NONE,
        ]
        for node in nodes
    ]


KEY_HEADERS = ("NAME", "KEY", "VALUE")


def key_rows(nodes: Sequence[dict[str, Any]], key: str) -> list[list[str]]:
    """`get nodes --label KEY` rows: every node with that label's value (<none> without it)."""
    return [[name_of(node), key, labels_of(node).get(key, NONE)] for node in nodes]
