"""What the verbs share: dry-run modes, the result of a verb, reading live objects and waiting
for a deletion (the errors a verb raises are in verbs/errors.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.client import KubeError, ref
from gpuctl.cluster.errors import Forbidden
from gpuctl.render.engine import Manifest
from gpuctl.verbs.errors import WaitTimeout
from gpuctl.verbs.plan import JOB_OBJECT_KINDS, SCALED_KINDS

WORKERS = 8  # concurrent requests to the API server (kubectl's client-side QPS is 5-50)
LIST_AT = 32  # objects of one kind in one namespace from which one list reads them all
DEFAULT_TIMEOUT = 300.0
Progress = Callable[[str], None]
Target = tuple[str, str, str | None]  # kind, name, namespace (None: cluster-scoped)


def no_progress(_: str) -> None:
    pass


class DryRun(Enum):
    NONE = "none"
    CLIENT = "client"
    SERVER = "server"

    @property
    def suffix(self) -> str:
        return {"none": "", "client": " (dry run)", "server": " (server dry run)"}[self.value]


@dataclass
class ObjectResult:
    """One object a verb acted on, and what became of it in kubectl's words: created,
    configured, replaced, unchanged, pruned, deleted, labeled, unlabeled, paused, resumed."""

    kind: str
    name: str
    namespace: str | None
    outcome: str
    obj: dict[str, Any] | None = None  # as sent (writes) or as read (unchanged)
    detail: str = ""  # e.g. "(scaled from 2 to 0)"

    @property
    def ref(self) -> str:
        return ref(self.kind, self.name)

    def line(self, suffix: str = "") -> str:
        return f"{self.ref} {self.outcome}{suffix}" + (f" {self.detail}" if self.detail else "")


@dataclass
class VerbResult:
    """What a verb did: the objects in order, the problems that did not stop it (each names
    what exists afterwards), warnings worth a look, and notes: what it did besides the
    objects (a line each, printed after theirs).

    `causes` are the typed cluster errors behind `errors` (AlreadyExists, Forbidden, Invalid,
    Conflict, ...), in the order met, for a front end that answers by type (the REST API's
    HTTP codes); an error line of the verb's own (a node in another pool) has none."""

    objects: list[ObjectResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    dry_run: DryRun = DryRun.NONE
    causes: list[KubeError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # error index -> what asking to overwrite would do ("replace it"), for the front end's hint
    remedies: dict[int, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def lines(self) -> list[str]:
        return [item.line(self.dry_run.suffix) for item in self.objects] + self.notes

    def extend(self, other: VerbResult) -> None:
        self.objects += other.objects
        self.notes += other.notes
        self.remedies.update({len(self.errors) + i: r for i, r in other.remedies.items()})
        self.errors += other.errors
        self.warnings += other.warnings
        self.causes += other.causes

    def fail(self, line: str, cause: KubeError | None = None) -> None:
        """Record an error line, and the cluster error behind it when there is one."""
        self.errors.append(line)
        if cause is not None:
            self.causes.append(cause)

    def refuse(self, line: str, remedy: str) -> None:
        """Record an error line that asking to overwrite would lift (`remedy`: what it would
        do); the front end adds how to ask for it (`worded`)."""
        self.remedies[len(self.errors)] = remedy
        self.errors.append(line)

    def worded(self, hint: Callable[[str], str]) -> list[str]:
        """The error lines, each refusal with the front end's `hint(remedy)` after it."""
        return [
            f"{line}; {hint(self.remedies[index])}" if index in self.remedies else line
            for index, line in enumerate(self.errors)
        ]


def result_of(manifest: Manifest, outcome: str, obj: dict[str, Any] | None = None) -> ObjectResult:
    return ObjectResult(manifest.kind, manifest.name, manifest.namespace or None, outcome, obj)


def ours(obj: dict[str, Any] | None, desired: dict[str, Any]) -> bool:
    """Is `obj` the object this run wrote (same fingerprint annotation)?"""
    if obj is None:
        return False
    want = desired["metadata"]["annotations"][c.RENDER_HASH_ANNOTATION]
    have = ((obj.get("metadata") or {}).get("annotations") or {}).get(c.RENDER_HASH_ANNOTATION)
    return bool(have == want)


def locate(manifest: Manifest) -> Target:
    return manifest.kind, manifest.name, manifest.namespace or None


def read_live(
    cluster: ClusterAPI, manifests: Sequence[Manifest]
) -> dict[tuple[str, str, str, str], dict[str, Any] | None]:
    """The live copy of every manifest's object (None when absent). Where LIST_AT or more of
    the objects are of one kind in one namespace, one list reads them all (a re-apply of a
    thousand jobs is a few lists, not a thousand reads); the rest are read one by one, with
    bounded concurrency. A caller who may get but not list those objects reads them one by
    one."""
    groups: dict[tuple[str, str | None], list[Manifest]] = {}
    for manifest in manifests:
        groups.setdefault((manifest.kind, manifest.namespace or None), []).append(manifest)
    found: dict[tuple[str, str, str, str], dict[str, Any] | None] = {}
    one_by_one: list[Manifest] = []
    for (kind, namespace), members in groups.items():
        listed = _listed_by_name(cluster, kind, namespace) if len(members) >= LIST_AT else None
        if listed is None:
            one_by_one += members
            continue
        for manifest in members:
            found[manifest.identity] = listed.get(manifest.name)
    with ThreadPoolExecutor(WORKERS) as pool:
        read = pool.map(lambda m: cluster.find(*locate(m)), one_by_one)
        found.update((m.identity, live) for m, live in zip(one_by_one, read, strict=True))
    return {m.identity: found[m.identity] for m in manifests}


def _listed_by_name(
    cluster: ClusterAPI, kind: str, namespace: str | None
) -> dict[str, dict[str, Any]] | None:
    """Every object of the kind in the namespace by name; None when they may not be listed."""
    try:
        objects = cluster.list(kind, namespace)
    except Forbidden:
        return None
    return {str((obj.get("metadata") or {}).get("name")): obj for obj in objects}


def live_autoscalers(
    cluster: ClusterAPI,
    manifests: list[Manifest],
    live: dict[tuple[str, str, str, str], dict[str, Any] | None],
) -> list[dict[str, Any]]:
    """The HorizontalPodAutoscalers (anyone's: `kubectl autoscale` too) in each namespace
    where a workload to be updated lives: one list per namespace, none when there is none."""
    namespaces = sorted(
        {m.namespace for m in manifests if m.kind in SCALED_KINDS and live.get(m.identity)}
    )
    found: list[dict[str, Any]] = []
    for namespace in namespaces:
        found += cluster.list("HorizontalPodAutoscaler", namespace)
    return found


def wait_gone(
    cluster: ClusterAPI,
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
        _watch_until_deleted(cluster, kind, live, deadline, progress, started)


def _watch_until_deleted(
    cluster: ClusterAPI,
    kind: str,
    live: dict[str, Any],
    deadline: float,
    progress: Progress,
    started: float,
) -> None:
    """One watch of the object; returns when it was deleted or the watch ended."""
    meta = live["metadata"]
    remaining = max(1, min(30, int(deadline - time.monotonic())))
    try:
        for event, _obj in cluster.watch(
            kind,
            meta.get("namespace"),
            resource_version=meta["resourceVersion"],
            field_selector=f"metadata.name={meta['name']}",
            timeout_seconds=remaining,
        ):
            if event == "DELETED":
                return
            what = ref(kind, meta["name"])
            progress(f"waiting for {what} to be deleted ({time.monotonic() - started:.0f}s)")
    except KubeError:
        time.sleep(0.1)


def job_identities(manifests: list[Manifest]) -> list[tuple[str, str]]:
    """(namespace, job) of every job these manifests render (pools and quotas are not jobs)."""
    found = set()
    for manifest in manifests:
        labels = manifest.obj["metadata"].get("labels") or {}
        if c.Labels.JOB_TYPE in labels and c.Labels.INSTANCE in labels and manifest.namespace:
            found.add((manifest.namespace, labels[c.Labels.INSTANCE]))
    return sorted(found)


def objects_of_job(cluster: ClusterAPI, namespace: str, job: str) -> list[dict[str, Any]]:
    """Every live object gpuctl made for `job`, found by its identity label."""
    return objects_of_jobs(cluster, [(namespace, job)])


def objects_of_jobs(cluster: ClusterAPI, identities: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Every live object gpuctl made for these (namespace, job)s. One list per kind and
    namespace, whatever the number of jobs (as `kubectl apply --prune` lists): by the identity
    label for one job, else every gpuctl object of the kind, kept when its job is asked for."""
    jobs_by_namespace: dict[str, set[str]] = {}
    for namespace, job in identities:
        jobs_by_namespace.setdefault(namespace, set()).add(job)
    requests = []
    for namespace, jobs in sorted(jobs_by_namespace.items()):
        selector = f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE}"
        if len(jobs) == 1:
            selector += f",{c.Labels.INSTANCE}={next(iter(jobs))}"
        requests += [(kind, namespace, selector, jobs) for kind in JOB_OBJECT_KINDS]
    with ThreadPoolExecutor(WORKERS) as pool:
        lists = pool.map(lambda r: (r[3], cluster.list(r[0], r[1], label_selector=r[2])), requests)
        return [
            obj
            for jobs, objects in lists
            for obj in objects
            if ((obj["metadata"].get("labels") or {}).get(c.Labels.INSTANCE)) in jobs
        ]
