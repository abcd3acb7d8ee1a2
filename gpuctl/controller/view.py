"""What the controller reads of the cluster, handed to the capacity model (gpuctl.placement):
nodes, pods and GPUWorkloads in; every node's GPUs and their use (the placements the workloads
record whose pods are not made yet count as used), the largest workload waiting, and where a
list of workloads would go, one after the other (`controller plan`, and each placement of
`controller run`) out.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import NotFound
from gpuctl.controller.resource import Phase
from gpuctl.controller.workload import WORKLOAD_LABEL, Workload, label_value
from gpuctl.placement import capacity, claims, strategies


def assignments(workloads: Iterable[dict[str, Any]]) -> list[claims.Assignment]:
    """The placements the GPUWorkloads record (Scheduled on a node), keyed as their pods are
    labelled (namespace, WORKLOAD_LABEL value)."""
    found = []
    for obj in workloads:
        workload = Workload.of(obj)
        node = workload.status.get("assignedNode")
        if workload.status.get("phase") == Phase.SCHEDULED and node:
            key = (workload.namespace, label_value(workload.name))
            found.append(claims.Assignment(key, str(node), workload.gpus))
    return found


def pods_made(pods: Iterable[dict[str, Any]]) -> set[claims.Key]:
    """(namespace, WORKLOAD_LABEL value) of every workload that has a pod."""
    return {
        (pod["metadata"].get("namespace"), (pod["metadata"].get("labels") or {})[WORKLOAD_LABEL])
        for pod in pods
        if WORKLOAD_LABEL in (pod["metadata"].get("labels") or {})
    }


@dataclass(frozen=True)
class ClusterGpus:
    capacity: claims.OpenCapacity
    workloads: list[dict[str, Any]]
    largest_pending: int = 0  # GPUs of the largest workload waiting for a node, when read


def view_of(
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    workloads: list[dict[str, Any]],
    remembered: Mapping[str, int] | None = None,
) -> ClusterGpus:
    """The capacity model over what was read: the placements the workloads record whose pods
    are not made yet, and `remembered` (node -> GPUs of placements made that the read does not
    show yet), count as used."""
    promised = claims.add_claims(
        claims.unmade(assignments(workloads), pods_made(pods)), remembered or {}
    )
    # A GPUWorkload asks for NVIDIA GPUs (it names no GPU type): other vendors' nodes offer none.
    found = capacity.node_gpus(nodes, pods, promised, c.GPU_RESOURCE)
    return ClusterGpus(claims.OpenCapacity(found), workloads, largest_pending(workloads))


Objects = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


def read_cluster(
    cluster: ClusterAPI, namespace: str | None, node_selector: str | None = None
) -> ClusterGpus:
    """The capacity model over a fresh read (read_objects)."""
    return view_of(*read_objects(cluster, namespace, node_selector))


def read_objects(
    cluster: ClusterAPI, namespace: str | None, node_selector: str | None = None
) -> Objects:
    """Nodes (those matching `node_selector`, a label selector, when given), all pods, and the
    GPUWorkloads of `namespace` (none when their CRD is not installed)."""
    nodes = cluster.list("Node", label_selector=node_selector)
    pods = cluster.list("Pod", None)
    try:
        workloads = cluster.list("GPUWorkload", namespace)
    except NotFound:
        workloads = []
    return nodes, pods, workloads


def plan(
    view: ClusterGpus, workloads: Iterable[Workload], rng: random.Random
) -> list[strategies.Placement]:
    """Where `controller run` would place each workload, one after the other on `view` (each
    placement takes its GPUs, as run's do): `controller plan`, the same choice without the
    writes."""
    return [view.capacity.place(w.strategy, w.gpus, rng) for w in workloads]


def largest_pending(workloads: Iterable[dict[str, Any]]) -> int:
    return max(
        (
            Workload.of(obj).gpus
            for obj in workloads
            if (obj.get("status") or {}).get("phase") in (None, Phase.PENDING)
        ),
        default=0,
    )
