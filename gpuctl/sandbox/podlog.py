"""A pod's log as the kubelet serves it: which container, the current or the previous
instance, the lines the options select, and following them until the container stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.errors import bad_request
from gpuctl.sandbox.logs import LogLine, LogOptions, log_lines, previous_log_lines
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.sandbox.script import script_of
from gpuctl.sandbox.store import Obj


@dataclass
class PodLog:
    """One log request: the pod and container, the options, and the lines there are so far."""

    pod: Obj
    container: str
    options: LogOptions
    script: tuple[str, ...] | None  # what the container's script prints; None: no script
    interval: float  # seconds between simulated lines
    lines: list[LogLine]

    @classmethod
    def start(cls, api: Api, res: Resource, ns: str, name: str, query: dict[str, str]) -> PodLog:
        """The log asked for; the kubelet's 400 when its container has not started."""
        pod = api.get(res, ns, name)
        container = _log_container(pod, name, query.get("container") or "")
        options = LogOptions.of(query, name)
        runtime = api.runtime.get(pod["metadata"]["uid"])
        if runtime is None or runtime.started_at is None:
            waiting = "ContainerCreating"
            for cs in (pod.get("status") or {}).get("containerStatuses") or []:
                if cs.get("name") == container and (cs.get("state") or {}).get("waiting"):
                    waiting = cs["state"]["waiting"].get("reason", waiting)
            raise bad_request(
                f'container "{container}" in pod "{name}" is waiting to start: {waiting}'
            )
        script = _script_lines(pod, container)
        interval = api.config.log_interval_seconds
        if query.get("previous") in ("true", "1"):
            lines = _previous_lines(pod, container, runtime, interval, script)
        else:
            lines = log_lines(name, container, runtime, interval, script=script)
        return cls(pod, container, options, script, interval, lines)

    def text(self) -> bytes:
        """The selected lines at once (no follow), cut at limitBytes."""
        data = self.options.render(self.options.select(self.lines))
        if self.options.limit_bytes is not None:
            data = data[: self.options.limit_bytes]
        return data

    def follow(
        self,
        api: Api,
        stopping: threading.Event,
        send: Callable[[bytes], None],
        client_gone: Callable[[], bool],
    ) -> None:
        """The selected lines, then each new one until the container stops or the client goes."""
        shown = self.options.select(self.lines)
        if shown:
            send(self.options.render(shown))
        name, sent = self.pod["metadata"]["name"], len(self.lines)
        while not stopping.is_set():
            time.sleep(min(self.interval, 0.05))
            if client_gone():
                break
            current = api.runtime.get(self.pod["metadata"]["uid"])
            lines = log_lines(name, self.container, current, self.interval, script=self.script)
            if len(lines) > sent:
                new = [
                    line
                    for line in lines[sent:]
                    if self.options.since is None or line[0] >= self.options.since
                ]
                if new:
                    send(self.options.render(new))
                sent = len(lines)
            if current is None or current.finished_at is not None:
                break


def _script_lines(pod: dict[str, Any], container: str) -> tuple[str, ...] | None:
    """What the container's script prints (gpuctl.sandbox.script); None when it is no script."""
    for spec in (pod.get("spec") or {}).get("containers") or []:
        if spec.get("name") == container:
            script = script_of(spec)
            return script.lines if script else None
    return None


def _previous_lines(
    pod: dict[str, Any],
    container: str,
    runtime: PodRuntime,
    interval: float,
    script: tuple[str, ...] | None,
) -> list[LogLine]:
    """`previous=true`: the lines of the instance before the current one; the kubelet's 400
    when the container never restarted."""
    name = pod["metadata"]["name"]
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") != container or not int(status.get("restartCount") or 0):
            continue
        if not (status.get("lastState") or {}).get("terminated"):
            continue
        running = (status.get("state") or {}).get("running") is not None
        return previous_log_lines(name, container, runtime, interval, running, script)
    raise bad_request(f'previous terminated container "{container}" in pod "{name}" not found')


def _log_container(pod: dict[str, Any], name: str, container: str) -> str:
    """The container a log request means: the one asked for, or the pod's only one."""
    containers = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
    if not container:
        if len(containers) > 1:
            raise bad_request(
                f"a container name must be specified for pod {name}, choose one of: "
                f"[{' '.join(containers)}]"
            )
        container = containers[0] if containers else ""
    if container not in containers:
        raise bad_request(f"container {container} is not valid for pod {name}")
    return container
