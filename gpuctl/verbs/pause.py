"""`pause` and `resume`: suspend a Job, or scale a Deployment/StatefulSet to zero and back
(the workload kind's adapter says how).

A job that has finished (succeeded or failed) cannot be paused or resumed: there is nothing
left to suspend, and saying "paused" would be untrue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuctl import workloads
from gpuctl.cluster.api import ClusterAPI
from gpuctl.constants import Status
from gpuctl.errors import GpuctlError
from gpuctl.inventory import status
from gpuctl.verbs.common import ObjectResult, VerbResult
from gpuctl.workloads import Patch, WorkloadAdapter


class NotPausable(GpuctlError):
    pass


def _adapter(job: dict[str, Any], result: ObjectResult) -> WorkloadAdapter:
    found = workloads.adapter_of(job)
    if found is None:
        raise NotPausable(f"{result.ref} is not a workload; there is nothing to pause or resume")
    return found


def _finished(job: dict[str, Any], adapter: WorkloadAdapter) -> str:
    """How the job ended, in words ("has succeeded", "is being deleted"); "" while it lives."""
    if status.workload_status(job) == Status.TERMINATING:
        return "is being deleted"
    if adapter.finished(job):
        return f"has {adapter.status(job).lower()}"
    return ""


@dataclass
class _Toggle:
    """Pause and Resume: the same steps, with the adapter's patch for the one or the other."""

    cluster: ClusterAPI

    done = ""  # "paused" / "resumed"
    nothing_to = ""  # "pause" / "resume"
    already = ""  # the outcome when there is nothing to do

    def patch(self, adapter: WorkloadAdapter, job: dict[str, Any]) -> Patch:
        raise NotImplementedError

    def run(self, job: dict[str, Any]) -> VerbResult:
        meta = job["metadata"]
        item = ObjectResult(job["kind"], meta["name"], meta["namespace"], self.done)
        adapter = _adapter(job, item)
        finished = _finished(job, adapter)
        if finished:
            raise NotPausable(f"{item.ref} {finished}; there is nothing to {self.nothing_to}")
        patch = self.patch(adapter, job)
        if patch.body is None:
            item.outcome = self.already
        else:
            self.cluster.patch(adapter.kind, meta["name"], meta["namespace"], patch.body)
            item.detail = patch.detail
        return VerbResult(objects=[item])


@dataclass
class Pause(_Toggle):
    """Suspend a Job; scale a Deployment/StatefulSet to zero, remembering its replicas."""

    done = "paused"
    nothing_to = "pause"
    already = "is already paused"

    def patch(self, adapter: WorkloadAdapter, job: dict[str, Any]) -> Patch:
        return adapter.pause(job)


@dataclass
class Resume(_Toggle):
    """Resume a Job; scale a Deployment/StatefulSet back to the replicas it had."""

    done = "resumed"
    nothing_to = "resume"
    already = "is not paused"

    def patch(self, adapter: WorkloadAdapter, job: dict[str, Any]) -> Patch:
        return adapter.resume(job)
