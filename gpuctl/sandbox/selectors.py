"""Label and field selectors, parsed as the API server parses them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuctl.sandbox.errors import bad_request


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # = != in notin exists !
    values: frozenset[str]

    def matches(self, labels: dict[str, str]) -> bool:
        if self.op == "exists":
            return self.key in labels
        if self.op == "!":
            return self.key not in labels
        if self.op in ("=", "in"):
            return labels.get(self.key) in self.values
        # != and notin also match objects without the label, as in Kubernetes
        return labels.get(self.key) not in self.values


_SET = re.compile(r"^\s*([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")
_EQ = re.compile(r"^\s*([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)\s*$")


def _split(text: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in (p.strip() for p in parts) if p]


def parse_label_selector(text: str) -> list[Requirement]:
    reqs: list[Requirement] = []
    for part in _split(text):
        if m := _SET.match(part):
            values = frozenset(v.strip() for v in m.group(3).split(",") if v.strip())
            reqs.append(Requirement(m.group(1), m.group(2), values))
        elif m := _EQ.match(part):
            op = "!=" if m.group(2) == "!=" else "="
            reqs.append(Requirement(m.group(1), op, frozenset([m.group(3)])))
        elif part.startswith("!") and re.fullmatch(r"![^\s!=(),]+", part):
            reqs.append(Requirement(part[1:], "!", frozenset()))
        elif re.fullmatch(r"[^\s!=(),]+", part):
            reqs.append(Requirement(part, "exists", frozenset()))
        else:
            raise bad_request(f"unable to parse requirement: found '{part}', expected: identifier")
    return reqs


def label_selector_from_object(selector: dict[str, Any] | None) -> list[Requirement]:
    """A metav1.LabelSelector (matchLabels + matchExpressions) as requirements."""
    if not selector:
        return []
    reqs = [
        Requirement(k, "=", frozenset([v])) for k, v in (selector.get("matchLabels") or {}).items()
    ]
    for expr in selector.get("matchExpressions") or []:
        op = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}[
            expr["operator"]
        ]
        reqs.append(Requirement(expr["key"], op, frozenset(expr.get("values") or [])))
    return reqs


def selector_string(selector: dict[str, Any] | None) -> str:
    """The string form `kubectl` and Scale.status.selector use."""
    parts = [f"{k}={v}" for k, v in sorted(((selector or {}).get("matchLabels") or {}).items())]
    for expr in (selector or {}).get("matchExpressions") or []:
        op = expr["operator"]
        if op in ("In", "NotIn"):
            parts.append(f"{expr['key']} {op.lower()} ({','.join(sorted(expr.get('values', [])))})")
        elif op == "Exists":
            parts.append(expr["key"])
        else:
            parts.append("!" + expr["key"])
    return ",".join(parts)


def matches_labels(reqs: list[Requirement], labels: dict[str, str] | None) -> bool:
    labels = labels or {}
    return all(r.matches(labels) for r in reqs)


FIELD_GETTERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "metadata.name": lambda o: str(o.get("metadata", {}).get("name", "")),
    "metadata.namespace": lambda o: str(o.get("metadata", {}).get("namespace", "")),
    "status.phase": lambda o: str((o.get("status") or {}).get("phase", "")),
    "spec.nodeName": lambda o: str((o.get("spec") or {}).get("nodeName", "")),
    "involvedObject.name": lambda o: str((o.get("involvedObject") or {}).get("name", "")),
    "involvedObject.kind": lambda o: str((o.get("involvedObject") or {}).get("kind", "")),
    "involvedObject.uid": lambda o: str((o.get("involvedObject") or {}).get("uid", "")),
    "involvedObject.namespace": lambda o: str((o.get("involvedObject") or {}).get("namespace", "")),
    "reason": lambda o: str(o.get("reason", "")),
    "type": lambda o: str(o.get("type", "")),
    "spec.schedulerName": lambda o: str((o.get("spec") or {}).get("schedulerName", "")),
    "status.podIP": lambda o: str((o.get("status") or {}).get("podIP", "")),
    "spec.unschedulable": lambda o: str(bool((o.get("spec") or {}).get("unschedulable"))).lower(),
    "spec.restartPolicy": lambda o: str((o.get("spec") or {}).get("restartPolicy", "")),
    "spec.serviceAccountName": lambda o: str((o.get("spec") or {}).get("serviceAccountName", "")),
    "spec.hostNetwork": lambda o: str(bool((o.get("spec") or {}).get("hostNetwork"))).lower(),
    "status.nominatedNodeName": lambda o: str((o.get("status") or {}).get("nominatedNodeName", "")),
    "involvedObject.apiVersion": lambda o: str(
        (o.get("involvedObject") or {}).get("apiVersion", "")
    ),
    "involvedObject.resourceVersion": lambda o: str(
        (o.get("involvedObject") or {}).get("resourceVersion", "")
    ),
    "involvedObject.fieldPath": lambda o: str((o.get("involvedObject") or {}).get("fieldPath", "")),
    "reportingComponent": lambda o: str(o.get("reportingComponent", "")),
    "source": lambda o: str((o.get("source") or {}).get("component", "")),
    "status.successful": lambda o: str((o.get("status") or {}).get("succeeded", 0)),
    "status.replicas": lambda o: str((o.get("status") or {}).get("replicas", 0)),
}


_COMMON_FIELDS = frozenset({"metadata.name", "metadata.namespace"})
# the extra fields each type's field selectors support on a real server
_KIND_FIELDS: dict[str, frozenset[str]] = {
    "Pod": frozenset(
        {
            "spec.nodeName",
            "status.phase",
            "spec.schedulerName",
            "status.podIP",
            "spec.restartPolicy",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.nominatedNodeName",
        }
    ),
    "Node": frozenset({"spec.unschedulable"}),
    "Namespace": frozenset({"status.phase"}),
    "Event": frozenset(
        {
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        }
    ),
    "Secret": frozenset({"type"}),
    "Job": frozenset({"status.successful"}),
    "ReplicaSet": frozenset({"status.replicas"}),
}
_BUILTIN_WITHOUT_EXTRAS = frozenset(
    {
        "ConfigMap",
        "Service",
        "ResourceQuota",
        "ServiceAccount",
        "Deployment",
        "StatefulSet",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "PriorityClass",
        "CustomResourceDefinition",
        "Lease",
    }
)


@dataclass(frozen=True)
class FieldRequirement:
    field: str
    op: str  # = or !=
    value: str

    def matches(self, obj: dict[str, Any]) -> bool:
        got = FIELD_GETTERS[self.field](obj)
        return (got == self.value) if self.op == "=" else (got != self.value)


def parse_field_selector(text: str, kind: str) -> list[FieldRequirement]:
    reqs: list[FieldRequirement] = []
    for part in _split(text):
        m = re.fullmatch(r"\s*([^\s!=]+)\s*(==|=|!=)\s*(.*?)\s*", part)
        if not m:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        field = m.group(1)
        allowed = _COMMON_FIELDS | _KIND_FIELDS.get(kind, frozenset())
        if field not in allowed or field not in FIELD_GETTERS:
            if kind in _KIND_FIELDS or kind in _BUILTIN_WITHOUT_EXTRAS:
                raise bad_request(f"field label not supported: {field}")
            raise bad_request(
                f'"{field}" is not a known field selector: only "metadata.name", '
                '"metadata.namespace"'
            )
        reqs.append(FieldRequirement(field, "!=" if m.group(2) == "!=" else "=", m.group(3)))
    return reqs


def name_from_field_selector(reqs: list[FieldRequirement]) -> str | None:
    """`metadata.name=x` lets a list skip straight to one object (what kubectl wait sends)."""
    for r in reqs:
        if r.field == "metadata.name" and r.op == "=":
            return r.value
    return None
