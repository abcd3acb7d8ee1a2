"""`create`: create every object; one that exists already is an error naming it (a job
whose workload exists is named as the job, before anything is written).

All or nothing per command: when any object cannot be created, everything this run created
is removed again, and the message says so (or names what could not be removed). Namespaces
that exist already are fine (users' namespaces often do) and are left alone.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from gpuctl.cluster.errors import AlreadyExists, KubeError, NotFound
from gpuctl.inventory.jobs import job_of
from gpuctl.render.engine import Manifest
from gpuctl.verbs import kueue_queues, notebook_tokens
from gpuctl.verbs.common import (
    WORKERS,
    DryRun,
    VerbResult,
    job_identities,
    locate,
    objects_of_jobs,
    result_of,
    wait_gone,
)
from gpuctl.verbs.delete import Delete
from gpuctl.verbs.errors import WaitTimeout
from gpuctl.verbs.pinning import describe
from gpuctl.verbs.plan import JOB_OBJECT_KINDS, SPEC_KINDS, desired_object
from gpuctl.verbs.pool_labels import PoolLabels, node_results
from gpuctl.verbs.wait import announce_then_wait
from gpuctl.verbs.writes import WriteVerb

Failure = tuple[str, KubeError] | None  # an error line and the cluster error behind it
JobKey = tuple[str, str]  # (namespace, job name)


@dataclass(frozen=True)
class Marks:
    """Labels and annotations a job's workload also carries, outside its render fingerprint
    (the API's Idempotency-Key)."""

    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)

    def on(self, manifest: Manifest, obj: dict[str, Any]) -> dict[str, Any]:
        if manifest.kind in SPEC_KINDS:
            meta = obj["metadata"]
            meta["labels"] = {**(meta.get("labels") or {}), **self.labels}
            meta["annotations"] = {**(meta.get("annotations") or {}), **self.annotations}
        return obj


@dataclass
class Create(WriteVerb):
    created: list[Manifest] = field(default_factory=list)
    marks: Marks = field(default_factory=Marks)  # on each workload it creates

    def run(self, manifests: list[Manifest]) -> VerbResult:
        """Check the pool files' nodes and the jobs' placement, pin the workloads that ask for
        a placement strategy to their nodes (nothing is written when any is refused), delete
        what a half-finished deletion left of these jobs, create the pools and label their
        nodes, then create the rest (so that no pod of a pool waits for its nodes' labels),
        then wait when asked to. When the rest fails, the pools go too (and their nodes'
        labels): nothing was created. A job that exists already is refused first, by its name,
        and nothing is written."""
        live = self._live_objects(manifests)
        existing = _existing_jobs(live, self.dry_run)
        if existing.errors:
            return announce_then_wait(existing, self.on_written, None, manifests, False)
        opening = self.open(manifests, keep_live=False, nothing="nothing was created")
        labels, pools, others = opening.labels, opening.pools, opening.others
        finished = self._finish_deletions(live)
        result = self._create_all(pools) if pools else VerbResult(dry_run=self.dry_run)
        lines, errors = labels.write(
            [item.line() for item in result.objects],
            self.dry_run.suffix,
            dry_run=self.dry_run is not DryRun.NONE,
        )
        result.objects += node_results(lines, self.dry_run.suffix)
        result.errors += errors
        if others and not result.errors:
            rest = self._create_all(others)
            if rest.errors and pools and self.dry_run is DryRun.NONE:
                rest.errors += self._unlabel(labels, lines)
                result = rest
            else:
                result.extend(rest)
        if others and result.ok:
            result.extend(kueue_queues.ensure(self.cluster, others, self.dry_run))
            result.extend(notebook_tokens.ensure(self.cluster, others, self.dry_run))
        result.objects[:0] = opening.priority_classes + finished.objects
        result.errors[:0] = finished.errors
        result.causes[:0] = finished.causes
        describe(result, opening.pins)
        result.warnings += opening.placement.warnings
        may_wait = result.ok and self.dry_run is DryRun.NONE
        return announce_then_wait(result, self.on_written, self.wait, opening.manifests, may_wait)

    def _live_objects(self, manifests: list[Manifest]) -> dict[JobKey, list[dict[str, Any]]]:
        """What lives of these jobs, by job; nothing is read for a client dry run."""
        if self.dry_run is DryRun.CLIENT:
            return {}
        by_job: dict[JobKey, list[dict[str, Any]]] = {}
        for obj in objects_of_jobs(self.cluster, job_identities(manifests)):
            by_job.setdefault(job_of(obj), []).append(obj)
        return by_job

    def _finish_deletions(self, live: dict[JobKey, list[dict[str, Any]]]) -> VerbResult:
        """Delete (and wait for) what is left of these jobs when their workload is gone: a
        deletion that stopped half-way leaves a Service or a PodDisruptionBudget that would
        make the create fail, or act on the new pods. (A job whose workload exists was
        refused before.)"""
        if self.dry_run is not DryRun.NONE:
            return VerbResult()
        leftovers = [
            obj
            for objects in live.values()
            if not any(obj["kind"] in SPEC_KINDS for obj in objects)
            for obj in objects
        ]
        if not leftovers:
            return VerbResult()
        leftovers.sort(key=lambda obj: JOB_OBJECT_KINDS.index(obj["kind"]))
        deleted = Delete(self.cluster, wait=True, timeout=self.timeout, progress=self.progress)
        result = deleted.run(
            (obj["kind"], obj["metadata"]["name"], obj["metadata"]["namespace"])
            for obj in leftovers
        )
        for item in result.objects:
            item.detail = "(left of a half-deleted job)"
        return result

    def _unlabel(self, labels: PoolLabels, written: list[str]) -> list[str]:
        """After a failure that removed the new pools: take their labels off the nodes again;
        the error lines of what could not be undone."""
        if not any(line.endswith(" labeled") or " labeled (" in line for line in written):
            return []
        _, errors = labels.unlabel_all()
        return [f"{line}: its pool label stays" for line in errors]

    def _create_all(self, manifests: list[Manifest]) -> VerbResult:
        """Cluster-scoped objects and namespaces first, then each document's objects in
        install order, documents concurrently."""
        outcomes: dict[int, str] = {}
        failed = VerbResult(dry_run=self.dry_run)
        shared = [m for m in manifests if not m.namespace]
        for manifest in shared:
            outcome, failure = self._create_one(manifest, shared=True)
            outcomes[id(manifest)] = outcome
            if failure:
                failed.fail(*failure)
        new_namespaces = {
            m.name for m in shared if m.kind == "Namespace" and outcomes[id(m)] == "created"
        }
        groups: dict[int, list[Manifest]] = {}
        for manifest in manifests:
            if manifest.namespace:
                groups.setdefault(id(manifest.document), []).append(manifest)
        with ThreadPoolExecutor(WORKERS) as pool:
            for group_outcomes, failure in pool.map(
                lambda group: self._create_document(group, new_namespaces), groups.values()
            ):
                outcomes.update(group_outcomes)
                if failure:
                    failed.fail(*failure)
        if failed.errors:
            failed.errors.append(self._remove_created())
            return failed
        objects = [result_of(m, outcomes[id(m)]) for m in manifests if outcomes.get(id(m))]
        return VerbResult(objects, dry_run=self.dry_run)

    def _create_one(self, manifest: Manifest, *, shared: bool = False) -> tuple[str, Failure]:
        """(outcome, failure): "created" / "unchanged" (a namespace that exists), or the error
        line with the cluster's error."""
        if self.dry_run is DryRun.CLIENT:
            return "created", None
        try:
            obj = self.marks.on(manifest, desired_object(manifest))
            self.cluster.create(obj, dry_run=self.dry_run is DryRun.SERVER)
        except AlreadyExists as exc:
            if shared and manifest.kind == "Namespace":
                return "unchanged", None
            return "", (f"{manifest.ref}: already exists (gpuctl apply replaces it)", exc)
        except KubeError as exc:
            return "", (f"{manifest.ref}: {exc}", exc)
        if self.dry_run is DryRun.NONE:
            self.created.append(manifest)
        return "created", None

    def _create_document(
        self, group: list[Manifest], new_namespaces: set[str]
    ) -> tuple[dict[int, str], Failure]:
        """One document's objects in order; stops at the first failure."""
        outcomes: dict[int, str] = {}
        for manifest in group:
            if self.dry_run is DryRun.SERVER and manifest.namespace in new_namespaces:
                outcomes[id(manifest)] = "created"  # its namespace does not exist to check in
                continue
            outcome, failure = self._create_one(manifest)
            if failure:
                return outcomes, failure
            outcomes[id(manifest)] = outcome
        return outcomes, None

    def _remove_created(self) -> str:
        """Delete what this run created, newest first; what exists afterwards, in words."""
        if self.dry_run is not DryRun.NONE or not self.created:
            return "nothing was created"
        deadline = time.monotonic() + self.timeout
        failed = []
        for manifest in reversed(self.created):
            kind, name, namespace = locate(manifest)
            try:
                self.cluster.delete(kind, name, namespace, propagation="Foreground")
                wait_gone(self.cluster, kind, name, namespace, deadline, self.progress)
            except NotFound:
                continue
            except (KubeError, WaitTimeout) as exc:
                failed.append(f"{manifest.ref} ({exc})")
        self.progress("")
        removed = ", ".join(m.ref for m in self.created)
        if failed:
            return (
                f"removed again what this run created, except {'; '.join(failed)}: "
                "those still exist"
            )
        return f"nothing was created (removed again: {removed})"


def _existing_jobs(live: dict[JobKey, list[dict[str, Any]]], dry_run: DryRun) -> VerbResult:
    """Each job whose workload exists already, by its name, with the cluster's AlreadyExists
    behind it (the REST API's 409); empty when none does. It comes before any write, so
    nothing was created."""
    result = VerbResult(dry_run=dry_run)
    for (namespace, job), objects in sorted(live.items()):
        if not any(obj["kind"] in SPEC_KINDS for obj in objects):
            continue
        line = (
            f"job {job} already exists in namespace {namespace}: use apply to change it, or "
            "delete it first"
        )
        result.fail(line, AlreadyExists(line, status=409, reason="AlreadyExists"))
    if result.errors:
        result.fail("nothing was created")
    return result
