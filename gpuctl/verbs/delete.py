"""`delete`: the objects specs render, or a job's objects found by its identity label.

Foreground propagation, so no orphaned pod keeps holding GPUs. Namespaces are deleted only
when asked (`include_namespaces`); a pool file's nodes lose their pool label. A deleted job's
pushed values (POST /metrics/custom) are deleted from the Pushgateway given, so that a new job
of the same name starts without them; a Pushgateway that fails leaves them, with a warning, and
the job is deleted all the same.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError, NotFound
from gpuctl.cluster.resources import ref
from gpuctl.inventory.jobs import JobNotFound
from gpuctl.monitoring.custom import Pushgateway, PushgatewayRefused, PushgatewayUnreachable
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.verbs import kueue_queues
from gpuctl.verbs.common import (
    DEFAULT_TIMEOUT,
    ObjectResult,
    Progress,
    Target,
    VerbResult,
    locate,
    no_progress,
    objects_of_job,
    wait_gone,
)
from gpuctl.verbs.errors import WaitTimeout
from gpuctl.verbs.plan import JOB_OBJECT_KINDS, SPEC_KINDS
from gpuctl.verbs.pool_labels import PoolLabels, node_results

KUEUE_DELETED = {
    "ClusterQueue": (
        "(Kueue removes it once no job it admitted is left; a job still queued there stays Queued)"
    ),
    "ResourceFlavor": "(Kueue removes it once no ClusterQueue uses it)",
}


@dataclass
class Delete:
    cluster: ClusterAPI
    force: bool = False  # no grace period: pods are killed at once
    wait: bool = False  # until the objects and their pods are gone
    timeout: float = DEFAULT_TIMEOUT
    include_namespaces: bool = False
    ignore_not_found: bool = False  # an object already gone is no error (kubectl's flag)
    progress: Progress = no_progress
    pushgateway: Pushgateway | None = None  # where jobs' pushed values are; None: nowhere

    def files(self, manifests: list[Manifest], node_labels: Sequence[NodeLabels]) -> VerbResult:
        """What the specs render, workloads before the Services and namespaces they use; the
        pools' nodes lose their pool label, and a pool's Kueue objects go with it (its
        LocalQueues in every namespace first)."""
        labels = PoolLabels(self.cluster, manifests, node_labels)
        labels.read_wrote()  # while the records exist
        queues = [m.name for m in manifests if m.kind == "ClusterQueue"]
        local_queues = kueue_queues.for_pools(self.cluster, queues) if queues else []
        result = self.run([*local_queues, *(locate(m) for m in reversed(manifests))])
        lines, errors = labels.unlabel_all()
        result.objects += node_results(lines)
        result.errors += errors
        self._forget_pushed(result, _jobs_deleted(manifests, result))
        return result

    def job(self, name: str, namespace: str) -> VerbResult:
        """Every object gpuctl made for job `name`: found by its identity label."""
        found = objects_of_job(self.cluster, namespace, name)
        if not found:
            raise JobNotFound(f"no job named {name!r} in namespace {namespace}")
        found.sort(key=lambda obj: JOB_OBJECT_KINDS.index(obj["kind"]))
        result = self.run((obj["kind"], obj["metadata"]["name"], namespace) for obj in found)
        if any(item.outcome == "deleted" for item in result.objects):
            self._forget_pushed(result, [(namespace, name)])
        return result

    def _forget_pushed(self, result: VerbResult, jobs: Iterable[tuple[str, str]]) -> None:
        """Delete the Pushgateway group of each deleted (namespace, job): a note when it is
        gone, a warning saying how to delete it by hand when the Pushgateway fails."""
        if self.pushgateway is None:
            return
        url = self.pushgateway.url
        for namespace, name in jobs:
            whose = f"values pushed by job {name} (namespace {namespace})"
            try:
                self.pushgateway.forget(namespace, name)
            except (PushgatewayUnreachable, PushgatewayRefused) as exc:
                result.warnings.append(
                    f"the Pushgateway may still hold {whose}: {exc}; delete them with "
                    f"`curl -X DELETE {url}/metrics/job/{name}/namespace/{namespace}`"
                )
            else:
                result.notes.append(f"the Pushgateway at {url} now holds no {whose}")

    def run(self, targets: Iterable[Target]) -> VerbResult:
        """Targets as (kind, name, namespace), deleted in the order given."""
        result = VerbResult()
        asked = []
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
            except NotFound as exc:
                # a pool made before Kueue was installed has no Kueue objects: not an error
                if not self.ignore_not_found and kind not in c.KUEUE_KINDS:
                    result.fail(f"{ref(kind, name)} not found", exc)
                continue
            except KubeError as exc:
                result.fail(f"{ref(kind, name)}: {exc}", exc)
                continue
            deleted = ObjectResult(kind, name, namespace, "deleted")
            if kind in c.KUEUE_KINDS:
                # not waited for: Kueue's finalizer keeps a ClusterQueue (and its flavor) while
                # a job it admitted is left; such jobs run on, but no job is admitted any more
                deleted.detail = KUEUE_DELETED.get(kind, "")
            else:
                asked.append((kind, name, namespace))
            result.objects.append(deleted)
        if self.wait:
            self._wait_gone(asked, result)
        return result

    def _wait_gone(self, asked: list[Target], result: VerbResult) -> None:
        deadline = time.monotonic() + self.timeout
        for kind, name, namespace in asked:
            try:
                wait_gone(self.cluster, kind, name, namespace, deadline, self.progress)
            except KubeError as exc:
                result.fail(str(exc), exc)
            except WaitTimeout as exc:
                result.fail(str(exc))
        self.progress("")


def _jobs_deleted(manifests: list[Manifest], result: VerbResult) -> list[tuple[str, str]]:
    """(namespace, job) of each job whose workload `result` deleted."""
    deleted = {(o.kind, o.name, o.namespace) for o in result.objects if o.outcome == "deleted"}
    jobs = set()
    for manifest in manifests:
        job = (manifest.obj["metadata"].get("labels") or {}).get(c.Labels.INSTANCE)
        if manifest.kind in SPEC_KINDS and job and locate(manifest) in deleted:
            jobs.add((manifest.namespace, str(job)))
    return sorted(jobs)
