"""The simulated kubelet's crash loops: containers that crash exit, restart, and wait out a
back-off in CrashLoopBackOff; with restartPolicy Never the pod fails."""

from __future__ import annotations

from collections.abc import Callable

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers.backoff import BackOff, go_duration
from gpuctl.sandbox.controllers.pod_start import PodStart, pod_conditions
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.sandbox.script import script_of
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339


class CrashLoops(PodStart):
    """The part of the kubelet that crashes and restarts containers."""

    def __init__(self, api: Api, config: SandboxConfig, due: Callable[[float], None]) -> None:
        super().__init__(api, config, due)
        # one back-off per pod: all its crashing containers exit and restart together
        self.back_off = BackOff(config.backoff_time_scale)

    def _crash_loop(
        self, pod: Obj, status: Obj, runtime: PodRuntime, restart_policy: str, now: float
    ) -> None:
        """Containers whose image crashes exit with code 1 after `crash_after_seconds`. The
        first exit restarts them at once; later ones wait out the back-off first (10 s doubling
        to 5 min), in CrashLoopBackOff, as the real kubelet does."""
        if runtime.next_restart_at is not None:  # waiting out a back-off
            if now < runtime.next_restart_at:
                self.due(runtime.next_restart_at)
                return
            self._restart(pod, status, runtime, now)
            return
        started = runtime.container_started_at or runtime.started_at or now
        exit_at = started + self.config.crash_after_seconds
        if now < exit_at:
            self.due(exit_at)
            return
        runtime.container_finished_at = now
        if restart_policy == "Never":
            self._crashed_for_good(pod, status, runtime, now)
            return
        for cs in self._crashing_statuses(pod, status):
            cs["lastState"] = {"terminated": _exited(pod, cs, started, now)}
            cs["ready"] = False
            cs["started"] = False
        key = pod["metadata"]["uid"]
        if not self.back_off.in_back_off_since(key, now, now):
            self._restart(pod, status, runtime, now)
            return
        runtime.next_restart_at = now + self.back_off.wait(key)
        self.due(runtime.next_restart_at)
        delay = go_duration(self.back_off.seconds(key))
        for cs in self._crashing_statuses(pod, status):
            cs["state"] = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off {delay} restarting failed container={cs['name']} "
                    f"pod={_pod_format(pod)}",
                }
            }
            self._event(
                pod,
                "Warning",
                "BackOff",
                f"Back-off restarting failed container {cs['name']} in pod {_pod_format(pod)}",
            )
        status["conditions"] = pod_conditions(status, ready=False, started=True)
        self.set_status(self.pods, pod, status)

    def _restart(self, pod: Obj, status: Obj, runtime: PodRuntime, now: float) -> None:
        """Start the crashed containers again: restartCount goes up by one."""
        key = pod["metadata"]["uid"]
        finished = runtime.container_finished_at or now
        self.back_off.next(key, finished, now)
        runtime.next_restart_at = None
        runtime.previous_started_at = runtime.container_started_at or runtime.started_at
        runtime.container_started_at = now
        self.due(now + self.config.crash_after_seconds)
        for cs in self._crashing_statuses(pod, status):
            cs["restartCount"] = int(cs.get("restartCount", 0)) + 1
            cs["state"] = {"running": {"startedAt": now_rfc3339(now)}}
            cs["ready"] = not any(
                self._readiness_fails(c)
                for c in (pod.get("spec") or {}).get("containers") or []
                if c["name"] == cs["name"]
            )
            cs["started"] = True
            self._container_started(pod, cs["image"], cs["name"])
        ready = all(cs.get("ready") for cs in status.get("containerStatuses") or [])
        status["conditions"] = pod_conditions(status, ready=ready, started=True)
        self.set_status(self.pods, pod, status)

    def _crashed_for_good(self, pod: Obj, status: Obj, runtime: PodRuntime, now: float) -> None:
        """restartPolicy Never: the crashed containers stay terminated and the pod Failed."""
        runtime.finished_at = now
        started = runtime.started_at or now
        for cs in self._crashing_statuses(pod, status):
            cs["state"] = {"terminated": _exited(pod, cs, started, now)}
            cs["ready"] = False
            cs["started"] = False
        status["phase"] = "Failed"
        status["conditions"] = pod_conditions(status, ready=False, started=False)
        self.set_status(self.pods, pod, status)

    def _crashing_statuses(self, pod: Obj, status: Obj) -> list[Obj]:
        bad = {
            c["name"] for c in (pod.get("spec") or {}).get("containers") or [] if self._crashes(c)
        }
        return [cs for cs in status.get("containerStatuses") or [] if cs["name"] in bad]

    def _crashes(self, container: Obj) -> bool:
        """Its image crashes (config.crashing_images), or its script ends with a non-zero code
        or eats memory until it is killed."""
        script = script_of(container)
        return self.config.image_crashes(str(container.get("image", ""))) or bool(
            script and script.crashes
        )


def _exited(pod: Obj, cs: Obj, started: float, finished: float) -> Obj:
    """A crashed container's terminated state: killed for its memory (137, OOMKilled, as
    containerd reports it), the code its script exits with (reason Error), else 1 (Error)."""
    spec: Obj = next(
        (c for c in (pod.get("spec") or {}).get("containers") or [] if c["name"] == cs["name"]), {}
    )
    script = script_of(spec)
    code, reason = 1, "Error"
    if script is not None and script.oom:
        code, reason = 137, "OOMKilled"
    elif script is not None and script.exit_code:
        code = script.exit_code
    return {
        "exitCode": code,
        "reason": reason,
        "startedAt": now_rfc3339(started),
        "finishedAt": now_rfc3339(finished),
        "containerID": cs.get("containerID", ""),
    }


def _pod_format(pod: Obj) -> str:
    """How the kubelet names a pod in messages: NAME_NAMESPACE(UID)."""
    meta = pod["metadata"]
    return f"{meta['name']}_{meta['namespace']}({meta['uid']})"
