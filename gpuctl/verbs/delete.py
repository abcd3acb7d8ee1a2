"""`delete`: the objects specs render, or a job's objects found by its identity label.

Foreground propagation, so no orphaned pod keeps holding GPUs. Namespaces are deleted only
when asked (`include_namespaces`); a pool file's nodes lose their pool label.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError, NotFound
from gpuctl.cluster.resources import ref
from gpuctl.errors import GpuctlError
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.verbs.common import (
    DEFAULT_TIMEOUT,
    ObjectResult,
    Progress,
    Target,
    VerbResult,
    WaitTimeout,
    locate,
    no_progress,
    objects_of_job,
    wait_gone,
)
from gpuctl.verbs.plan import JOB_OBJECT_KINDS
from gpuctl.verbs.pool_labels import PoolLabels, node_results


class JobNotFound(GpuctlError):
    pass


@dataclass
class Delete:
    cluster: ClusterAPI
    force: bool = False  # no grace period: pods are killed at once
    wait: bool = False  # until the objects and their pods are gone
    timeout: float = DEFAULT_TIMEOUT
    include_namespaces: bool = False
    progress: Progress = no_progress

    def files(self, manifests: list[Manifest], node_labels: Sequence[NodeLabels]) -> VerbResult:
        """What the specs render, workloads before the Services and namespaces they use; the
        pools' nodes lose their pool label."""
        result = self.run(locate(m) for m in reversed(manifests))
        lines, errors = PoolLabels(self.cluster, manifests, node_labels).unlabel_all()
        result.objects += node_results(lines)
        result.errors += errors
        return result

    def job(self, name: str, namespace: str) -> VerbResult:
        """Every object gpuctl made for job `name`: found by its identity label."""
        found = objects_of_job(self.cluster, namespace, name)
        if not found:
            raise JobNotFound(f"no job named {name!r} in namespace {namespace}")
        found.sort(key=lambda obj: JOB_OBJECT_KINDS.index(obj["kind"]))
        return self.run((obj["kind"], obj["metadata"]["name"], namespace) for obj in found)

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
            except NotFound:
                result.errors.append(f"{ref(kind, name)} not found")
                continue
            except KubeError as exc:
                result.errors.append(f"{ref(kind, name)}: {exc}")
                continue
            asked.append((kind, name, namespace))
            result.objects.append(ObjectResult(kind, name, namespace, "deleted"))
        if self.wait:
            result.errors += self._wait_gone(asked)
        return result

    def _wait_gone(self, asked: list[Target]) -> list[str]:
        errors = []
        deadline = time.monotonic() + self.timeout
        for kind, name, namespace in asked:
            try:
                wait_gone(self.cluster, kind, name, namespace, deadline, self.progress)
            except (KubeError, WaitTimeout) as exc:
                errors.append(str(exc))
        self.progress("")
        return errors
