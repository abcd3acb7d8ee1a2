"""The PriorityClasses the jobs' pods name (gpuctl-high, -medium, -low), at create and apply
time.

Render gives every pod template `priorityClassName: gpuctl-<priority>`. A pod that names a
class the cluster does not have is refused by the API server, so a job must never depend on a
class being there:

- the classes that are missing are created first when the caller may create cluster-scoped
  objects (not on a dry run); they stay afterwards, shared by every job;
- a class still missing (the caller may not create it, or may not even read the classes) is
  left out of the pod templates that name it, and a warning says so and how an administrator
  installs the classes (`gpuctl priority-classes install`);
- apply keeps a live workload that has no class without one (it was created before the
  classes were installed): adding a class to a Job's pod template would replace the Job and
  restart its pods. A workload created after the classes exist carries its class.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import yaml

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Forbidden, KubeError
from gpuctl.render.engine import Manifest, priority_class_of, render_priority_classes
from gpuctl.verbs.common import ObjectResult, read_live

INSTALL_HINT = "an administrator installs them with `gpuctl priority-classes install`"


@dataclass
class PriorityClasses:
    """What the check found and did: the manifests to write (a missing class left out), the
    classes it created, and warnings."""

    manifests: list[Manifest]
    created: list[ObjectResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def class_names() -> list[str]:
    return [c.PRIORITY_CLASS_PREFIX + priority for priority in c.PRIORITIES]


def existing_classes(cluster: ClusterAPI) -> set[str] | None:
    """gpuctl's classes the cluster has; None when the caller may not read PriorityClasses."""
    try:
        listed = cluster.list("PriorityClass")
    except Forbidden:
        return None
    return {obj["metadata"]["name"] for obj in listed} & set(class_names())


def install(cluster: ClusterAPI, names: Sequence[str], *, dry_run: bool = False) -> list[str]:
    """Create the classes named (those that exist already are skipped: AlreadyExists);
    returns the names created. Forbidden and other cluster errors are raised."""
    created = []
    for manifest in render_priority_classes():
        if manifest.name not in names:
            continue
        try:
            cluster.create(manifest.obj, dry_run=dry_run)
        except AlreadyExists:
            continue
        created.append(manifest.name)
    return created


def _without_class(manifest: Manifest) -> Manifest:
    obj = copy.deepcopy(manifest.obj)
    workloads.pod_spec_of(obj).pop("priorityClassName", None)
    text = yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)
    return dataclasses.replace(manifest, obj=obj, text=text)


def _without_class_live(
    cluster: ClusterAPI, manifests: Sequence[Manifest]
) -> set[tuple[str, str, str, str]]:
    """The identities of the manifests whose live workload exists and whose pods name no
    PriorityClass, read together (gpuctl.verbs.common.read_live); none when they cannot be
    read."""
    try:
        live = read_live(cluster, manifests)
    except KubeError:
        return set()
    return {
        manifest.identity
        for manifest in manifests
        if (obj := live.get(manifest.identity)) is not None
        and (adapter := workloads.adapter(manifest.kind)) is not None
        and "priorityClassName" not in adapter.pod_spec(obj)
    }


def check(
    cluster: ClusterAPI, manifests: list[Manifest], *, may_install: bool, keep_live: bool
) -> PriorityClasses:
    """The manifests as they may be written, after creating the missing classes when
    `may_install` (and the caller may); with `keep_live`, a live workload without a class
    keeps none."""
    wanted = sorted({name for m in manifests if (name := priority_class_of(m))})
    result = PriorityClasses(list(manifests))
    if not wanted:
        return result
    present = existing_classes(cluster)
    missing = [name for name in wanted if present is None or name not in present]
    if present is not None and missing and may_install:
        try:
            made = install(cluster, missing)
        except Forbidden:
            made = []
        result.created = [ObjectResult("PriorityClass", name, None, "created") for name in made]
        missing = [name for name in missing if name not in made]
    if present is None:
        why = "you may not read PriorityClasses, so whether it exists is unknown"
    elif may_install:
        why = "it does not exist and you may not create it"
    else:
        why = "it does not exist, and a dry run creates nothing"
    _leave_out(cluster, result, set(missing), why, keep_live)
    return result


def _leave_out(
    cluster: ClusterAPI, result: PriorityClasses, missing: set[str], why: str, keep_live: bool
) -> None:
    """Drop the class from the pod templates that name a missing one (or, with `keep_live`,
    whose live workload has none), with a warning per job."""
    kept: list[Manifest] = []
    named = [(m, priority_class_of(m)) for m in result.manifests]
    asked = [m for m, name in named if name is not None and name not in missing]
    classless = _without_class_live(cluster, asked) if keep_live and asked else set()
    for manifest, name in named:
        if name is not None and name in missing:
            kept.append(_without_class(manifest))
            result.warnings.append(
                f"{manifest.kind.lower()}/{manifest.name}: its pods run without "
                f"priorityClassName {name} ({why}); its priority takes effect once the classes "
                f"are installed: {INSTALL_HINT}"
            )
        elif manifest.identity in classless:
            kept.append(_without_class(manifest))
        else:
            kept.append(manifest)
    result.manifests = kept
