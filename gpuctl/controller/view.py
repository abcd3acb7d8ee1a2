"""What the controller reads of the cluster: every node's GPUs and their use (pods, and the
GPUs promised to placed workloads whose pod is not made yet), the largest workload waiting, and
where a list of workloads would go, one after the other (`controller plan`, and each placement
of `controller run`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import NotFound
from gpuctl.controller.resource import Phase
from gpuctl.controller.workload import WORKLOAD_LABEL, Workload, label_value
from gpuctl.placement import strategies


def promised_gpus(
    workloads: Iterable[dict[str, Any]], pods: Iterable[dict[str, Any]]
) -> dict[str, int]:
    """node -> GPUs of Scheduled workloads that have no pod yet (their Job's pod is still to
    be made: the GPUs are taken all the same). A pod that exists counts where the placement
    rules count every pod: on its node, or, not yet bound, on the node it is pinned to; once
    finished (the workload stays Scheduled), nowhere."""
    made = {
        (pod["metadata"].get("namespace"), (pod["metadata"].get("labels") or {})[WORKLOAD_LABEL])
        for pod in pods
        if WORKLOAD_LABEL in (pod["metadata"].get("labels") or {})
    }
    promised: dict[str, int] = {}
    for obj in workloads:
        workload = Workload.of(obj)
        node = workload.status.get("assignedNode")
        if workload.status.get("phase") != Phase.SCHEDULED or not node:
            continue
        if (workload.namespace, label_value(workload.name)) not in made:
            promised[node] = promised.get(node, 0) + workload.gpus
    return promised


@dataclass(frozen=True)
class ClusterGpus:
    nodes: list[strategies.NodeGpus]
    workloads: list[dict[str, Any]]
    largest_pending: int = 0  # GPUs of the largest workload waiting for a node, when read

    def take(self, node: str, gpus: int) -> None:
        """Count a placement just made on `node` as using `gpus` GPUs."""
        for index, entry in enumerate(self.nodes):
            if entry.name == node:
                self.nodes[index] = dataclasses.replace(entry, used=entry.used + gpus)


def view_of(
    nodes: list[dict[str, Any]], pods: list[dict[str, Any]], workloads: list[dict[str, Any]]
) -> ClusterGpus:
    # A GPUWorkload asks for NVIDIA GPUs (it names no GPU type): other vendors' nodes offer none.
    found = strategies.node_gpus(nodes, pods, promised_gpus(workloads, pods), c.GPU_RESOURCE)
    return ClusterGpus(
        found,
        workloads,
        largest_pending(workloads),
    )


def read_cluster(
    cluster: ClusterAPI, namespace: str | None, node_selector: str | None = None
) -> ClusterGpus:
    """Every node's GPUs and their use: nodes (those matching `node_selector`, a label
    selector, when given), all pods (finished ones free nothing), and the GPUWorkloads of
    `namespace` (none when their CRD is not installed)."""
    nodes = cluster.list("Node", label_selector=node_selector)
    pods = cluster.list("Pod", None)
    try:
        workloads = cluster.list("GPUWorkload", namespace)
    except NotFound:
        workloads = []
    return view_of(nodes, pods, workloads)


def plan(
    view: ClusterGpus, workloads: Iterable[Workload], rng: random.Random
) -> list[strategies.Placement]:
    """Where `controller run` would place each workload, one after the other on `view` (each
    placement takes its GPUs, as run's do): `controller plan`, the same choice without the
    writes."""
    placements = []
    for workload in workloads:
        placement = strategies.place_open(workload.strategy, view.nodes, workload.gpus, rng)
        if placement.chosen is not None:
            view.take(placement.chosen.name, workload.gpus)
        placements.append(placement)
    return placements


def largest_pending(workloads: Iterable[dict[str, Any]]) -> int:
    return max(
        (
            Workload.of(obj).gpus
            for obj in workloads
            if (obj.get("status") or {}).get("phase") in (None, Phase.PENDING)
        ),
        default=0,
    )
