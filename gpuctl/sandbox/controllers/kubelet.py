"""The kubelet of every simulated node: starts scheduled pods after `pod_start_seconds`, runs
pods that may finish for `job_run_seconds`, simulates image pull errors and crash loops, and
removes deleted pods once their grace period is over. No container ever runs."""

from __future__ import annotations

import copy

from gpuctl.sandbox.controllers.base import (
    TERMINAL_PHASES,
    phase,
)
from gpuctl.sandbox.controllers.crash_loop import CrashLoops
from gpuctl.sandbox.controllers.pod_start import pod_conditions
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339


class Kubelet(CrashLoops):
    name = "kubelet"

    def reconcile(self, now: float) -> None:
        for pod in self.store.objects(self.pods.key, None):
            meta = pod["metadata"]
            runtime = self.api.runtime.setdefault(meta["uid"], PodRuntime())
            if meta.get("deletionTimestamp"):
                self._terminate(pod, runtime, now)
                continue
            node_name = (pod.get("spec") or {}).get("nodeName")
            if not node_name or phase(pod) in TERMINAL_PHASES:
                continue
            if runtime.scheduled_at is None:
                runtime.scheduled_at = now
            if runtime.started_at is None:
                self._start(pod, runtime, node_name, now)
            else:
                self._run(pod, runtime, now)

    def _terminate(self, pod: Obj, runtime: PodRuntime, now: float) -> None:
        """Remove a deleted pod once its grace period (capped by the config) is over."""
        meta = pod["metadata"]
        if runtime.terminate_at is None:
            runtime.terminate_at = now + min(
                self.config.pod_termination_seconds,
                float(meta.get("deletionGracePeriodSeconds") or 0),
            )
        if now < runtime.terminate_at:
            self.due(runtime.terminate_at)
            return
        if runtime.finished_at is None:
            runtime.finished_at = now
        finalizers = meta.get("finalizers") or []
        if [f for f in finalizers if f != "foregroundDeletion"]:
            return
        if "foregroundDeletion" in finalizers and self.store.dependents(meta["uid"]):
            return
        final = copy.deepcopy(pod)
        final["metadata"].pop("finalizers", None)
        self.api.remove_now(self.pods, final)

    def _start(self, pod: Obj, runtime: PodRuntime, node_name: str, now: float) -> None:
        """ContainerCreating until the start time; then pull errors, or the containers run."""
        assert runtime.scheduled_at is not None
        status = copy.deepcopy(pod.get("status") or {})
        start_at = runtime.scheduled_at + self.config.pod_start_seconds
        if now < start_at:
            self.due(start_at)
            if not status.get("containerStatuses"):
                self._creating(pod, status, node_name, now)
            return
        if self._cannot_mount(pod, start_at, now):
            return
        if not status.get("containerStatuses"):
            self._creating(pod, status, node_name, now)
        if self._cannot_configure(pod, status, now):
            return
        containers = (pod.get("spec") or {}).get("containers") or []
        bad = [c for c in containers if self.config.image_fails_pull(str(c.get("image", "")))]
        if bad:
            self._pull_errors(pod, status, bad, start_at, now)
            return
        runtime.started_at = now
        self._start_containers(pod, status, node_name, now)

    def _run(self, pod: Obj, runtime: PodRuntime, now: float) -> None:
        """A started pod: crash-looping containers, or a run that ends after job_run_seconds
        unless the pod restarts Always."""
        assert runtime.started_at is not None
        spec = pod.get("spec") or {}
        status = copy.deepcopy(pod.get("status") or {})
        if _actuate_resize(spec, status):
            pod = self.set_status(self.pods, pod, status)
            status = copy.deepcopy(pod.get("status") or {})
        crashing = [c for c in spec.get("containers") or [] if self._crashes(c)]
        restart_policy = spec.get("restartPolicy", "Always")
        self._probe(pod, status, runtime, now)
        if crashing:
            self._crash_loop(pod, status, runtime, restart_policy, now)
            return
        if restart_policy == "Always":
            return
        finish_at = runtime.started_at + self.config.job_run_seconds
        if now < finish_at:
            self.due(finish_at)
            return
        runtime.finished_at = now
        for cs in status.get("containerStatuses") or []:
            started = (
                (cs.get("state") or {})
                .get("running", {})
                .get("startedAt", now_rfc3339(runtime.started_at))
            )
            cs["state"] = {
                "terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": started,
                    "finishedAt": now_rfc3339(now),
                    "containerID": cs.get("containerID", ""),
                }
            }
            cs["ready"] = False
            cs["started"] = False
        status["phase"] = "Succeeded"
        status["conditions"] = pod_conditions(status, ready=False, started=False, completed=True)
        self.set_status(self.pods, pod, status)

    def _probe(self, pod: Obj, status: Obj, runtime: PodRuntime, now: float) -> None:
        """Running containers whose startup or readiness probe gets HTTP 500
        (config.failing_probe_paths) stay not ready; the kubelet says Unhealthy every period
        after the initial delay."""
        failing = [
            (c["name"], probe)
            for c in (pod.get("spec") or {}).get("containers") or []
            for probe in [self._failing_probe(c)]
            if probe is not None
        ]
        if not failing:
            return
        scale = self.config.probe_time_scale
        next_at = runtime.extra.get("probe_at")
        if next_at is None:
            probe = failing[0][1][1]
            started = runtime.container_started_at or runtime.started_at or now
            next_at = started + float(probe.get("initialDelaySeconds") or 0) * scale
            runtime.extra["probe_at"] = next_at
        if now < next_at:
            self.due(next_at)
            return
        running = {
            cs["name"]
            for cs in status.get("containerStatuses") or []
            if (cs.get("state") or {}).get("running") is not None
        }
        for name, (said, _) in failing:
            if name in running:
                self._event(
                    pod,
                    "Warning",
                    "Unhealthy",
                    f"{said} probe failed: HTTP probe failed with statuscode: 500",
                )
        period = float(failing[0][1][1].get("periodSeconds") or 10)
        runtime.extra["probe_at"] = now + period * scale
        self.due(runtime.extra["probe_at"])


def _actuate_resize(spec: Obj, status: Obj) -> bool:
    """Give each running container that reports its resources the ones its spec holds now
    (after an in-place resize); True when one changed. (A status without them is a kubelet
    that cannot resize, as a test may make it.)"""
    wanted = {c["name"]: c.get("resources") or {} for c in spec.get("containers") or []}
    changed = False
    for cs in status.get("containerStatuses") or []:
        resources = wanted.get(cs["name"])
        running = "running" in (cs.get("state") or {})
        reports = running and "resources" in cs
        if reports and resources is not None and cs["resources"] != resources:
            cs["resources"] = copy.deepcopy(resources)
            changed = True
    return changed
