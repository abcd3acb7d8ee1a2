"""Preemption, as kube-scheduler's DefaultPreemption plugin does it, for a pod no node fits.

- Only a pod whose preemptionPolicy is not `Never` preempts, and only pods of lower priority
  are victims. A pod that already has a nominated node where lower-priority pods are still
  terminating waits for them (it does not preempt again).
- Candidate nodes are those where the pod failed for resources alone. On each, every lower
  priority pod is removed, the pod must then fit, and victims are given back (highest
  priority first, then oldest) as long as it still fits.
- The node chosen has the lowest highest-victim priority, then the smallest sum of victim
  priorities, then the fewest victims, then the first name.
- Each victim gets the condition DisruptionTarget (reason PreemptionByScheduler) and is
  deleted, with the event `Preempted` "Preempted by pod <uid> on node <node>" about it, the
  preemptor as its related object; the preemptor's status.nominatedNodeName is the node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpuctl.sandbox.store import Obj

SCHEDULER = "default-scheduler"
DISRUPTION_TARGET = "DisruptionTarget"
REASON = "PreemptionByScheduler"

Fits = Callable[[Obj, str, list[Obj]], bool]  # pod, node name, pods left on it -> fits?


@dataclass(frozen=True)
class Choice:
    node: str
    victims: list[Obj]


def priority(pod: Obj) -> int:
    return int((pod.get("spec") or {}).get("priority") or 0)


def may_preempt(pod: Obj) -> bool:
    return bool((pod.get("spec") or {}).get("preemptionPolicy") != "Never")


def waits_for_victims(pod: Obj, placed: dict[str, list[Obj]]) -> bool:
    """The pod nominated a node where lower-priority pods are still terminating."""
    nominated = str((pod.get("status") or {}).get("nominatedNodeName") or "")
    return bool(nominated) and any(
        other["metadata"].get("deletionTimestamp") and priority(other) < priority(pod)
        for other in placed.get(nominated, [])
    )


def choose(
    pod: Obj, candidates: Sequence[str], placed: dict[str, list[Obj]], fits: Fits
) -> Choice | None:
    """The node to preempt on and its victims; None when no candidate has enough lower
    priority pods to make room."""
    choices = []
    for node in candidates:
        victims = _victims(pod, node, placed.get(node, []), fits)
        if victims is not None:
            choices.append(Choice(node, victims))
    if not choices:
        return None
    return min(
        choices,
        key=lambda c: (
            max(priority(v) for v in c.victims),
            sum(priority(v) for v in c.victims),
            len(c.victims),
            c.node,
        ),
    )


def _victims(pod: Obj, node: str, on_node: list[Obj], fits: Fits) -> list[Obj] | None:
    alive = [p for p in on_node if not p["metadata"].get("deletionTimestamp")]
    lower = [p for p in alive if priority(p) < priority(pod)]
    if not lower:
        return None
    kept = [p for p in alive if priority(p) >= priority(pod)]
    if not fits(pod, node, kept):
        return None
    victims = []
    # give back the most important first: higher priority, then the one running longest
    for candidate in sorted(
        lower, key=lambda p: (-priority(p), p["metadata"].get("creationTimestamp", ""))
    ):
        if fits(pod, node, [*kept, candidate]):
            kept.append(candidate)
        else:
            victims.append(candidate)
    return victims or None


def condition(now: str) -> Obj:
    """The condition the scheduler sets on a victim before deleting it."""
    return {
        "type": DISRUPTION_TARGET,
        "status": "True",
        "reason": REASON,
        "message": f"{SCHEDULER}: preempting to accommodate a higher priority pod",
        "lastProbeTime": None,
        "lastTransitionTime": now,
    }


def event_message(preemptor: Obj, node: str) -> str:
    return f"Preempted by pod {preemptor['metadata']['uid']} on node {node}"
