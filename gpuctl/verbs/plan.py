"""The change plan, computed before anything is written (kapp's add / update / replace /
keep / delete).

Pure: rendered manifests and the live objects read from the cluster in, changes out. Whether
an object changed is decided by a fingerprint of the rendered object kept in an annotation at
creation, never by comparing with fields the server defaulted. An object that carries no
fingerprint (created by `gpuctl render | kubectl apply -f -`) is unchanged when its live copy,
cut down to the fields gpuctl renders, equals the rendered object.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cluster.resources import ref
from gpuctl.render.engine import Manifest
from gpuctl.spec import quantity

# Kinds whose pod template cannot change in place (the Job's is immutable): always replaced.
REPLACE_ONLY = frozenset({"Pod", *(a.kind for a in workloads.ADAPTERS.values() if a.replace_only)})
# Kinds that are containers for others: created when missing, never replaced or deleted.
KEEP_WHEN_PRESENT = frozenset({"Namespace"})
# The kinds a job's objects may have: what prune and `delete job NAME` look for, in the order
# they are deleted (the autoscaler before its target, workloads before their Services).
JOB_OBJECT_KINDS = (
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    *workloads.WORKLOAD_KINDS,
    "Service",
    "ConfigMap",
)
# Workload kinds whose replica count an autoscaler (or `kubectl scale`) may change.
SCALED_KINDS = workloads.SCALED_KINDS
# A job's workload kinds: the object that carries the spec it was written from.
SPEC_KINDS = frozenset(workloads.WORKLOAD_KINDS)


class Action(Enum):
    CREATE = "create"
    UPDATE = "update"  # in place (PUT with the live resourceVersion)
    REPLACE = "replace"  # delete (foreground, waited for), then create
    UNCHANGED = "unchanged"
    PRUNE = "prune"  # a job's object that the new render no longer produces
    # the same objects rendered from an edited spec text (a comment, the formatting): only the
    # text kept on the workload is patched, so the job is neither replaced nor restarted
    ANNOTATE = "annotate"

    @property
    def done(self) -> str:
        """kubectl's word for it in the report line."""
        return {
            "create": "created",
            "update": "configured",
            "replace": "replaced",
            "unchanged": "unchanged",
            "prune": "pruned",
            "annotate": "configured",
        }[self.value]


@dataclass
class Change:
    action: Action
    kind: str
    name: str
    namespace: str | None
    desired: dict[str, Any] | None  # what is sent: rendered object + fingerprint (+ kept fields)
    live: dict[str, Any] | None = None  # as read before any write: the copy to restore
    notes: list[str] = field(default_factory=list)
    # the live spec.replicas sent instead of the rendered one: an autoscaler owns the count
    kept_replicas: int | None = None

    @classmethod
    def of(
        cls,
        action: Action,
        manifest: Manifest,
        desired: dict[str, Any],
        live: dict[str, Any] | None = None,
    ) -> Change:
        return cls(action, manifest.kind, manifest.name, manifest.namespace or None, desired, live)

    @property
    def ref(self) -> str:
        return ref(self.kind, self.name)

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
    """The rendered object with its fingerprint annotation, and on a job's workload the spec
    it came from (as written): what create and update send."""
    obj = copy.deepcopy(manifest.obj)
    annotations = obj["metadata"].setdefault("annotations", {})
    annotations[c.RENDER_HASH_ANNOTATION] = fingerprint(manifest.obj)
    labels = obj["metadata"].get("labels") or {}
    if manifest.kind in SPEC_KINDS and c.Labels.JOB_TYPE in labels and manifest.document.text:
        annotations.update(spec_annotations(manifest.document.text))
    return obj


def stored_spec(obj: dict[str, Any]) -> dict[str, str | None]:
    """The spec text kept on a workload (or the note that it was not kept); None for each
    annotation it does not carry."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    return {key: annotations.get(key) for key in (c.SPEC_ANNOTATION, c.SPEC_OMITTED_ANNOTATION)}


def stored_spec_patch(obj: dict[str, Any]) -> dict[str, Any]:
    """The merge patch that makes a workload keep `obj`'s spec text (removing what it lacks)."""
    return {"metadata": {"annotations": stored_spec(obj)}}


def spec_annotations(text: str) -> dict[str, str]:
    """The spec text, or (over SPEC_ANNOTATION_MAX bytes) a note that it was not kept."""
    size = len(text.encode("utf-8"))
    if size <= c.SPEC_ANNOTATION_MAX:
        return {c.SPEC_ANNOTATION: text}
    return {
        c.SPEC_OMITTED_ANNOTATION: f"the spec was {size} bytes, over the "
        f"{c.SPEC_ANNOTATION_MAX}-byte limit of {c.SPEC_ANNOTATION}: not kept"
    }


def is_managed(live: dict[str, Any]) -> bool:
    labels = (live.get("metadata") or {}).get("labels") or {}
    return labels.get(c.Labels.MANAGED_BY) == c.MANAGED_BY_VALUE


def project(live: Any, desired: Any) -> Any:
    """`live` cut down to the fields gpuctl renders (what the server added is not a change);
    quantities the server rewrote (`0.5` → `500m`) count as equal."""
    if isinstance(desired, dict) and isinstance(live, dict):
        return {key: project(live[key], value) for key, value in desired.items() if key in live}
    if isinstance(desired, list) and isinstance(live, list):
        return [project(a, b) for a, b in zip(live, desired, strict=False)] + live[len(desired) :]
    if live != desired and quantity.same(live, desired):
        return desired
    return live


def unchanged(manifest: Manifest, live: dict[str, Any]) -> bool:
    """Does the live object hold what `manifest` renders? By fingerprint when it has one."""
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    have = annotations.get(c.RENDER_HASH_ANNOTATION)
    if have is not None:
        return bool(have == fingerprint(manifest.obj))
    return bool(project(live, manifest.obj) == manifest.obj)


def make_plan(
    manifests: list[Manifest],
    live: dict[tuple[str, str, str, str], dict[str, Any] | None],
    *,
    force: bool = False,
    prunable: list[dict[str, Any]] | None = None,
    autoscalers: list[dict[str, Any]] | None = None,
) -> list[Change]:
    """One change per manifest, in the manifests' (install) order, then one prune per object
    in `prunable` (the live objects of the same jobs) that no manifest renders any more.

    With `force`, every existing object but a Namespace is replaced, changed or not. A workload
    that an autoscaler will own after the apply (one rendered, or one of `autoscalers`, the live
    HorizontalPodAutoscalers, that is not pruned) keeps its live spec.replicas."""
    rendered = {(m.kind, m.name, m.namespace or None) for m in manifests}
    prunes = [
        Change(Action.PRUNE, obj["kind"], obj["metadata"]["name"], _namespace(obj), None, obj)
        for obj in sorted(prunable or [], key=_deletion_order)
        if (obj["kind"], obj["metadata"]["name"], _namespace(obj)) not in rendered
        and is_managed(obj)
    ]
    pruned = {(p.kind, p.name, p.namespace) for p in prunes}
    owned = scaled_targets(
        [m.obj for m in manifests]
        + [
            a
            for a in autoscalers or []
            if (a["kind"], a["metadata"]["name"], _namespace(a)) not in pruned
        ]
    )
    changes = []
    foreign = []
    for manifest in manifests:
        current = live.get(manifest.identity)
        desired = desired_object(manifest)
        if current is not None and manifest.kind not in KEEP_WHEN_PRESENT:
            if not is_managed(current):
                foreign.append(manifest.ref)
                continue
            keep_foreign_metadata(desired, current)
        change = _change_for(manifest, desired, current, force)
        if (manifest.kind, manifest.name, manifest.namespace or None) in owned:
            keep_replicas(change)
        elif _scaled_by_hand(change, manifest):  # the file's count wins, as kubectl apply's
            change = Change.of(Action.UPDATE, manifest, desired, current)
            change.notes.append("replicas set back to the file's")
        changes.append(change)
    if foreign:
        raise NotManaged(foreign)
    return changes + prunes


def _namespace(obj: dict[str, Any]) -> str | None:
    return (obj.get("metadata") or {}).get("namespace") or None


def scaled_targets(objects: list[dict[str, Any]]) -> set[tuple[str, str, str | None]]:
    """(kind, name, namespace) of every workload that one of the HorizontalPodAutoscalers
    among `objects` scales."""
    targets = set()
    for obj in objects:
        if obj.get("kind") != "HorizontalPodAutoscaler":
            continue
        ref_ = (obj.get("spec") or {}).get("scaleTargetRef") or {}
        targets.add((str(ref_.get("kind")), str(ref_.get("name")), _namespace(obj)))
    return targets


def _scaled_by_hand(change: Change, manifest: Manifest) -> bool:
    """An otherwise unchanged workload whose live replica count someone changed (`kubectl
    scale`) while no autoscaler owns it."""
    if change.action not in (Action.UNCHANGED, Action.ANNOTATE) or change.live is None:
        return False
    if manifest.kind not in SCALED_KINDS or _paused(change.live):
        return False
    rendered = (manifest.obj.get("spec") or {}).get("replicas")
    live = (change.live.get("spec") or {}).get("replicas")
    return rendered is not None and live is not None and rendered != live


def _paused(live: dict[str, Any]) -> bool:
    """Scaled to zero by `gpuctl pause` (which keeps the count to resume to)."""
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    return c.PAUSED_REPLICAS_ANNOTATION in annotations


def keep_replicas(change: Change) -> None:
    """An update or replace of a workload whose replica count an autoscaler owns sends the
    live count, not the rendered one (as Helm charts and Argo CD's ignore-differences do)."""
    if change.action not in (Action.UPDATE, Action.REPLACE) or change.live is None:
        return
    if _paused(change.live):  # an apply that changes a paused job resumes it (spec's count)
        return
    live = (change.live.get("spec") or {}).get("replicas")
    if change.desired is None or not isinstance(live, int):
        return
    change.desired.setdefault("spec", {})["replicas"] = live
    change.kept_replicas = live


def _change_for(
    manifest: Manifest, desired: dict[str, Any], current: dict[str, Any] | None, force: bool
) -> Change:
    if current is None:
        return Change.of(Action.CREATE, manifest, desired)
    if manifest.kind in KEEP_WHEN_PRESENT:
        return Change.of(Action.UNCHANGED, manifest, desired, current)
    if force:
        keep_server_fields(desired, current)
        change = Change.of(Action.REPLACE, manifest, desired, current)
        change.notes.append("--force")
        return change
    if unchanged(manifest, current):
        wanted = stored_spec(desired)
        if any(wanted.values()) and _keeps_spec(current) and wanted != stored_spec(current):
            return Change.of(Action.ANNOTATE, manifest, desired, current)
        return Change.of(Action.UNCHANGED, manifest, desired, current)
    action = Action.REPLACE if manifest.kind in REPLACE_ONLY else Action.UPDATE
    keep_server_fields(desired, current)
    return Change.of(action, manifest, desired, current)


def _keeps_spec(live: dict[str, Any]) -> bool:
    """Was it written by gpuctl create or apply (which keep the spec text on a workload)? An
    object of `gpuctl render | kubectl apply` carries neither the text nor the fingerprint."""
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    return c.RENDER_HASH_ANNOTATION in annotations


def _deletion_order(obj: dict[str, Any]) -> tuple[int, str]:
    kind = obj["kind"]
    rank = JOB_OBJECT_KINDS.index(kind) if kind in JOB_OBJECT_KINDS else len(JOB_OBJECT_KINDS)
    return rank, obj["metadata"]["name"]


def keep_foreign_metadata(desired: dict[str, Any], live: dict[str, Any]) -> None:
    """Annotations that others wrote on the live object (kubectl's last-applied, a
    controller's revision, a user's note) survive an update: gpuctl only sets its own."""
    live_annotations = (live.get("metadata") or {}).get("annotations") or {}
    annotations = desired["metadata"].setdefault("annotations", {})
    for key, value in live_annotations.items():
        annotations.setdefault(key, value)


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
