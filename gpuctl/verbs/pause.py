"""`pause` and `resume`: suspend a Job, or scale a Deployment/StatefulSet to zero and back.

A Job that has finished (succeeded or failed) cannot be paused or resumed: there is nothing
left to suspend, and saying "paused" would be untrue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.constants import Status
from gpuctl.errors import GpuctlError
from gpuctl.inventory import status
from gpuctl.verbs.common import ObjectResult


class NotPausable(GpuctlError):
    pass


def _finished(job: dict[str, Any]) -> str:
    """How the job ended, in words ("has succeeded", "is being deleted"); "" while it lives."""
    state = status.workload_status(job)
    if state == Status.TERMINATING:
        return "is being deleted"
    if job["kind"] == "Job" and state in (Status.SUCCEEDED, Status.FAILED):
        return f"has {state.lower()}"
    return ""


@dataclass
class Pause:
    cluster: ClusterAPI

    def run(self, job: dict[str, Any]) -> ObjectResult:
        """Suspend a Job; scale a Deployment/StatefulSet to zero, remembering its replicas."""
        kind, meta = job["kind"], job["metadata"]
        result = ObjectResult(kind, meta["name"], meta["namespace"], "paused")
        finished = _finished(job)
        if finished:
            raise NotPausable(f"{result.ref} {finished}; there is nothing to pause")
        if kind == "Job":
            if (job.get("spec") or {}).get("suspend"):
                result.outcome = "is already paused"
                return result
            self.cluster.patch(kind, meta["name"], meta["namespace"], {"spec": {"suspend": True}})
            return result
        replicas = (job.get("spec") or {}).get("replicas", 1)
        if replicas == 0:
            result.outcome = "is already paused"
            return result
        patch = {
            "metadata": {"annotations": {c.PAUSED_REPLICAS_ANNOTATION: str(replicas)}},
            "spec": {"replicas": 0},
        }
        self.cluster.patch(kind, meta["name"], meta["namespace"], patch)
        result.detail = f"(scaled from {replicas} to 0)"
        return result


@dataclass
class Resume:
    cluster: ClusterAPI

    def run(self, job: dict[str, Any]) -> ObjectResult:
        kind, meta = job["kind"], job["metadata"]
        result = ObjectResult(kind, meta["name"], meta["namespace"], "resumed")
        finished = _finished(job)
        if finished:
            raise NotPausable(f"{result.ref} {finished}; there is nothing to resume")
        if kind == "Job":
            if not (job.get("spec") or {}).get("suspend"):
                result.outcome = "is not paused"
                return result
            self.cluster.patch(kind, meta["name"], meta["namespace"], {"spec": {"suspend": False}})
            return result
        if (job.get("spec") or {}).get("replicas", 1) != 0:
            result.outcome = "is not paused"
            return result
        remembered = (meta.get("annotations") or {}).get(c.PAUSED_REPLICAS_ANNOTATION, "1")
        replicas = int(remembered) if remembered.isdigit() else 1
        patch = {
            "metadata": {"annotations": {c.PAUSED_REPLICAS_ANNOTATION: None}},
            "spec": {"replicas": replicas},
        }
        self.cluster.patch(kind, meta["name"], meta["namespace"], patch)
        result.detail = f"(scaled to {replicas})"
        return result
