"""The verbs that change a cluster: one class per verb (Helm's action layer).

Each action takes rendered manifests and a `kube.Cluster`; it never prints. It returns the
report lines (kubectl style: `job.batch/x replaced`) or raises a GpuctlError whose one-line
message says what happened and in which state the cluster was left.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl.cluster.client import (
    AlreadyExists,
    Cluster,
    Conflict,
    KubeError,
    NotFound,
    clean,
    ref,
)
from gpuctl.errors import GpuctlError
from gpuctl.render.engine import Manifest
from gpuctl.spec import quantity
from gpuctl.verbs.plan import (
    Action,
    Change,
    NotManaged,
    desired_object,
    make_plan,
    with_version,
)

WORKERS = 8  # concurrent requests to the API server (kubectl's client-side QPS is 5-50)
DEFAULT_TIMEOUT = 300.0
Progress = Callable[[str], None]


def no_progress(_: str) -> None:
    pass


class ApplyFailed(GpuctlError):
    """A write failed; the message says which, and how the cluster was left."""


class WaitTimeout(GpuctlError):
    pass


class DryRun(Enum):
    NONE = "none"
    CLIENT = "client"
    SERVER = "server"

    @property
    def suffix(self) -> str:
        return {"none": "", "client": " (dry run)", "server": " (server dry run)"}[self.value]


def _ours(obj: dict[str, Any] | None, desired: dict[str, Any]) -> bool:
    """Is `obj` the object this run wrote (same fingerprint annotation)?"""
    if obj is None:
        return False
    want = desired["metadata"]["annotations"][c.RENDER_HASH_ANNOTATION]
    have = ((obj.get("metadata") or {}).get("annotations") or {}).get(c.RENDER_HASH_ANNOTATION)
    return bool(have == want)


def _terminating(obj: dict[str, Any]) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def _locate(manifest: Manifest) -> tuple[str, str, str | None]:
    return manifest.kind, manifest.name, manifest.namespace or None


def read_live(
    cluster: Cluster, manifests: list[Manifest]
) -> dict[tuple[str, str, str, str], dict[str, Any] | None]:
    """The live copy of every manifest's object (None when absent), with bounded concurrency."""
    with ThreadPoolExecutor(WORKERS) as pool:
        found = list(pool.map(lambda m: cluster.find(*_locate(m)), manifests))
    return {m.identity: live for m, live in zip(manifests, found, strict=True)}


def wait_gone(
    cluster: Cluster,
    kind: str,
    name: str,
    namespace: str | None,
    deadline: float,
    progress: Progress = no_progress,
) -> None:
    """Until the object is really gone (its pods with it, under foreground deletion).

    Watches from the object's resourceVersion; a failed or ended watch falls back to reading
    the object again, so a flaky connection costs a retry, not the apply.
    """
    what = ref(kind, name)
    started = time.monotonic()
    while True:
        try:
            live = cluster.find(kind, name, namespace)
        except KubeError:
            live = {}  # unknown: look again shortly
        if live is None:
            return
        if time.monotonic() >= deadline:
            raise WaitTimeout(
                f"{what} is still being deleted after {time.monotonic() - started:.0f}s"
            )
        progress(f"waiting for {what} to be deleted ({time.monotonic() - started:.0f}s)")
        if not live:
            time.sleep(0.2)
            continue
        remaining = max(1, min(30, int(deadline - time.monotonic())))
        try:
            for event, _obj in cluster.watch(
                kind,
                namespace,
                resource_version=live["metadata"]["resourceVersion"],
                field_selector=f"metadata.name={name}",
                timeout_seconds=remaining,
            ):
                if event == "DELETED":
                    return
                progress(f"waiting for {what} to be deleted ({time.monotonic() - started:.0f}s)")
        except KubeError:
            time.sleep(0.1)


# ----------------------------------------------------------------------------- apply


@dataclass
class _Step:
    """How far a change got; what rollback must undo."""

    change: Change
    stage: str  # "create", "update", "replace"


@dataclass
class Apply:
    """SPEC §6: create what is missing, leave what is unchanged, update in place what can be,
    replace the rest by delete-then-create; the cluster ends in the old state or the new."""

    cluster: Cluster
    dry_run: DryRun = DryRun.NONE
    timeout: float = DEFAULT_TIMEOUT
    progress: Progress = no_progress
    steps: list[_Step] = field(default_factory=list)

    def plan(self, manifests: list[Manifest]) -> list[Change]:
        try:
            return make_plan(manifests, read_live(self.cluster, manifests))
        except NotManaged as exc:
            raise ApplyFailed(f"nothing was changed: {exc}") from exc

    def run(self, manifests: list[Manifest]) -> list[str]:
        changes = self.plan(manifests)
        if self.dry_run is not DryRun.CLIENT:
            self.check_with_server(changes)
        if self.dry_run is not DryRun.NONE:
            return [change.line(self.dry_run.suffix) for change in changes]
        deadline = time.monotonic() + self.timeout
        for change in changes:
            if change.action is Action.UNCHANGED:
                continue
            try:
                self._execute(change, deadline)
            except (KubeError, WaitTimeout) as exc:
                raise ApplyFailed(self._rollback(change, exc)) from exc
        return [change.line() for change in changes]

    def check_with_server(self, changes: list[Change]) -> None:
        """Server-side dry run of every object to be written, before anything is written.

        An update the server refuses as immutable becomes a replace. For a replace, a dry-run
        create answers AlreadyExists only after validation and admission passed, which is
        exactly the check wanted. Objects in a namespace this plan creates cannot be checked
        (the namespace does not exist yet); they are new, so nothing is deleted for them.
        """
        new_namespaces = {
            ch.manifest.name
            for ch in changes
            if ch.action is Action.CREATE and ch.manifest.kind == "Namespace"
        }
        problems = []
        for change in changes:
            if change.action is Action.UNCHANGED or change.manifest.namespace in new_namespaces:
                continue
            try:
                if change.action is Action.UPDATE:
                    assert change.live is not None
                    try:
                        update_in_place(self.cluster, change, dry_run=True)
                        continue
                    except KubeError as exc:
                        if not getattr(exc, "immutable", False):
                            raise
                        change.action = Action.REPLACE
                        change.notes.append("immutable fields changed")
                try:
                    self.cluster.create(change.desired, dry_run=True)
                except AlreadyExists:
                    if change.action is not Action.REPLACE:
                        raise
            except KubeError as exc:
                problems.append(f"{change.ref}: {exc}")
        if problems:
            raise ApplyFailed(
                "the server refused the new objects, nothing was changed: " + "; ".join(problems)
            )

    def _execute(self, change: Change, deadline: float) -> None:
        kind, name, namespace = _locate(change.manifest)
        if change.action is Action.CREATE:
            self.steps.append(_Step(change, "create"))
            self.cluster.create(change.desired)
        elif change.action is Action.UPDATE:
            assert change.live is not None
            self.steps.append(_Step(change, "update"))
            update_in_place(self.cluster, change)
        elif change.action is Action.REPLACE:
            self.steps.append(_Step(change, "replace"))
            with contextlib.suppress(NotFound):  # already gone is what we want
                self.cluster.delete(kind, name, namespace, propagation="Foreground")
            wait_gone(self.cluster, kind, name, namespace, deadline, self.progress)
            self.cluster.create(change.desired)
        self.progress("")

    def _rollback(self, failed: Change, error: Exception) -> str:
        """Undo every step taken, newest first; the message for the user."""
        removed: list[str] = []
        restored: list[str] = []
        broken: list[str] = []
        deadline = time.monotonic() + self.timeout
        for step in reversed(self.steps):
            try:
                if undo(self.cluster, step.change, step.stage, deadline, self.progress):
                    (removed if step.stage == "create" else restored).append(step.change.ref)
            except (KubeError, WaitTimeout) as exc:
                broken.append(f"{step.change.ref} ({exc})")
        self.progress("")
        message = f"apply failed at {failed.ref}: {error}"
        undone = ""
        if restored:
            undone += f"; restored {', '.join(reversed(restored))}"
        if removed:
            undone += f"; removed the new {', '.join(reversed(removed))}"
        if broken:
            return (
                f"{message}; ROLLBACK FAILED, the cluster holds a mix of old and new objects: "
                + "; ".join(broken)
                + undone
            )
        if undone:
            return f"{message}; rolled back to the previous state{undone}"
        return f"{message}; nothing was changed"


CONFLICT_RETRIES = 5


def replace_retrying(
    cluster: Cluster,
    body: dict[str, Any],
    live: dict[str, Any],
    still_expected: Callable[[dict[str, Any]], bool],
    *,
    dry_run: bool = False,
) -> dict[str, Any]:
    """PUT `body` at `live`'s resourceVersion; on a Conflict read again and retry (client-go's
    RetryOnConflict), as long as `still_expected(live)`: controllers writing status are no
    reason to fail, someone else applying a different spec is."""
    for attempt in range(CONFLICT_RETRIES):
        try:
            return cluster.replace(with_version(body, live), dry_run=dry_run)
        except Conflict:
            kind, meta = body["kind"], body["metadata"]
            current = cluster.find(kind, meta["name"], meta.get("namespace"))
            if current is None or not still_expected(current) or attempt + 1 == CONFLICT_RETRIES:
                raise
            live = current
    raise AssertionError("unreachable")  # pragma: no cover


def update_in_place(cluster: Cluster, change: Change, *, dry_run: bool = False) -> None:
    """The in-place update of `change`, retried over Conflicts while nobody else changed the
    object's spec (its fingerprint annotation is still the one read before the plan)."""
    assert change.live is not None
    before = ((change.live.get("metadata") or {}).get("annotations") or {}).get(
        c.RENDER_HASH_ANNOTATION
    )

    def unchanged_by_others(live: dict[str, Any]) -> bool:
        annotations = (live.get("metadata") or {}).get("annotations") or {}
        return annotations.get(c.RENDER_HASH_ANNOTATION) == before

    # make_plan already carried the Service's allocated fields over into `desired`
    replace_retrying(cluster, change.desired, change.live, unchanged_by_others, dry_run=dry_run)


def undo(cluster: Cluster, change: Change, stage: str, deadline: float, progress: Progress) -> bool:
    """Put back what `change` held before this run; True when something had to be restored.

    Each case reads the object first: a request that failed may still have been carried out.
    """
    kind, name, namespace = _locate(change.manifest)
    current = cluster.find(kind, name, namespace)
    if stage == "create":
        if not _ours(current, change.desired):
            return False
        cluster.delete(kind, name, namespace, propagation="Foreground")
        wait_gone(cluster, kind, name, namespace, deadline, progress)
        return True
    assert change.live is not None
    old = change.live
    if stage == "update":
        if current is None:
            cluster.create(clean(old))
            return True
        if not _ours(current, change.desired):
            return False
        body = copy.deepcopy(old)
        body["metadata"].pop("managedFields", None)
        replace_retrying(cluster, body, current, lambda live: _ours(live, change.desired))
        return True
    # replace: the old object may be intact, terminating, gone, or already replaced by ours
    if current is not None:
        same_uid = current["metadata"].get("uid") == old["metadata"].get("uid")
        if same_uid and not _terminating(current):
            return False
        if not same_uid and not _ours(current, change.desired):
            return False  # someone else's object: leave it
        if not same_uid:
            cluster.delete(kind, name, namespace, propagation="Foreground")
        wait_gone(cluster, kind, name, namespace, deadline, progress)
    cluster.create(clean(old))
    return True


# ---------------------------------------------------------------------------- create


@dataclass
class Create:
    """Create every object; an existing one is an error naming it. Documents are created
    concurrently, each in install order, and a document that fails is removed again whole."""

    cluster: Cluster
    dry_run: DryRun = DryRun.NONE
    timeout: float = DEFAULT_TIMEOUT
    progress: Progress = no_progress

    def run(self, manifests: list[Manifest]) -> tuple[list[str], list[str]]:
        """(report lines, error lines)."""
        lines: dict[int, str] = {}
        errors: list[str] = []
        first = [m for m in manifests if not m.namespace]  # namespaces, priority classes
        rest = [m for m in manifests if m.namespace]
        new_namespaces = set()
        for manifest in first:
            line, error = self._create_shared(manifest)
            if line:
                lines[id(manifest)] = line
                if line.endswith("created" + self.dry_run.suffix):
                    new_namespaces.add(manifest.name)
            if error:
                errors.append(error)
        groups: dict[int, list[Manifest]] = {}
        for manifest in rest:
            groups.setdefault(id(manifest.document), []).append(manifest)
        with ThreadPoolExecutor(WORKERS) as pool:
            results = pool.map(
                lambda group: self._create_document(group, new_namespaces), groups.values()
            )
            for group_lines, group_errors in results:
                lines.update(group_lines)
                errors.extend(group_errors)
        return [lines[id(m)] for m in manifests if id(m) in lines], errors

    def _create_shared(self, manifest: Manifest) -> tuple[str, str]:
        """A namespace that exists is fine (users' namespaces often do); anything else not."""
        desired = desired_object(manifest)
        try:
            if self.dry_run is DryRun.CLIENT:
                return f"{manifest.ref} created{self.dry_run.suffix}", ""
            self.cluster.create(desired, dry_run=self.dry_run is DryRun.SERVER)
            return f"{manifest.ref} created{self.dry_run.suffix}", ""
        except AlreadyExists:
            if manifest.kind == "Namespace":
                return f"{manifest.ref} unchanged", ""
            return "", f"{manifest.ref} already exists (gpuctl apply replaces it)"
        except KubeError as exc:
            return "", f"{manifest.ref}: {exc}"

    def _create_document(
        self, group: list[Manifest], new_namespaces: set[str]
    ) -> tuple[dict[int, str], list[str]]:
        lines: dict[int, str] = {}
        created: list[Manifest] = []
        for manifest in group:
            if self.dry_run is DryRun.CLIENT or (
                self.dry_run is DryRun.SERVER and manifest.namespace in new_namespaces
            ):
                lines[id(manifest)] = f"{manifest.ref} created{self.dry_run.suffix}"
                continue
            try:
                self.cluster.create(desired_object(manifest), dry_run=self.dry_run is DryRun.SERVER)
            except KubeError as exc:
                reason = (
                    "already exists (gpuctl apply replaces it)"
                    if isinstance(exc, AlreadyExists)
                    else str(exc)
                )
                undone = self._remove(created)
                source = f"{manifest.document.source}"
                return {}, [f"{manifest.ref}: {reason}; nothing from {source} was created{undone}"]
            created.append(manifest)
            lines[id(manifest)] = f"{manifest.ref} created{self.dry_run.suffix}"
        return lines, []

    def _remove(self, created: list[Manifest]) -> str:
        if self.dry_run is not DryRun.NONE:
            return ""
        deadline = time.monotonic() + self.timeout
        failed = []
        for manifest in reversed(created):
            kind, name, namespace = _locate(manifest)
            try:
                self.cluster.delete(kind, name, namespace, propagation="Foreground")
                wait_gone(self.cluster, kind, name, namespace, deadline)
            except NotFound:
                continue
            except (KubeError, WaitTimeout) as exc:
                failed.append(f"{manifest.ref} ({exc})")
        return f" (could not remove: {'; '.join(failed)})" if failed else ""


# ------------------------------------------------------------------------------ diff


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


@dataclass
class Diff:
    cluster: Cluster

    def run(self, manifests: list[Manifest]) -> str:
        """A unified diff, live → rendered, of every object that differs ("" when none)."""
        live = read_live(self.cluster, manifests)
        chunks: list[str] = []
        for manifest in manifests:
            current = live[manifest.identity]
            before = "" if current is None else _dump(project(current, manifest.obj))
            after = _dump(manifest.obj)
            if before == after:
                continue
            label = f"{manifest.namespace or '-'}/{manifest.ref}"
            chunks.extend(
                difflib.unified_diff(
                    before.splitlines(keepends=True),
                    after.splitlines(keepends=True),
                    fromfile=f"live/{label}",
                    tofile=f"rendered/{label}",
                )
            )
        return "".join(chunks)


def _dump(obj: Any) -> str:
    return yaml.dump(obj, Dumper=yaml.CSafeDumper, sort_keys=True, allow_unicode=True)


# ---------------------------------------------------------------------------- delete


@dataclass
class Delete:
    """Delete objects with foreground propagation (no orphaned pods holding GPUs)."""

    cluster: Cluster
    force: bool = False
    wait: bool = False
    timeout: float = DEFAULT_TIMEOUT
    include_namespaces: bool = False
    progress: Progress = no_progress

    def run(self, targets: Iterable[tuple[str, str, str | None]]) -> tuple[list[str], list[str]]:
        """Targets as (kind, name, namespace), deleted in the order given. (lines, errors)."""
        lines, errors, asked = [], [], []
        for kind, name, namespace in targets:
            if kind == "Namespace" and not self.include_namespaces:
                continue
            try:
                self.cluster.delete(
                    kind,
                    name,
                    namespace,
                    propagation="Foreground",
                    grace_period=0 if self.force else None,
                )
            except NotFound:
                errors.append(f"{ref(kind, name)} not found")
                continue
            except KubeError as exc:
                errors.append(f"{ref(kind, name)}: {exc}")
                continue
            asked.append((kind, name, namespace))
            lines.append(f"{ref(kind, name)} deleted")
        if self.wait:
            deadline = time.monotonic() + self.timeout
            for kind, name, namespace in asked:
                try:
                    wait_gone(self.cluster, kind, name, namespace, deadline, self.progress)
                except (KubeError, WaitTimeout) as exc:
                    errors.append(str(exc))
            self.progress("")
        return lines, errors

    @staticmethod
    def targets_of(manifests: list[Manifest]) -> list[tuple[str, str, str | None]]:
        """Workloads before the services and namespaces they use: reverse install order."""
        return [_locate(m) for m in reversed(manifests)]

    def targets_of_job(self, name: str, namespace: str) -> list[tuple[str, str, str | None]]:
        """The objects gpuctl made for job `name`: its workload, Services and autoscaler."""
        candidates = [
            ("HorizontalPodAutoscaler", name),
            ("Job", name),
            ("Deployment", name),
            ("StatefulSet", name),
            ("Service", c.SERVICE_PREFIX + name),
            ("Service", name),
        ]
        with ThreadPoolExecutor(WORKERS) as pool:
            found = list(
                pool.map(lambda kn: self.cluster.find(kn[0], kn[1], namespace), candidates)
            )
        targets: list[tuple[str, str, str | None]] = []
        for (kind, object_name), live in zip(candidates, found, strict=True):
            labels = ((live or {}).get("metadata") or {}).get("labels") or {}
            if live and labels.get(c.Labels.MANAGED_BY) == c.MANAGED_BY_VALUE:
                targets.append((kind, object_name, namespace))
        return targets


# ------------------------------------------------------------------------------ wait


def _pods(cluster: Cluster, manifest: Manifest) -> list[dict[str, Any]]:
    label = c.Labels.JOB_NAME if manifest.kind == "Job" else c.Labels.APP
    return cluster.list("Pod", manifest.namespace, label_selector=f"{label}={manifest.name}")


def _creation_refused(cluster: Cluster, manifest: Manifest, obj: dict[str, Any]) -> str:
    """The newest FailedCreate event of the workload (a Deployment's: of its ReplicaSets):
    why the controller could not make pods, such as an exceeded quota. "" when none."""
    owners = {obj["metadata"].get("uid")}
    if manifest.kind == "Deployment":
        replica_sets = cluster.list(
            "ReplicaSet", manifest.namespace, label_selector=f"{c.Labels.APP}={manifest.name}"
        )
        owners |= {rs["metadata"].get("uid") for rs in replica_sets}
    events = [
        event
        for event in cluster.list("Event", manifest.namespace, field_selector="reason=FailedCreate")
        if (event.get("involvedObject") or {}).get("uid") in owners
    ]
    events.sort(key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")
    return str(events[-1].get("message") or "") if events else ""


def _pod_trouble(pod: dict[str, Any]) -> tuple[str, bool]:
    """(reason in words, fatal now?) for a pod that will not start; ("", False) otherwise."""
    status = pod.get("status") or {}
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting") or {}
        reason = waiting.get("reason", "")
        if reason in ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff"):
            words = c.CONTAINER_WAITING_REASONS.get(reason, reason)
            detail = waiting.get("message", "")
            return f"{words} ({reason}{': ' + detail if detail else ''})", True
    for condition in status.get("conditions") or []:
        if (
            condition.get("type") == "PodScheduled"
            and condition.get("status") == "False"
            and condition.get("reason") == "Unschedulable"
        ):
            return f"unschedulable: {condition.get('message', '')}", False
    return "", False


def _ready(obj: dict[str, Any], pods: list[dict[str, Any]]) -> tuple[bool, str]:
    """(running yet?, why it failed or ""). A Job counts pending pods as active, so it runs
    when one of its pods does (or it already succeeded)."""
    kind, spec, status = obj["kind"], obj.get("spec") or {}, obj.get("status") or {}
    if kind == "Job":
        for condition in status.get("conditions") or []:
            if condition.get("type") == "Failed" and condition.get("status") == "True":
                why = f"{condition.get('reason', '')} {condition.get('message', '')}".strip()
                return False, f"job failed: {why}"
        phases = {(pod.get("status") or {}).get("phase") for pod in pods}
        return bool(status.get("succeeded") or phases & {"Running", "Succeeded"}), ""
    wanted = spec.get("replicas", 1)
    if kind == "Deployment":
        return wanted == 0 or status.get("availableReplicas", 0) >= wanted, ""
    if kind == "StatefulSet":
        return wanted == 0 or status.get("readyReplicas", 0) >= wanted, ""
    return True, ""


def wait_running(
    cluster: Cluster,
    manifests: list[Manifest],
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress = no_progress,
    unschedulable_grace: float = 10.0,
    poll: float = 0.5,
) -> None:
    """Until every workload runs; fails fast on image pulls, crash loops, a failed Job, pods
    refused by a quota, or a pod the scheduler keeps refusing for `unschedulable_grace`
    seconds. A timeout names the last trouble seen."""
    workloads = [m for m in manifests if m.kind in ("Job", "Deployment", "StatefulSet")]
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    pending = {m.ref: m for m in workloads}
    troubles: dict[str, str] = {}
    while pending:
        for key, manifest in list(pending.items()):
            obj = cluster.get(*_locate(manifest))
            pods = _pods(cluster, manifest)
            running, failure = _ready(obj, pods)
            if failure:
                raise GpuctlError(f"{key}: {failure}")
            if running:
                del pending[key]
                continue
            for pod in pods:
                trouble, fatal = _pod_trouble(pod)
                if trouble:
                    troubles[key] = f"pod {pod['metadata']['name']} {trouble}"
                if trouble and (fatal or time.monotonic() - started >= unschedulable_grace):
                    raise GpuctlError(f"{key}: {troubles[key]}")
            if not pods:
                refusal = _creation_refused(cluster, manifest, obj)
                if refusal:
                    troubles[key] = f"cannot create its pods: {refusal}"
                    if "exceeded quota" in refusal:
                        raise GpuctlError(f"{key}: {troubles[key]}")
        if not pending:
            break
        if time.monotonic() >= deadline:
            why = "; ".join(f"{key}: {troubles[key]}" for key in pending if key in troubles)
            raise WaitTimeout(
                f"not running after {timeout:.0f}s: {', '.join(pending)}"
                + (f" ({why})" if why else "")
            )
        progress(f"waiting for {', '.join(pending)} to run ({time.monotonic() - started:.0f}s)")
        time.sleep(poll)
    progress("")
