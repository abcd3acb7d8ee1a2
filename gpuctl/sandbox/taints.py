"""Taints and tolerations, as kube-scheduler's TaintToleration filter reads them: a pod may go
on a node only if it tolerates every NoSchedule and NoExecute taint there (PreferNoSchedule
only steers, it never keeps a pod off)."""

from __future__ import annotations

from gpuctl.sandbox.store import Obj

FILTERED_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates(tolerations: list[Obj], taint: Obj) -> bool:
    """Does one of the tolerations match the taint? An effect and a key, when given, must be
    the taint's; `Exists` then matches any value, `Equal` (or no operator) the taint's value
    exactly; any other operator matches nothing."""
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint.get("effect"):
            continue
        if t.get("key") and t["key"] != taint.get("key"):
            continue
        operator = t.get("operator") or "Equal"
        if operator == "Exists":
            return True
        if operator == "Equal" and (t.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def untolerated(tolerations: list[Obj], node: Obj) -> Obj | None:
    """The node's first NoSchedule/NoExecute taint the pod does not tolerate; None if none."""
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in FILTERED_EFFECTS and not tolerates(tolerations, taint):
            return dict(taint)
    return None
