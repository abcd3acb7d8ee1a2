"""The scheduler: binds pending pods to nodes by resources, node selector and affinity, taints
and hostname anti-affinity, highest priority first; preempts lower-priority pods for a pod no
node fits (gpuctl.sandbox.controllers.preemption); reports unschedulable pods as the real
default-scheduler does."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from gpuctl.sandbox import quantity
from gpuctl.sandbox.controllers import preemption
from gpuctl.sandbox.controllers.base import (
    TERMINAL_PHASES,
    Controller,
    phase,
    pod_requests,
    set_condition,
)
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.sandbox.selectors import label_selector_from_object, matches_labels
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.taints import untolerated
from gpuctl.sandbox.timestamps import now_rfc3339


@dataclass
class NodeUsage:
    """What is already placed on each node, updated as this pass binds pods."""

    used: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    placed: dict[str, list[Obj]] = field(default_factory=dict)

    def add(self, node_name: str, pod: Obj, wanted: dict[str, Fraction]) -> None:
        used = self.used[node_name]
        for k, v in wanted.items():
            used[k] = used.get(k, Fraction(0)) + v
        self.placed[node_name].append(pod)


class Scheduler(Controller):
    name = "default-scheduler"

    def reconcile(self, now: float) -> None:
        pods = self.store.objects(self.pods.key, None)
        pending = [p for p in pods if _waits_for_scheduler(p)]
        if not pending:
            return
        nodes = sorted(
            self.store.objects(self.nodes.key, None), key=lambda n: n["metadata"]["name"]
        )
        usage = NodeUsage(
            {n["metadata"]["name"]: {} for n in nodes}, {n["metadata"]["name"]: [] for n in nodes}
        )
        for pod in pods:
            node = (pod.get("spec") or {}).get("nodeName")
            if node in usage.used and phase(pod) not in TERMINAL_PHASES:
                usage.add(node, pod, pod_requests(pod))
        pending.sort(
            key=lambda p: (
                -int((p.get("spec") or {}).get("priority", 0)),
                p["metadata"]["creationTimestamp"],
                p["metadata"]["name"],
            )
        )
        for pod in pending:
            self._schedule(pod, nodes, usage, now)

    def _schedule(self, pod: Obj, nodes: list[Obj], usage: NodeUsage, now: float) -> None:
        wanted = pod_requests(pod)
        reasons: Counter[str] = Counter()
        resource_only: set[str] = set()
        fits: list[tuple[Fraction, str]] = []
        for node in nodes:
            node_name = node["metadata"]["name"]
            why = self._unfit(pod, node, wanted, usage.used[node_name], usage.placed[node_name])
            if not why:
                fits.append((_free_share(node, usage.used[node_name]), node_name))
                continue
            for reason in why:
                reasons[reason] += 1
            if all(r.startswith("Insufficient") for r in why):
                resource_only.add(node_name)
        runtime = self.api.runtime.setdefault(pod["metadata"]["uid"], PodRuntime())
        if fits:
            self._bind(pod, self._pick(fits, wanted), wanted, usage, runtime, now)
            return
        nominated, after = self._preempt(pod, nodes, sorted(resource_only), usage)
        message = _unschedulable_message(len(nodes), reasons, len(resource_only), after)
        self._report_unschedulable(pod, runtime, message, nominated)

    def _preempt(
        self, pod: Obj, nodes: list[Obj], candidates: list[str], usage: NodeUsage
    ) -> tuple[str, str | None]:
        """Preempt lower-priority pods for `pod` (gpuctl.sandbox.controllers.preemption):
        the nominated node ("" if none) and the scheduler's words after the fit error (None:
        the usual "No preemption victims found" / "not helpful" counts)."""
        if not preemption.may_preempt(pod):
            return "", "not eligible due to preemptionPolicy=Never."
        if preemption.waits_for_victims(pod, usage.placed):
            return str(pod["status"]["nominatedNodeName"]), ""
        by_name = {n["metadata"]["name"]: n for n in nodes}
        wanted = pod_requests(pod)

        def fits(pod: Obj, node: str, kept: list[Obj]) -> bool:
            used: dict[str, Fraction] = {}
            for other in kept:
                for k, v in pod_requests(other).items():
                    used[k] = used.get(k, Fraction(0)) + v
            return not self._unfit(pod, by_name[node], wanted, used, kept)

        choice = preemption.choose(pod, candidates, usage.placed, fits)
        if choice is None:
            return "", None
        for victim in choice.victims:
            self._evict(victim, pod, choice.node)
        return choice.node, ""

    def _evict(self, victim: Obj, preemptor: Obj, node: str) -> None:
        """What the real scheduler does to a victim: DisruptionTarget, delete, event."""
        status = copy.deepcopy(victim.get("status") or {})
        status["conditions"] = [
            cond
            for cond in status.get("conditions") or []
            if cond.get("type") != preemption.DISRUPTION_TARGET
        ] + [preemption.condition(now_rfc3339())]
        marked = self.set_status(self.pods, victim, status)
        self.delete(self.pods, marked)
        self.api.emit_event(
            marked,
            "Normal",
            "Preempted",
            preemption.event_message(preemptor, node),
            "default-scheduler",
            related=preemptor,
        )

    def _pick(self, fits: list[tuple[Fraction, str]], wanted: dict[str, Fraction]) -> str:
        """The emptiest fitting node; a pod without GPUs goes where it leaves GPUs alone."""
        if not any(_is_gpu_resource(k) for k in wanted):
            fits.sort(key=lambda f: (self._has_gpu(f[1]), -f[0], f[1]))
        else:
            fits.sort(key=lambda f: (-f[0], f[1]))
        return fits[0][1]

    def _bind(
        self,
        pod: Obj,
        node_name: str,
        wanted: dict[str, Fraction],
        usage: NodeUsage,
        runtime: PodRuntime,
        now: float,
    ) -> None:
        new = copy.deepcopy(pod)
        new["spec"]["nodeName"] = node_name
        bound = self.update(self.pods, new)
        if bound is None:
            return
        status = copy.deepcopy(bound.get("status") or {})
        status["conditions"] = set_condition(
            status.get("conditions") or [], "PodScheduled", "True", probe=True
        )
        self.set_status(self.pods, bound, status)
        usage.add(node_name, bound, wanted)
        runtime.scheduled_at = now
        self.due(now + self.config.pod_start_seconds)
        ns = pod["metadata"]["namespace"]
        self.api.emit_event(
            bound,
            "Normal",
            "Scheduled",
            f"Successfully assigned {ns}/{pod['metadata']['name']} to {node_name}",
            "default-scheduler",
        )

    def _report_unschedulable(
        self, pod: Obj, runtime: PodRuntime, message: str, nominated: str = ""
    ) -> None:
        had = (pod.get("status") or {}).get("nominatedNodeName", "")
        if runtime.failed_scheduling == message and had == nominated:
            return
        runtime.failed_scheduling = message
        status = copy.deepcopy(pod.get("status") or {})
        if nominated:
            status["nominatedNodeName"] = nominated
        status["conditions"] = set_condition(
            status.get("conditions") or [],
            "PodScheduled",
            "False",
            "Unschedulable",
            message,
            probe=True,
        )
        self.set_status(self.pods, pod, status)
        self.api.emit_event(pod, "Warning", "FailedScheduling", message, "default-scheduler")

    def _has_gpu(self, node_name: str) -> bool:
        node = self.store.get(self.nodes.key, "", node_name)
        alloc = ((node or {}).get("status") or {}).get("allocatable") or {}
        return any(_is_gpu_resource(k) for k in alloc)

    def _unfit(
        self,
        pod: Obj,
        node: Obj,
        wanted: dict[str, Fraction],
        used: dict[str, Fraction],
        placed: list[Obj],
    ) -> list[str]:
        """Why the pod cannot go on the node, in the scheduler's words; empty if it fits."""
        spec = pod.get("spec") or {}
        labels = node["metadata"].get("labels") or {}
        if (node.get("spec") or {}).get("unschedulable"):
            return ["node(s) were unschedulable"]
        taint = untolerated(spec.get("tolerations") or [], node)
        if taint is not None:
            key, value = taint.get("key"), taint.get("value", "")
            return [f"node(s) had untolerated taint {{{key}: {value}}}"]
        selector = spec.get("nodeSelector") or {}
        if any(labels.get(k) != v for k, v in selector.items()) or not _node_affinity_ok(
            spec, labels
        ):
            return ["node(s) didn't match Pod's node affinity/selector"]
        if not _anti_affinity_ok(pod, placed):
            return ["node(s) didn't match pod anti-affinity rules"]
        alloc = (node.get("status") or {}).get("allocatable") or {}
        short = []
        for name, amount in sorted(wanted.items()):
            if amount == 0:
                continue
            have = quantity.parse(alloc.get(name, 0))
            if used.get(name, Fraction(0)) + amount > have:
                short.append("Too many pods" if name == "pods" else f"Insufficient {name}")
        return short


def _waits_for_scheduler(pod: Obj) -> bool:
    spec = pod.get("spec") or {}
    return (
        not spec.get("nodeName")
        and not pod["metadata"].get("deletionTimestamp")
        and phase(pod) == "Pending"
        and spec.get("schedulerName", "default-scheduler") == "default-scheduler"
    )


# Device plugins' resource domains: NVIDIA, AMD, Intel, Huawei Ascend; and GPU-share memory.
_DEVICE_DOMAINS = ("nvidia.com/", "amd.com/", "gpu.intel.com/", "huawei.com/")
_GPU_DOMAINS = (*_DEVICE_DOMAINS, "aliyun.com/")


def _is_gpu_resource(name: str) -> bool:
    return name.startswith(_GPU_DOMAINS)


def _free_share(node: Obj, used: dict[str, Fraction]) -> Fraction:
    """How empty the node stays: the free fractions of its cpu, memory and GPUs, summed."""
    alloc = (node.get("status") or {}).get("allocatable") or {}
    return Fraction(
        sum(
            (quantity.parse(alloc[k]) - used.get(k, Fraction(0)))
            / max(quantity.parse(alloc[k]), Fraction(1))
            for k in alloc
            if k in ("cpu", "memory") or k.startswith(_DEVICE_DOMAINS)
        )
    )


def _unschedulable_message(
    total: int, reasons: Counter[str], victims: int, after: str | None = None
) -> str:
    """The fit error; then the preemption's words: `after` when given ("" for none: it
    preempted), else the counts of nodes where it found no victims or would not help."""
    if total == 0:
        return "no nodes available to schedule pods"
    parts = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
    if after is not None:
        return f"0/{total} nodes are available: {parts}." + (
            f" preemption: {after}" if after else ""
        )
    preempt = []
    if victims:
        preempt.append(f"{victims} No preemption victims found for incoming pod")
    if total - victims:
        preempt.append(f"{total - victims} Preemption is not helpful for scheduling")
    return (
        f"0/{total} nodes are available: {parts}. preemption: 0/{total} nodes are "
        f"available: {', '.join(sorted(preempt))}."
    )


def _anti_affinity_ok(pod: Obj, placed: list[Obj]) -> bool:
    terms = ((pod.get("spec") or {}).get("affinity") or {}).get("podAntiAffinity", {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or []
    for term in terms:
        if term.get("topologyKey") != "kubernetes.io/hostname":
            continue
        reqs = label_selector_from_object(term.get("labelSelector"))
        namespaces = term.get("namespaces") or [pod["metadata"]["namespace"]]
        for other in placed:
            if other["metadata"]["namespace"] in namespaces and matches_labels(
                reqs, other["metadata"].get("labels")
            ):
                return False
    return True


def _node_affinity_ok(spec: Obj, labels: dict[str, str]) -> bool:
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if not required:
        return True
    terms = required.get("nodeSelectorTerms") or []
    return any(_term_ok(term, labels) for term in terms)


def _term_ok(term: Obj, labels: dict[str, str]) -> bool:
    exprs = term.get("matchExpressions") or []
    if not exprs and not term.get("matchFields"):
        return False
    return all(_expression_ok(expr, labels) for expr in exprs)


def _expression_ok(expr: Obj, labels: dict[str, str]) -> bool:
    key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
    have = labels.get(str(key))
    if op == "In":
        return have in values
    if op == "NotIn":
        return have not in values
    if op == "Exists":
        return have is not None
    if op == "DoesNotExist":
        return have is None
    if op in ("Gt", "Lt"):
        try:
            return have is not None and (
                int(have) > int(values[0]) if op == "Gt" else int(have) < int(values[0])
            )
        except ValueError:
            return False
    return True
