"""`apply`: create what is missing, leave what is unchanged, update in place what can be,
replace the rest by delete-then-create, and prune the objects of the same jobs that the new
render no longer produces. The cluster ends holding exactly the old objects or the new ones.

Every object to be written is first checked by a server-side dry run; nothing is written
before all pass and every job's lease is held (one writer per job at a time).
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Conflict, KubeError, NotFound
from gpuctl.cluster.resources import clean
from gpuctl.inventory.status import terminating
from gpuctl.render.engine import Manifest
from gpuctl.verbs import kueue_queues, notebook_tokens
from gpuctl.verbs.common import (
    DryRun,
    ObjectResult,
    Progress,
    VerbResult,
    job_identities,
    live_autoscalers,
    objects_of_jobs,
    ours,
    read_live,
    wait_gone,
)
from gpuctl.verbs.errors import ApplyFailed, WaitTimeout
from gpuctl.verbs.lease import JobLocks
from gpuctl.verbs.pinning import Pin, Pinning, describe
from gpuctl.verbs.plan import (
    Action,
    Change,
    NotManaged,
    fingerprint,
    make_plan,
    stored_spec_patch,
    with_version,
)
from gpuctl.verbs.pool_labels import node_results
from gpuctl.verbs.wait import announce_then_wait
from gpuctl.verbs.writes import WriteVerb


@dataclass
class _Step:
    """How far a change got; what rollback must undo."""

    change: Change
    stage: str  # "create", "update", "annotate", "replace", "prune"


@dataclass
class Apply(WriteVerb):
    force: bool = False  # replace every existing object, changed or not
    prune: bool = True
    steps: list[_Step] = field(default_factory=list)

    def run(self, manifests: list[Manifest]) -> VerbResult:
        """Check the pool files' nodes and the jobs' placement, pin the workloads that ask for
        a placement strategy (keeping a live pin that still fits), apply the pools, label (and
        unlabel) their nodes and set the pool records to the files, then apply the rest (so
        that no pod of a pool waits for its nodes' labels), then wait when asked to."""
        opening = self.open(
            manifests,
            keep_live=True,
            nothing="nothing was changed",
        )
        labels, pools, others = opening.labels, opening.pools, opening.others
        result = self._apply(pools) if pools else VerbResult(dry_run=self.dry_run)
        dry_run = self.dry_run is not DryRun.NONE
        lines, errors = labels.write(None, self.dry_run.suffix, dry_run=dry_run)
        if not dry_run:
            labels.sync_records()
        result.objects += node_results(lines, self.dry_run.suffix)
        result.errors += errors
        if others:
            self.steps = []  # a failure from here on rolls back the workloads only
            try:
                rest = self._apply(others)
            except ApplyFailed as exc:
                raise ApplyFailed(_kept_pools(str(exc), result)) from exc
            result.extend(rest)
            result.extend(kueue_queues.ensure(self.cluster, others, self.dry_run))
            result.extend(notebook_tokens.ensure(self.cluster, others, self.dry_run))
        result.objects[:0] = opening.priority_classes
        describe(result, opening.pins)
        result.warnings += opening.placement.warnings
        return announce_then_wait(
            result, self.on_written, self.wait, opening.manifests, not dry_run
        )

    def pinned(self, manifests: list[Manifest]) -> tuple[list[Manifest], list[Pin]]:
        """The manifests with resources.placement's pins (see gpuctl.verbs.pinning)."""
        pinning = Pinning(self.cluster, self.node_labels, keep_live=True, rng=self.rng)
        return pinning.run(manifests, "nothing was changed")

    def plan(self, manifests: list[Manifest]) -> list[Change]:
        prunable: list[dict[str, Any]] = []
        try:
            if self.prune:
                prunable = objects_of_jobs(self.cluster, job_identities(manifests))
            live = read_live(self.cluster, manifests)
            return make_plan(
                manifests,
                live,
                force=self.force,
                prunable=prunable,
                autoscalers=live_autoscalers(self.cluster, manifests, live),
            )
        except NotManaged as exc:
            raise ApplyFailed(f"nothing was changed: {exc}") from exc
        except KubeError as exc:
            raise ApplyFailed(
                f"nothing was changed: reading the live objects failed: {exc}"
            ) from exc

    def _apply(self, manifests: list[Manifest]) -> VerbResult:
        deadline = time.monotonic() + self.timeout
        if self.dry_run is not DryRun.NONE:
            changes = self.plan(manifests)
            if self.dry_run is DryRun.SERVER:
                self.check_with_server(changes)
            return self._result(changes)
        changes = self.plan(manifests)
        if all(change.action is Action.UNCHANGED for change in changes):
            return self._result(changes)  # nothing to write: no lock taken, reads only
        # A refusal leaves no trace, not even a lock. A Conflict here means another run is
        # writing these objects right now: the check is made again under the lock.
        checked = _signature(changes) if self.check_with_server(changes, racing=True) else []
        locks = JobLocks(self.cluster, job_identities(manifests), deadline, self.progress)
        with locks.held_for_run():
            changes = self.plan(manifests)  # again under the lock: no one else is writing now
            if _signature(changes) != checked:  # someone changed the jobs meanwhile
                self.check_with_server(changes)
            for change in changes:
                if change.action is Action.UNCHANGED:
                    continue
                try:
                    self._execute(change, deadline)
                except (KubeError, WaitTimeout) as exc:
                    raise ApplyFailed(self._rollback(change, exc)) from exc
        return self._result(changes)

    def _result(self, changes: list[Change]) -> VerbResult:
        objects = [
            ObjectResult(
                ch.kind,
                ch.name,
                ch.namespace,
                ch.action.done,
                ch.desired if ch.desired is not None else ch.live,
            )
            for ch in changes
        ]
        return VerbResult(objects, dry_run=self.dry_run)

    def check_with_server(self, changes: list[Change], *, racing: bool = False) -> bool:
        """Server-side dry run of every object to be written, before anything is written;
        False when, `racing` another writer, a Conflict left some object unchecked.

        An update the server refuses as immutable becomes a replace. For a replace, a dry-run
        create answers AlreadyExists only after validation and admission passed, which is
        exactly the check wanted. Objects in a namespace this plan creates cannot be checked
        (the namespace does not exist yet); they are new, so nothing is deleted for them.
        """
        new_namespaces = {
            ch.name for ch in changes if ch.action is Action.CREATE and ch.kind == "Namespace"
        }
        problems = []
        raced = False
        for change in changes:
            # an annotation patch holds nothing for the server to check (the text is capped
            # well below the server's size limit)
            if change.action in (Action.UNCHANGED, Action.PRUNE, Action.ANNOTATE):
                continue
            if change.namespace in new_namespaces:
                continue
            try:
                self._dry_run_one(change)
            except Conflict as exc:
                if not racing:
                    problems.append(f"{change.ref}: {exc}")
                raced = True
            except KubeError as exc:
                problems.append(f"{change.ref}: {exc}")
        if problems:
            raise ApplyFailed(
                "the server refused the new objects, nothing was changed: " + "; ".join(problems)
            )
        return not raced

    def _dry_run_one(self, change: Change) -> None:
        assert change.desired is not None
        if change.action is Action.UPDATE:
            try:
                update_in_place(self.cluster, change, dry_run=True)
                return
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

    def _execute(self, change: Change, deadline: float) -> None:
        kind, name, namespace = change.kind, change.name, change.namespace
        if change.action is Action.CREATE:
            assert change.desired is not None
            self.steps.append(_Step(change, "create"))
            self.cluster.create(change.desired)
        elif change.action is Action.UPDATE:
            self.steps.append(_Step(change, "update"))
            update_in_place(self.cluster, change)
        elif change.action is Action.ANNOTATE:
            assert change.desired is not None
            self.steps.append(_Step(change, "annotate"))
            self.cluster.patch(kind, name, namespace, stored_spec_patch(change.desired))
        elif change.action in (Action.REPLACE, Action.PRUNE):
            self.steps.append(_Step(change, change.action.value))
            with contextlib.suppress(NotFound):  # already gone is what we want
                self.cluster.delete(kind, name, namespace, propagation="Foreground")
            wait_gone(self.cluster, kind, name, namespace, deadline, self.progress)
            if change.action is Action.REPLACE:
                assert change.desired is not None
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
        return _rollback_message(failed, error, removed, restored, broken)


def _kept_pools(message: str, pools: VerbResult) -> str:
    """A failure after the pools were applied: what of them stays."""
    written = [line for line in pools.lines() if not line.endswith(" unchanged")]
    if not written:
        return message
    return f"the pools were applied first and stay so ({', '.join(written)}); then {message}"


def _signature(changes: list[Change]) -> list[tuple[str, str, str, str | None, str]]:
    """What a plan would write, to tell whether a second plan still matches the first."""
    return [
        (ch.action.value, ch.kind, ch.name, ch.namespace, fingerprint(ch.desired or {}))
        for ch in changes
    ]


def _rollback_message(
    failed: Change, error: Exception, removed: list[str], restored: list[str], broken: list[str]
) -> str:
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
    cluster: ClusterAPI,
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


def update_in_place(cluster: ClusterAPI, change: Change, *, dry_run: bool = False) -> None:
    """The in-place update of `change`, retried over Conflicts while nobody else changed the
    object's spec (its fingerprint annotation is still the one read before the plan)."""
    assert change.live is not None and change.desired is not None
    before = ((change.live.get("metadata") or {}).get("annotations") or {}).get(
        c.RENDER_HASH_ANNOTATION
    )

    def unchanged_by_others(live: dict[str, Any]) -> bool:
        annotations = (live.get("metadata") or {}).get("annotations") or {}
        return annotations.get(c.RENDER_HASH_ANNOTATION) == before

    # make_plan already carried the Service's allocated fields over into `desired`
    replace_retrying(cluster, change.desired, change.live, unchanged_by_others, dry_run=dry_run)


def undo(
    cluster: ClusterAPI, change: Change, stage: str, deadline: float, progress: Progress
) -> bool:
    """Put back what `change` held before this run; True when something had to be restored.

    Each case reads the object first: a request that failed may still have been carried out.
    """
    kind, name, namespace = change.kind, change.name, change.namespace
    current = cluster.find(kind, name, namespace)
    if stage == "create":
        assert change.desired is not None
        if not ours(current, change.desired):
            return False
        cluster.delete(kind, name, namespace, propagation="Foreground")
        wait_gone(cluster, kind, name, namespace, deadline, progress)
        return True
    assert change.live is not None
    if stage == "update":
        return _undo_update(cluster, change, current)
    if stage == "annotate":
        if current is None:
            return False
        cluster.patch(kind, name, namespace, stored_spec_patch(change.live))
        return True
    if stage == "prune":
        if current is not None and not terminating(current):
            return False
        if current is not None:
            wait_gone(cluster, kind, name, namespace, deadline, progress)
        cluster.create(clean(change.live))
        return True
    return _undo_replace(cluster, change, current, deadline, progress)


def _undo_update(cluster: ClusterAPI, change: Change, current: dict[str, Any] | None) -> bool:
    assert change.live is not None and change.desired is not None
    desired = change.desired
    if current is None:
        cluster.create(clean(change.live))
        return True
    if not ours(current, desired):
        return False
    body = copy.deepcopy(change.live)
    body["metadata"].pop("managedFields", None)
    replace_retrying(cluster, body, current, lambda live: ours(live, desired))
    return True


def _undo_replace(
    cluster: ClusterAPI,
    change: Change,
    current: dict[str, Any] | None,
    deadline: float,
    progress: Progress,
) -> bool:
    """The old object may be intact, terminating, gone, or already replaced by ours."""
    assert change.live is not None and change.desired is not None
    kind, name, namespace = change.kind, change.name, change.namespace
    old = change.live
    if current is not None:
        same_uid = current["metadata"].get("uid") == old["metadata"].get("uid")
        if same_uid and not terminating(current):
            return False
        if not same_uid and not ours(current, change.desired):
            return False  # someone else's object: leave it
        if not same_uid:
            cluster.delete(kind, name, namespace, propagation="Foreground")
        wait_gone(cluster, kind, name, namespace, deadline, progress)
    cluster.create(clean(old))
    return True
