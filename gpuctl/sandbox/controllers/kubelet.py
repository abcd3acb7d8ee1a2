"""The kubelet of every simulated node: starts scheduled pods after `pod_start_seconds`, runs
pods that may finish for `job_run_seconds`, simulates image pull errors and crash loops, and
removes deleted pods once their grace period is over. No container ever runs."""

from __future__ import annotations

import copy
from collections.abc import Callable

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers.backoff import INITIAL_SECONDS, BackOff, go_duration
from gpuctl.sandbox.controllers.base import (
    TERMINAL_PHASES,
    Controller,
    phase,
    set_condition,
    sha,
)
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.sandbox.script import script_of
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339

_CONDITION_ORDER = {
    "PodReadyToStartContainers": 0,
    "Initialized": 1,
    "Ready": 2,
    "ContainersReady": 3,
    "PodScheduled": 4,
}


class Kubelet(Controller):
    name = "kubelet"

    def __init__(self, api: Api, config: SandboxConfig, due: Callable[[float], None]) -> None:
        super().__init__(api, config, due)
        self._ip = 0
        # one back-off per pod: all its crashing containers exit and restart together
        self.back_off = BackOff(config.backoff_time_scale)

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

    def _creating(self, pod: Obj, status: Obj, node_name: str, now: float) -> None:
        status["hostIP"] = self._node_ip(node_name)
        status["hostIPs"] = [{"ip": status["hostIP"]}]
        status["startTime"] = now_rfc3339(now)
        status["containerStatuses"] = [
            {
                "name": c["name"],
                "image": c.get("image", ""),
                "imageID": "",
                "ready": False,
                "restartCount": 0,
                "started": False,
                "state": {"waiting": {"reason": "ContainerCreating"}},
                "lastState": {},
            }
            for c in (pod.get("spec") or {}).get("containers") or []
        ]
        status["conditions"] = _pod_conditions(status, ready=False, started=False)
        self.set_status(self.pods, pod, status)

    def _cannot_mount(self, pod: Obj, start_at: float, now: float) -> bool:
        """A hostPath volume whose path is missing on the node (config.missing_host_paths) and
        whose type wants it to exist: the pod stays ContainerCreating and the kubelet says
        FailedMount on every retry, in its own words."""
        failures = []
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            host = volume.get("hostPath") or {}
            what = _HOST_PATH_KINDS.get(str(host.get("type") or ""))
            if what and self.config.host_path_missing(str(host.get("path", ""))):
                failures.append(
                    f'MountVolume.SetUp failed for volume "{volume["name"]}" : hostPath type '
                    f"check failed: {host['path']} is not {what}"
                )
        if not failures:
            return False
        period = INITIAL_SECONDS * self.config.backoff_time_scale
        tries = int((now - start_at) / max(period, 0.001))
        runtime = self.api.runtime[pod["metadata"]["uid"]]
        if runtime.extra.get("mount_tries") != tries:
            runtime.extra["mount_tries"] = tries
            for message in failures:
                self._event(pod, "Warning", "FailedMount", message)
        self.due(start_at + (tries + 1) * period)
        return True

    def _cannot_configure(self, pod: Obj, status: Obj, now: float) -> bool:
        """A container whose environment names a Secret or ConfigMap (or a key of one) that
        does not exist: it waits in CreateContainerConfigError, as the kubelet words it, until
        the object appears."""
        namespace = pod["metadata"]["namespace"]
        problems = {
            str(c["name"]): problem
            for c in (pod.get("spec") or {}).get("containers") or []
            if (problem := self._missing_env_source(c, namespace))
        }
        if not problems:
            return False
        self.due(now + INITIAL_SECONDS * self.config.backoff_time_scale)
        changed = False
        for cs in status.get("containerStatuses") or []:
            message = problems.get(cs["name"])
            if message is None:
                continue
            waiting = {"reason": "CreateContainerConfigError", "message": message}
            if cs["state"].get("waiting") == waiting:
                continue
            cs["state"] = {"waiting": waiting}
            changed = True
            self._event(pod, "Warning", "Failed", f"Error: {message}")
        if changed:
            self.set_status(self.pods, pod, status)
        return True

    def _missing_env_source(self, container: Obj, namespace: str) -> str:
        """The kubelet's error for the first env source that does not exist, else ""."""
        for item in container.get("env") or []:
            source = item.get("valueFrom") or {}
            for field, kind in (("secretKeyRef", "Secret"), ("configMapKeyRef", "ConfigMap")):
                ref = source.get(field)
                if ref and not ref.get("optional"):
                    problem = self._missing(kind, namespace, ref.get("name", ""), ref.get("key"))
                    if problem:
                        return problem
        for item in container.get("envFrom") or []:
            for field, kind in (("secretRef", "Secret"), ("configMapRef", "ConfigMap")):
                ref = item.get(field)
                if ref and not ref.get("optional"):
                    problem = self._missing(kind, namespace, ref.get("name", ""), None)
                    if problem:
                        return problem
        return ""

    def _missing(self, kind: str, namespace: str, name: str, key: str | None) -> str:
        res = self.api.registry.get("", "secrets" if kind == "Secret" else "configmaps")
        obj = self.store.get(res.key, namespace, name)
        if obj is None:
            return f'{kind.lower()} "{name}" not found'
        if key is None:
            return ""
        held = {**(obj.get("data") or {}), **(obj.get("stringData") or {})}
        held |= obj.get("binaryData") or {}
        return "" if key in held else f"couldn't find key {key} in {kind} {namespace}/{name}"

    def _pull_errors(
        self, pod: Obj, status: Obj, bad: list[Obj], start_at: float, now: float
    ) -> None:
        """ErrImagePull and ImagePullBackOff by turns, with the kubelet's events."""
        period = INITIAL_SECONDS * self.config.backoff_time_scale
        flip = int((now - start_at) / max(period, 0.001)) % 2
        reason = "ErrImagePull" if flip == 0 else "ImagePullBackOff"
        self.due(now + period)
        changed = False
        for cs in status.get("containerStatuses") or []:
            image = next((c.get("image", "") for c in bad if c["name"] == cs["name"]), None)
            if image is None:
                continue
            message = (
                f'failed to pull and unpack image "{image}": failed to resolve '
                f'reference "{image}": not found'
                if reason == "ErrImagePull"
                else f'Back-off pulling image "{image}"'
            )
            waiting = {"reason": reason, "message": message}
            if cs["state"].get("waiting") == waiting:
                continue
            cs["state"] = {"waiting": waiting}
            changed = True
            if reason == "ErrImagePull":
                self._event(pod, "Warning", "Failed", f'Failed to pull image "{image}": {message}')
                self._event(pod, "Warning", "Failed", "Error: ErrImagePull")
            else:
                self._event(pod, "Normal", "BackOff", f'Back-off pulling image "{image}"')
        if changed:
            self.set_status(self.pods, pod, status)

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
        status["conditions"] = _pod_conditions(status, ready=False, started=False, completed=True)
        self.set_status(self.pods, pod, status)

    def _probe(self, pod: Obj, status: Obj, runtime: PodRuntime, now: float) -> None:
        """Running containers whose readiness probe gets HTTP 500 (config.failing_probe_paths)
        stay not ready; the kubelet says Unhealthy every period after the initial delay."""
        failing = [
            c for c in (pod.get("spec") or {}).get("containers") or [] if self._readiness_fails(c)
        ]
        if not failing:
            return
        scale = self.config.probe_time_scale
        next_at = runtime.extra.get("probe_at")
        if next_at is None:
            probe = failing[0]["readinessProbe"]
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
        for container in failing:
            if container["name"] in running:
                self._event(
                    pod,
                    "Warning",
                    "Unhealthy",
                    "Readiness probe failed: HTTP probe failed with statuscode: 500",
                )
        period = float(failing[0]["readinessProbe"].get("periodSeconds") or 10)
        runtime.extra["probe_at"] = now + period * scale
        self.due(runtime.extra["probe_at"])

    def _readiness_fails(self, container: Obj) -> bool:
        http = (container.get("readinessProbe") or {}).get("httpGet") or {}
        return bool(http) and self.config.probe_fails(str(http.get("path") or "/"))

    def _node_ip(self, node_name: str) -> str:
        node = self.store.get(self.nodes.key, "", node_name) or {}
        return next(
            (
                a["address"]
                for a in (node.get("status") or {}).get("addresses") or []
                if a["type"] == "InternalIP"
            ),
            "10.0.0.1",
        )

    def _event(self, pod: Obj, type_: str, reason: str, message: str) -> None:
        self.api.emit_event(pod, type_, reason, message, "kubelet")

    def _start_containers(self, pod: Obj, status: Obj, node_name: str, now: float) -> None:
        self._ip += 1
        node_index = next((i for i, n in enumerate(self.config.nodes) if n.name == node_name), 0)
        status["phase"] = "Running"
        status["hostIP"] = self._node_ip(node_name)
        status["hostIPs"] = [{"ip": status["hostIP"]}]
        status["podIP"] = f"10.244.{node_index}.{self._ip % 250 + 2}"
        status["podIPs"] = [{"ip": status["podIP"]}]
        status.setdefault("startTime", now_rfc3339(now))
        statuses = []
        for c in (pod.get("spec") or {}).get("containers") or []:
            image = c.get("image", "")
            statuses.append(
                {
                    "name": c["name"],
                    "state": {"running": {"startedAt": now_rfc3339(now)}},
                    "lastState": {},
                    "ready": not self._readiness_fails(c),
                    "restartCount": 0,
                    "image": image,
                    "imageID": f"{image.split(':')[0]}@sha256:{sha(image)}",
                    "containerID": f"containerd://{sha(pod['metadata']['uid'] + c['name'])}",
                    "started": True,
                    # what the container runs with: the sign of a kubelet that can resize
                    "resources": copy.deepcopy(c.get("resources") or {}),
                }
            )
            self._event(
                pod, "Normal", "Pulled", f'Container image "{image}" already present on machine'
            )
            self._event(pod, "Normal", "Created", f"Created container: {c['name']}")
            self._event(pod, "Normal", "Started", f"Started container {c['name']}")
        status["containerStatuses"] = statuses
        ready = all(cs["ready"] for cs in statuses)
        status["conditions"] = _pod_conditions(status, ready=ready, started=True)
        self.set_status(self.pods, pod, status)

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
        status["conditions"] = _pod_conditions(status, ready=False, started=True)
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
            self._event(
                pod,
                "Normal",
                "Pulled",
                f'Container image "{cs["image"]}" already present on machine',
            )
            self._event(pod, "Normal", "Created", f"Created container: {cs['name']}")
            self._event(pod, "Normal", "Started", f"Started container {cs['name']}")
        ready = all(cs.get("ready") for cs in status.get("containerStatuses") or [])
        status["conditions"] = _pod_conditions(status, ready=ready, started=True)
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
        status["conditions"] = _pod_conditions(status, ready=False, started=False)
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


# What a hostPath volume's type wants at its path, as the kubelet's type check words it.
_HOST_PATH_KINDS = {
    "Directory": "a directory",
    "File": "a file",
    "Socket": "a socket file",
    "CharDevice": "a character device",
    "BlockDevice": "a block device",
}


def _pod_format(pod: Obj) -> str:
    """How the kubelet names a pod in messages: NAME_NAMESPACE(UID)."""
    meta = pod["metadata"]
    return f"{meta['name']}_{meta['namespace']}({meta['uid']})"


def _pod_conditions(status: Obj, ready: bool, started: bool, completed: bool = False) -> list[Obj]:
    """The five pod conditions the kubelet maintains, in the order it writes them."""
    conditions = status.get("conditions") or []
    reason = "PodCompleted" if completed else ("" if ready else "ContainersNotReady")
    not_ready = (
        ""
        if ready or completed
        else "containers with unready status: ["
        + " ".join(
            cs["name"] for cs in status.get("containerStatuses") or [] if not cs.get("ready")
        )
        + "]"
    )
    conditions = set_condition(
        conditions,
        "PodReadyToStartContainers",
        "True" if started or completed else "False",
        probe=True,
    )
    conditions = set_condition(
        conditions, "Initialized", "True", "PodCompleted" if completed else "", probe=True
    )
    for type_ in ("Ready", "ContainersReady"):
        conditions = set_condition(
            conditions, type_, "True" if ready else "False", reason, not_ready, probe=True
        )
    conditions = set_condition(conditions, "PodScheduled", "True", probe=True)
    return sorted(conditions, key=lambda c: _CONDITION_ORDER.get(c["type"], 9))
