"""The simulated kubelet starting a pod: ContainerCreating, the reasons a pod does not start
(a hostPath that is missing, an env source that does not exist, an image that fails to pull)
with the kubelet's own events, and the containers running."""

from __future__ import annotations

import copy
from collections.abc import Callable

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers.backoff import INITIAL_SECONDS
from gpuctl.sandbox.controllers.base import (
    Controller,
    set_condition,
    sha,
)
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339

_CONDITION_ORDER = {
    "PodReadyToStartContainers": 0,
    "Initialized": 1,
    "Ready": 2,
    "ContainersReady": 3,
    "PodScheduled": 4,
}


# What a hostPath volume's type wants at its path, as the kubelet's type check words it.
_HOST_PATH_KINDS = {
    "Directory": "a directory",
    "File": "a file",
    "Socket": "a socket file",
    "CharDevice": "a character device",
    "BlockDevice": "a block device",
}


class PodStart(Controller):
    """The part of the kubelet that takes a scheduled pod to Running."""

    def __init__(self, api: Api, config: SandboxConfig, due: Callable[[float], None]) -> None:
        super().__init__(api, config, due)
        self._ip = 0

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
        status["conditions"] = pod_conditions(status, ready=False, started=False)
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
                    "started": not self._startup_fails(c),
                    # what the container runs with: the sign of a kubelet that can resize
                    "resources": copy.deepcopy(c.get("resources") or {}),
                }
            )
            self._container_started(pod, image, c["name"])
        status["containerStatuses"] = statuses
        ready = all(cs["ready"] for cs in statuses)
        status["conditions"] = pod_conditions(status, ready=ready, started=True)
        self.set_status(self.pods, pod, status)

    def _readiness_fails(self, container: Obj) -> bool:
        return self._failing_probe(container) is not None

    def _failing_probe(self, container: Obj) -> tuple[str, Obj] | None:
        """The probe that keeps this container unready when its path answers HTTP 500
        (config.failing_probe_paths), and its name as the kubelet's events say it: the
        startup probe when there is one (the kubelet runs no readiness probe until it passes),
        else the readiness probe; None when neither fails."""
        for field, said in (("startupProbe", "Startup"), ("readinessProbe", "Readiness")):
            probe = container.get(field) or {}
            http = probe.get("httpGet") or {}
            if http:
                return (
                    (said, probe) if self.config.probe_fails(str(http.get("path") or "/")) else None
                )
        return None

    def _startup_fails(self, container: Obj) -> bool:
        failing = self._failing_probe(container)
        return failing is not None and failing[0] == "Startup"

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

    def _container_started(self, pod: Obj, image: str, container: str) -> None:
        """The kubelet's events for a container it (re)started: its image was already there."""
        self._event(
            pod, "Normal", "Pulled", f'Container image "{image}" already present on machine'
        )
        self._event(pod, "Normal", "Created", f"Created container: {container}")
        self._event(pod, "Normal", "Started", f"Started container {container}")


def pod_conditions(status: Obj, ready: bool, started: bool, completed: bool = False) -> list[Obj]:
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
