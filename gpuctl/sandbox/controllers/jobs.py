"""The Job controller: creates a Job's pods (indexed or not), suspends and resumes it, and marks
it Complete or Failed."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers.base import (
    Controller,
    has_condition,
    phase,
    pod_ready,
    set_condition,
)
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339
from gpuctl.times import parse_rfc3339
from gpuctl.workloads import pod_spec_of

INDEX_KEY = "batch.kubernetes.io/job-completion-index"
# The real Job controller waits before replacing a failed pod: 10 s, doubling per failure,
# at most 10 minutes (DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff).
POD_FAILURE_BACKOFF = 10.0
MAX_POD_FAILURE_BACKOFF = 600.0
BACKOFF_MESSAGE = "Job has reached the specified backoff limit"
COMPLETED_MESSAGE = "Reached expected number of succeeded pods"


@dataclass
class JobPods:
    """A Job's pods by what they are doing."""

    active: list[Obj] = field(default_factory=list)
    terminating: list[Obj] = field(default_factory=list)
    succeeded: list[Obj] = field(default_factory=list)
    failed: list[Obj] = field(default_factory=list)

    @classmethod
    def of(cls, pods: list[Obj]) -> JobPods:
        out = cls()
        for p in pods:
            if phase(p) == "Succeeded":
                out.succeeded.append(p)
            elif phase(p) == "Failed":
                out.failed.append(p)
            elif p["metadata"].get("deletionTimestamp"):
                out.terminating.append(p)
            else:
                out.active.append(p)
        return out

    def restarts(self) -> int:
        return sum(
            int(cs.get("restartCount", 0))
            for p in self.active
            for cs in (p.get("status") or {}).get("containerStatuses") or []
        )


class JobController(Controller):
    name = "job-controller"

    def __init__(self, api: Api, config: SandboxConfig, due: Callable[[float], None]) -> None:
        super().__init__(api, config, due)
        # job uid → uids of its pods counted as failed; a deleted pod stays counted once gone
        self._failed: dict[str, set[str]] = {}
        # pods this controller deleted itself (suspension, lower parallelism): not failures
        self._removed: set[str] = set()

    def reconcile(self, now: float) -> None:
        for job in self.store.objects(self.jobs.key, None):
            if job["metadata"].get("deletionTimestamp"):
                continue
            conditions = (job.get("status") or {}).get("conditions") or []
            if has_condition(conditions, "Complete") or has_condition(conditions, "Failed"):
                continue
            self._sync(job, now)

    def _sync(self, job: Obj, now: float) -> None:
        status = copy.deepcopy(job.get("status") or {})
        conditions = status.get("conditions") or []
        spec = job["spec"]
        pods = JobPods.of(self.owned_pods(job))
        failed = self._count_failed(job, pods)
        finished = ""
        if spec.get("suspend"):
            conditions = self._suspend(job, pods, conditions)
        else:
            if has_condition(conditions, "Suspended"):
                conditions = set_condition(
                    conditions, "Suspended", "False", "JobResumed", "Job resumed", probe=True
                )
                self.api.emit_event(job, "Normal", "Resumed", "Job resumed", "job-controller")
            status.setdefault("startTime", now_rfc3339(now))
            if failed + pods.restarts() > int(spec.get("backoffLimit", 6)):
                finished = "Failed"
                for p in pods.active:
                    self._remove(p)
                pods.active = []
            elif self._backing_off(pods, failed, now):
                pass  # a failed pod is replaced only after the back-off
            elif spec.get("completionMode") == "Indexed":
                finished = self._run_indexed(job, pods, status)
            else:
                finished = self._run(job, pods)
        if finished:
            conditions = self._finish(job, finished, conditions, status, now)
            if finished == "Complete":
                pods.active = []
        self._write_status(job, status, conditions, pods, failed)

    def _backing_off(self, pods: JobPods, failed: int, now: float) -> bool:
        """Is the Job still waiting out the back-off after its last pod failure? Then a pass
        is asked for when it ends."""
        ended = [_finished_at(p) for p in pods.failed]
        if not failed or not ended:
            return False
        delay = min(POD_FAILURE_BACKOFF * 2 ** (failed - 1), MAX_POD_FAILURE_BACKOFF)
        until = max(ended) + delay * self.config.backoff_time_scale
        if now >= until:
            return False
        self.due(until)
        return True

    def _count_failed(self, job: Obj, pods: JobPods) -> int:
        """Failed pods, and pods deleted before they succeeded: the real controller counts
        those as failed too unless only failed pods are replaced (podReplacementPolicy Failed,
        or a podFailurePolicy)."""
        counted = self._failed.setdefault(job["metadata"]["uid"], set())
        counted.update(p["metadata"]["uid"] for p in pods.failed)
        spec = job["spec"]
        only_failed = spec.get("podFailurePolicy") or spec.get("podReplacementPolicy") == "Failed"
        if not only_failed:
            counted.update(
                p["metadata"]["uid"]
                for p in pods.terminating
                if p["metadata"]["uid"] not in self._removed
            )
        return len(counted)

    def _remove(self, pod: Obj) -> None:
        self._removed.add(pod["metadata"]["uid"])
        self.delete(self.pods, pod)

    def _suspend(self, job: Obj, pods: JobPods, conditions: list[Obj]) -> list[Obj]:
        for p in pods.active:
            self._remove(p)
        pods.active = []
        if has_condition(conditions, "Suspended"):
            return conditions
        self.api.emit_event(job, "Normal", "Suspended", "Job suspended", "job-controller")
        return set_condition(
            conditions, "Suspended", "True", "JobSuspended", "Job suspended", probe=True
        )

    def _run_indexed(self, job: Obj, pods: JobPods, status: Obj) -> str:
        """Create pods for the missing indexes; "Complete" once every index succeeded."""
        spec = job["spec"]
        parallelism = int(spec.get("parallelism", 1))
        done = {_index(p) for p in pods.succeeded}
        running = {_index(p) for p in pods.active}
        total = int(spec.get("completions") or 0)
        status["completedIndexes"] = _ranges(sorted(i for i in done if 0 <= i < total))
        if len(done & set(range(total))) >= total:
            return "Complete"
        for index in range(total):
            if len(pods.active) >= parallelism:
                break
            if index in done or index in running:
                continue
            pod = self._create_job_pod(job, index)
            if pod is None:
                break
            pods.active.append(pod)
        return ""

    def _run(self, job: Obj, pods: JobPods) -> str:
        """Keep `parallelism` pods going until enough succeeded; "Complete" then."""
        spec = job["spec"]
        completions = spec.get("completions")
        parallelism = int(spec.get("parallelism", 1))
        if completions is None:
            want = 0 if pods.succeeded else parallelism
            if pods.succeeded and not pods.active:
                return "Complete"
        else:
            remaining = int(completions) - len(pods.succeeded)
            want = max(min(parallelism, remaining), 0)
            if remaining <= 0:
                return "Complete"
        for _ in range(want - len(pods.active)):
            pod = self._create_job_pod(job, None)
            if pod is None:
                break
            pods.active.append(pod)
        for extra in pods.active[want:]:
            self._remove(extra)
        return ""

    def _finish(
        self, job: Obj, finished: str, conditions: list[Obj], status: Obj, now: float
    ) -> list[Obj]:
        """The conditions and event of a Job that completed or failed."""
        if finished == "Complete":
            for type_ in ("SuccessCriteriaMet", "Complete"):
                conditions = set_condition(
                    conditions, type_, "True", "CompletionsReached", COMPLETED_MESSAGE, probe=True
                )
            status["completionTime"] = now_rfc3339(now)
            self.api.emit_event(job, "Normal", "Completed", "Job completed", "job-controller")
            return conditions
        for type_ in ("FailureTarget", "Failed"):
            conditions = set_condition(
                conditions, type_, "True", "BackoffLimitExceeded", BACKOFF_MESSAGE, probe=True
            )
        self.api.emit_event(
            job, "Warning", "BackoffLimitExceeded", BACKOFF_MESSAGE, "job-controller"
        )
        return conditions

    def _write_status(
        self, job: Obj, status: Obj, conditions: list[Obj], pods: JobPods, failed: int
    ) -> None:
        if conditions:
            status["conditions"] = conditions
        status["active"] = len(pods.active)
        status["ready"] = sum(1 for p in pods.active if pod_ready(p))
        status["succeeded"] = len(pods.succeeded)
        status["failed"] = failed
        status["terminating"] = len(pods.terminating)
        status["uncountedTerminatedPods"] = {}
        for key in ("active", "succeeded", "failed"):
            if status[key] == 0:
                del status[key]
        self.set_status(self.jobs, job, status)

    def _create_job_pod(self, job: Obj, index: int | None) -> Obj | None:
        name = job["metadata"]["name"]
        template = job["spec"]["template"]
        if index is None:
            return self.create_pod(self.jobs, job, template)
        env = [
            {
                "name": "JOB_COMPLETION_INDEX",
                "valueFrom": {
                    "fieldRef": {"apiVersion": "v1", "fieldPath": f"metadata.labels['{INDEX_KEY}']"}
                },
            }
        ]
        return self.create_pod(
            self.jobs,
            job,
            template,
            labels={INDEX_KEY: str(index)},
            annotations={INDEX_KEY: str(index)},
            hostname=f"{name}-{index}",
            env=env,
            generate_name=f"{name}-{index}-",
            subdomain=str(pod_spec_of(job).get("subdomain", "")),
        )


def _finished_at(pod: Obj) -> float:
    """When the pod's last container ended (0 when no time is recorded)."""
    stamps = [
        ((cs.get("state") or {}).get("terminated") or {}).get("finishedAt")
        for cs in (pod.get("status") or {}).get("containerStatuses") or []
    ]
    times = [parse_rfc3339(str(t)) for t in stamps if t]
    return max((t for t in times if t is not None), default=0.0)


def _index(pod: Obj) -> int:
    return int(pod["metadata"].get("annotations", {}).get(INDEX_KEY, -1))


def _ranges(values: list[int]) -> str:
    """Sorted indexes as the completedIndexes field writes them: "0-2,5"."""
    out: list[str] = []
    for v in values:
        if out and "-" in out[-1] and int(out[-1].split("-")[1]) == v - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{v}"
        elif out and "-" not in out[-1] and int(out[-1]) == v - 1:
            out[-1] = f"{out[-1]}-{v}"
        else:
            out.append(str(v))
    return ",".join(out)
