"""`diff`: what apply would change, as a unified diff of live and rendered objects.

It runs apply's own plan, so the two always agree: an object is shown exactly when apply would
create, configure, replace or prune it.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.resources import clean
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.verbs import priorities
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.plan import Action, Change, project


@dataclass
class DiffResult:
    changes: list[Change] = field(default_factory=list)
    text: str = ""

    @property
    def differs(self) -> bool:
        return any(change.action is not Action.UNCHANGED for change in self.changes)


@dataclass
class Diff:
    cluster: ClusterAPI
    node_labels: Sequence[NodeLabels] = ()  # what pool files label on their nodes

    def run(self, manifests: list[Manifest]) -> DiffResult:
        apply = Apply(self.cluster, node_labels=self.node_labels)
        manifests, _ = apply.pinned(manifests)  # resources.placement: where apply would pin
        # the PriorityClasses as apply treats them (a live workload without one keeps none)
        manifests = priorities.check(
            self.cluster, manifests, may_install=False, keep_live=True
        ).manifests
        changes = apply.plan(manifests)
        by_target = {(m.kind, m.name, m.namespace or None): m for m in manifests}
        chunks: list[str] = []
        for change in changes:
            if change.action is Action.UNCHANGED:
                continue
            manifest = by_target.get((change.kind, change.name, change.namespace))
            chunks.append(_object_diff(change, manifest))
        return DiffResult(changes, "".join(chunks))


def _object_diff(change: Change, manifest: Manifest | None) -> str:
    label = f"{change.namespace or '-'}/{change.ref}"
    if change.action is Action.ANNOTATE:  # the objects render the same: nothing to compare
        return f"# {label}: will be {change.action.done} (only the spec text kept with it)\n"
    if manifest is None:  # pruned: the whole live object goes
        before, after = _dump(_shown(change.live)), ""
    else:
        sent = _as_sent(change, manifest)
        before = "" if change.live is None else _dump(project(change.live, sent))
        after = _dump(sent)
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"live/{label}",
        tofile=f"rendered/{label}",
    )
    text = "".join(lines)
    if not text:  # only gpuctl's own bookkeeping differs; apply rewrites it
        return f"# {label}: will be {change.action.done} (only gpuctl's fingerprint differs)\n"
    return text


def _as_sent(change: Change, manifest: Manifest) -> dict[str, Any]:
    """The rendered object as apply would write it: with the live replica count when an
    autoscaler owns it."""
    if change.kept_replicas is None:
        return manifest.obj
    sent = copy.deepcopy(manifest.obj)
    sent.setdefault("spec", {})["replicas"] = change.kept_replicas
    return sent


def _shown(live: dict[str, Any] | None) -> dict[str, Any]:
    shown = clean(live or {})
    shown.pop("status", None)
    return shown


def _dump(obj: Any) -> str:
    return yaml.dump(obj, Dumper=yaml.CSafeDumper, sort_keys=True, allow_unicode=True)
