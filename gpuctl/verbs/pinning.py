"""resources.placement at create and apply time: the job's strategy picks its node(s) among
those its pods may use, and the pod template is pinned there by required node affinity on
kubernetes.io/hostname (never nodeName: the scheduler still checks that the pods fit).

Render only records the strategy (an annotation on the workload); this step reads the cluster.

- Nodes the pods may use: those matching the pod template's nodeSelector (the pool) and its
  required node affinity (the GPU type). Free GPUs as gpuctl.placement.capacity counts them
  (pods not yet on a node that are pinned to one node count on that node).
- A workload of several pods (a multi-node training run, an inference service with replicas)
  gets one node per pod, chosen one after the other with the GPUs of the pods already placed
  taken; a template that allows one pod per node (multi-node training) gets distinct nodes.
  The template is pinned to the set of chosen nodes.
- No node fits: nothing is written, and the refusal says what the nodes offer.
- apply keeps the live object's pin when the strategy is unchanged and its nodes can still
  host the pods (its own pods' GPUs count as free): a running job is not moved on every apply.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory.nodes import active_pods
from gpuctl.inventory.status import pod_gpu_resource, pod_gpus
from gpuctl.placement.affinity import (
    may_run_on,
    one_pod_per_node,
    pin_to_nodes,
    required_gpu_type,
)
from gpuctl.placement.capacity import NodeGpus, node_gpus, pinned_claims, pinned_nodes
from gpuctl.placement.claims import fill_pinned, place_pods
from gpuctl.placement.strategies import Placement
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.verbs.common import ObjectResult, VerbResult
from gpuctl.verbs.errors import ApplyFailed
from gpuctl.verbs.preflight import labelled_as_claimed
from gpuctl.workloads import WorkloadAdapter, pod_spec_of


def _pod_count(adapter: WorkloadAdapter, obj: Mapping[str, Any]) -> int:
    """The pods the workload asks for, at least one."""
    count = (obj.get("spec") or {}).get(adapter.pods_field)
    return int(count) if isinstance(count, int) and count > 0 else 1


# --------------------------------------------------------------------------- choosing


@dataclass(frozen=True)
class Ask:
    """What one workload asks of the nodes."""

    manifest: Manifest
    strategy: str
    pods: int
    gpus: int  # per pod
    distinct: bool  # one pod per node

    @property
    def job(self) -> str:
        return str((self.manifest.obj["metadata"].get("labels") or {}).get(c.Labels.INSTANCE, ""))

    def words(self) -> str:
        pods = f"{self.pods} pods" if self.pods > 1 else "1 pod"
        each = " each" if self.pods > 1 else ""
        distinct = " on distinct nodes" if self.distinct and self.pods > 1 else ""
        return f"{pods} of {self.gpus} GPU(s){each}{distinct}"


def ask_of(manifest: Manifest) -> Ask | None:
    """The placement a rendered workload asks for (resources.placement); None for none."""
    annotations = manifest.obj["metadata"].get("annotations") or {}
    name = annotations.get(c.PLACEMENT_ANNOTATION)
    adapter = workloads.adapter(manifest.kind)
    if not name or adapter is None:
        return None
    pod_spec = adapter.pod_spec(manifest.obj)
    return Ask(
        manifest,
        str(name),
        _pod_count(adapter, manifest.obj),
        pod_gpus({"spec": pod_spec}),
        one_pod_per_node(pod_spec),
    )


# --------------------------------------------------------------------------- the step


@dataclass(frozen=True)
class Pin:
    """Where one workload was pinned, and why, in one line."""

    kind: str
    name: str
    namespace: str | None
    nodes: tuple[str, ...]
    why: str
    gpus: Mapping[str, int]  # node -> GPUs its pods take there

    def detail(self) -> str:
        where = "node" if len(self.nodes) == 1 else "nodes"
        return f"on {where} {', '.join(self.nodes)} ({self.why})"


PINNED_SELECTOR = f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE}"


def _same_job(obj: Mapping[str, Any], ask: Ask) -> bool:
    metadata = obj.get("metadata") or {}
    return bool(
        metadata.get("namespace") == (ask.manifest.namespace or None)
        and metadata.get("name") == ask.manifest.name
    )


def _owned_by(pod: Mapping[str, Any], ask: Ask) -> bool:
    metadata = pod.get("metadata") or {}
    labels = metadata.get("labels") or {}
    return bool(
        metadata.get("namespace") == (ask.manifest.namespace or None)
        and labels.get(c.Labels.INSTANCE) == ask.job
        and labels.get(c.Labels.MANAGED_BY) == c.MANAGED_BY_VALUE
    )


@dataclass
class Pinning:
    """Places every workload of a run that asks for a strategy; reads the cluster once."""

    cluster: ClusterAPI
    claims: Sequence[NodeLabels] = ()  # labels pool files of the same run put on nodes
    keep_live: bool = False  # apply and diff: keep a live object's pin that still fits
    rng: random.Random = dataclasses.field(default_factory=random.Random)

    def run(self, manifests: list[Manifest], refused: str) -> tuple[list[Manifest], list[Pin]]:
        """The manifests with each asking workload pinned, and the pins. `refused` opens the
        message when some workload fits nowhere (ApplyFailed; nothing was written)."""
        asks = [ask for m in manifests if (ask := ask_of(m)) is not None]
        if not asks:
            return manifests, []
        nodes = labelled_as_claimed(self.cluster.list("Node"), self.claims)
        pods = active_pods(self.cluster)
        pinned = [
            obj
            for kind in workloads.WORKLOAD_KINDS
            for obj in self.cluster.list(kind, None, label_selector=PINNED_SELECTOR)
            if c.PLACEMENT_ANNOTATION in ((obj.get("metadata") or {}).get("annotations") or {})
        ]
        taken: dict[str, int] = {}  # GPUs of the pods this run placed already
        pins: dict[int, Pin] = {}
        problems = []
        for ask in asks:
            others = [obj for obj in pinned if not _same_job(obj, ask)]
            claims = pinned_claims(others, pods)
            for name, gpus in taken.items():
                claims[name] = claims.get(name, 0) + gpus
            pin, problem = self._place(ask, nodes, pods, claims)
            if pin is None:
                problems.append(problem)
                continue
            pins[id(ask.manifest)] = pin
            for name, gpus in pin.gpus.items():
                taken[name] = taken.get(name, 0) + gpus
        if problems:
            raise ApplyFailed(f"{refused}: " + "; ".join(problems))
        placed = [_pinned(m, pins[id(m)]) if id(m) in pins else m for m in manifests]
        return placed, list(pins.values())

    def _place(
        self,
        ask: Ask,
        nodes: list[dict[str, Any]],
        pods: list[dict[str, Any]],
        taken: Mapping[str, int],
    ) -> tuple[Pin | None, str]:
        pod_spec = pod_spec_of(ask.manifest.obj)
        usable = [node for node in nodes if may_run_on(pod_spec, node)]
        others = [pod for pod in pods if not _owned_by(pod, ask)]
        view = node_gpus(usable, others, taken, pod_gpu_resource({"spec": pod_spec}))
        kept = self._kept(ask, view)
        if kept is not None:
            return kept, ""
        made, failed = place_pods(ask.strategy, ask.pods, ask.gpus, ask.distinct, view, self.rng)
        if failed is not None:
            return None, _refusal(ask, pod_spec, view, made, failed)
        return _pin_of(ask, made), ""

    def _kept(self, ask: Ask, view: Sequence[NodeGpus]) -> Pin | None:
        """The live object's pin, when apply may keep it."""
        if not self.keep_live:
            return None
        m = ask.manifest
        live = self.cluster.find(m.kind, m.name, m.namespace or None)
        if live is None:
            return None
        annotations = (live.get("metadata") or {}).get("annotations") or {}
        pinned = pinned_nodes(pod_spec_of(live))
        if annotations.get(c.PLACEMENT_ANNOTATION) != ask.strategy:
            return None
        gpus = fill_pinned(ask.pods, ask.gpus, ask.distinct, pinned, view)
        if gpus is None:
            return None
        why = f"kept from the live {m.kind}: {ask.strategy} placed it there and it still fits"
        return Pin(m.kind, m.name, m.namespace or None, tuple(pinned), why, gpus)


def _pin_of(ask: Ask, made: Sequence[Placement]) -> Pin:
    gpus: dict[str, int] = {}
    for placement in made:
        assert placement.chosen is not None
        gpus[placement.chosen.name] = gpus.get(placement.chosen.name, 0) + ask.gpus
    first = {p.chosen.name: p.candidates[0].reason for p in reversed(made) if p.chosen}
    reasons = [f"{name}: {first[name]}" for name in gpus]
    if len(gpus) == 1:
        reasons = [made[0].candidates[0].reason]
    why = f"{ask.strategy}: " + "; ".join(reasons)
    m = ask.manifest
    return Pin(m.kind, m.name, m.namespace or None, tuple(gpus), why, gpus)


def _refusal(
    ask: Ask,
    pod_spec: Mapping[str, Any],
    view: Sequence[NodeGpus],
    made: Sequence[Placement],
    failed: Placement,
) -> str:
    pool = (pod_spec.get("nodeSelector") or {}).get(c.Labels.POOL)
    gpu_type = required_gpu_type(pod_spec)
    where = (f"pool {pool}" if pool else "the cluster") + (
        f" with GPU type {gpu_type}" if gpu_type else ""
    )
    gpu_nodes = sorted((n for n in view if n.gpus > 0), key=lambda n: n.name)
    offers = ", ".join(_offer(n) for n in gpu_nodes) or "none"
    placed = f" after placing {len(made)} of {ask.pods} pods" if made else ""
    return (
        f"{ask.manifest.ref}: {ask.strategy} found no node for {ask.words()} in {where}: "
        f"{failed.reason}{placed}; its GPU nodes: {offers}"
    )


def _offer(node: NodeGpus) -> str:
    problem = f", {node.problem}" if node.problem else ""
    return f"{node.name} ({node.free} of {node.gpus} GPUs free{problem})"


def _pinned(manifest: Manifest, pin: Pin) -> Manifest:
    obj = copy.deepcopy(manifest.obj)
    pin_to_nodes(pod_spec_of(obj), pin.nodes)
    text = yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)
    return dataclasses.replace(manifest, obj=obj, text=text)


def describe(result: VerbResult, pins: Sequence[Pin]) -> None:
    """Say on each pinned workload's line where it goes and why."""
    by_target = {(p.kind, p.name, p.namespace): p for p in pins}
    for item in result.objects:
        pin = by_target.get((item.kind, item.name, item.namespace))
        if pin is not None:
            _set_detail(item, pin)


def _set_detail(item: ObjectResult, pin: Pin) -> None:
    item.detail = pin.detail() if not item.detail else f"{item.detail} {pin.detail()}"
