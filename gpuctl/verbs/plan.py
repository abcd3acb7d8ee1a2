"""The change plan, computed before anything is written (kapp's add / update / replace / keep).

Pure: rendered manifests and the live objects read from the cluster in, changes out. Whether
an object changed is decided by a fingerprint of the rendered object kept in an annotation at
creation, never by comparing with fields the server defaulted.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gpuctl import constants as c
from gpuctl.render.engine import Manifest

# Kinds whose pod template cannot change in place (the Job's is immutable): always replaced.
REPLACE_ONLY = frozenset({"Job", "Pod"})
# Kinds that are containers for others: created when missing, never replaced or deleted.
KEEP_WHEN_PRESENT = frozenset({"Namespace"})


class Action(Enum):
    CREATE = "create"
    UPDATE = "update"  # in place (PUT with the live resourceVersion)
    REPLACE = "replace"  # delete (foreground, waited for), then create
    UNCHANGED = "unchanged"

    @property
    def done(self) -> str:
        """kubectl's word for it in the report line."""
        return {
            "create": "created",
            "update": "configured",
            "replace": "replaced",
            "unchanged": "unchanged",
        }[self.value]


@dataclass
class Change:
    action: Action
    manifest: Manifest
    desired: dict[str, Any]  # what is sent: the rendered object + fingerprint (+ kept fields)
    live: dict[str, Any] | None = None  # as read before any write: the copy to restore
    notes: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return self.manifest.ref

    def line(self, suffix: str = "") -> str:
        return f"{self.ref} {self.action.done}{suffix}"


class NotManaged(Exception):
    """Objects that exist but were not made by gpuctl: apply will not take them over."""

    def __init__(self, refs: list[str]) -> None:
        self.refs = refs
        super().__init__(
            ", ".join(refs)
            + " already exist and are not managed by gpuctl (no "
            + f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE} label); delete them or rename the job"
        )


def fingerprint(obj: dict[str, Any]) -> str:
    """A stable hash of a rendered object (key order and formatting do not matter)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:40]


def desired_object(manifest: Manifest) -> dict[str, Any]:
    """The rendered object with its fingerprint annotation: what create and update send."""
    obj = copy.deepcopy(manifest.obj)
    annotations = obj["metadata"].setdefault("annotations", {})
    annotations[c.RENDER_HASH_ANNOTATION] = fingerprint(manifest.obj)
    return obj


def is_managed(live: dict[str, Any]) -> bool:
    labels = (live.get("metadata") or {}).get("labels") or {}
    return labels.get(c.Labels.MANAGED_BY) == c.MANAGED_BY_VALUE


def make_plan(
    manifests: list[Manifest], live: dict[tuple[str, str, str, str], dict[str, Any] | None]
) -> list[Change]:
    """One change per manifest, in the manifests' (install) order."""
    changes = []
    foreign = []
    for manifest in manifests:
        current = live.get(manifest.identity)
        desired = desired_object(manifest)
        if current is None:
            changes.append(Change(Action.CREATE, manifest, desired))
            continue
        if manifest.kind in KEEP_WHEN_PRESENT:
            changes.append(Change(Action.UNCHANGED, manifest, desired, current))
            continue
        if not is_managed(current):
            foreign.append(manifest.ref)
            continue
        annotations = (current.get("metadata") or {}).get("annotations") or {}
        if annotations.get(c.RENDER_HASH_ANNOTATION) == fingerprint(manifest.obj):
            changes.append(Change(Action.UNCHANGED, manifest, desired, current))
            continue
        action = Action.REPLACE if manifest.kind in REPLACE_ONLY else Action.UPDATE
        keep_server_fields(desired, current)
        changes.append(Change(action, manifest, desired, current))
    if foreign:
        raise NotManaged(foreign)
    return changes


def keep_server_fields(desired: dict[str, Any], live: dict[str, Any]) -> None:
    """What the server allocated and must survive a change: a Service keeps its cluster IP
    (immutable) and its nodePorts (so users' URLs keep working across a replace)."""
    if desired.get("kind") != "Service":
        return
    spec, live_spec = desired.setdefault("spec", {}), live.get("spec") or {}
    for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        if key in live_spec and spec.get("clusterIP") != "None":
            spec[key] = copy.deepcopy(live_spec[key])
    live_ports = {(p.get("name"), p.get("port")): p for p in live_spec.get("ports") or []}
    by_name = {p.get("name"): p for p in live_spec.get("ports") or []}
    for port in spec.get("ports") or []:
        old = live_ports.get((port.get("name"), port.get("port"))) or by_name.get(port.get("name"))
        if old and "nodePort" in old and spec.get("type") in ("NodePort", "LoadBalancer"):
            port["nodePort"] = old["nodePort"]


def with_version(obj: dict[str, Any], live: dict[str, Any]) -> dict[str, Any]:
    """`obj` carrying the live resourceVersion, for an optimistic-concurrency PUT."""
    result = copy.deepcopy(obj)
    result["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"]
    return result
