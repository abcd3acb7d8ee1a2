"""The node affinity that places a pod: whether a node satisfies a pod's nodeSelector and
required node affinity (the scheduler's NodeAffinity rules), and pinning a pod template to
chosen nodes by required node affinity on kubernetes.io/hostname (never nodeName: the
scheduler still checks that the pods fit). Pure: pod specs and Node objects (dicts) in.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.placement.capacity import HOSTNAME_LABEL, pinned_nodes, required_node_terms
from gpuctl.workloads import pod_spec_of


def pin_to_nodes(pod_spec: dict[str, Any], nodes: Sequence[str]) -> None:
    """Require kubernetes.io/hostname In `nodes` in every node selector term (terms are OR-ed,
    so the requirement is added to each; a pod spec without terms gets one)."""
    pinned = {"key": HOSTNAME_LABEL, "operator": "In", "values": list(nodes)}
    affinity = pod_spec.setdefault("affinity", {})
    required = affinity.setdefault("nodeAffinity", {}).setdefault(
        "requiredDuringSchedulingIgnoredDuringExecution", {}
    )
    terms = required.setdefault("nodeSelectorTerms", [])
    if not terms:
        terms.append({})
    for term in terms:
        term.setdefault("matchExpressions", []).append(copy.deepcopy(pinned))


def required_gpu_type(pod_spec: Mapping[str, Any]) -> str | None:
    """The GPU type a pod spec requires: the first value of its required node affinity on a
    GPU-type label (constants.GPU_TYPE_NODE_LABELS); None when it requires none."""
    for term in required_node_terms(pod_spec):
        for expression in term.get("matchExpressions") or []:
            if expression.get("key") in c.GPU_TYPE_NODE_LABELS and expression.get("values"):
                return str(expression["values"][0])
    return None


def pinned_node(job: Mapping[str, Any]) -> str:
    """The (first) node a Job's pod template is pinned to; "" when it has none."""
    nodes = pinned_nodes(pod_spec_of(job))
    return nodes[0] if nodes else ""


def _expression_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, operator = expression.get("key", ""), expression.get("operator")
    values = [str(v) for v in expression.get("values") or []]
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    if operator in ("Gt", "Lt") and key in labels and values:
        try:
            have, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def may_run_on(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """Does the node satisfy the pod's nodeSelector and required node affinity (the
    scheduler's NodeAffinity rules: terms OR-ed, expressions within a term AND-ed)?"""
    metadata = shapes.meta(node)
    labels = {HOSTNAME_LABEL: metadata.get("name", ""), **(metadata.get("labels") or {})}
    selector = shapes.pod_spec(pod_spec).get("nodeSelector") or {}
    if any(labels.get(key) != value for key, value in selector.items()):
        return False
    terms = required_node_terms(pod_spec)
    return not terms or any(
        all(_expression_matches(e, labels) for e in term.get("matchExpressions") or [])
        for term in terms
    )


def one_pod_per_node(pod_spec: Mapping[str, Any]) -> bool:
    """A required pod anti-affinity on kubernetes.io/hostname: each pod needs a node of its own."""
    anti = ((pod_spec.get("affinity") or {}).get("podAntiAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or []
    return any(term.get("topologyKey") == HOSTNAME_LABEL for term in anti)
