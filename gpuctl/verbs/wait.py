"""`--wait`: until every workload is up and has stayed up for a settle period.

Up is the readiness rule of gpuctl.inventory.status. After every workload is up, the pods are
watched for `settle` more seconds: a restart, a container exiting non-zero or a pod no longer
Ready in that window fails the wait with the reason and the pod's last log lines (a container
that crashes a second after it starts is not a running job). It fails fast on an image that
cannot be pulled, a crash loop, a failed Job, pods refused by a quota, and a pod the scheduler
keeps refusing for `unschedulable_grace` seconds; a timeout names the last trouble seen.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError
from gpuctl.errors import GpuctlError
from gpuctl.inventory import status
from gpuctl.render.engine import Manifest
from gpuctl.verbs.common import (
    DEFAULT_TIMEOUT,
    Progress,
    VerbResult,
    WaitTimeout,
    locate,
    no_progress,
)

DEFAULT_SETTLE = 5.0
LOG_LINES = 5


def announce_then_wait(
    result: VerbResult,
    on_written: Callable[[VerbResult], None] | None,
    wait: Wait | None,
    manifests: list[Manifest],
    may_wait: bool,
) -> VerbResult:
    """What create and apply do once they wrote: tell `on_written` (the CLI prints what exists
    before it waits), then wait for the workloads when asked to and `may_wait`."""
    if on_written is not None:
        on_written(result)
    if wait is not None and may_wait:
        wait.run(manifests)
    return result


class WaitFailed(GpuctlError):
    """A workload will not come up; the message says why (and what its pod last logged)."""


@dataclass
class Wait:
    cluster: ClusterAPI
    timeout: float = DEFAULT_TIMEOUT
    settle: float = DEFAULT_SETTLE
    progress: Progress = no_progress
    unschedulable_grace: float = 10.0
    poll: float = 0.5
    troubles: dict[str, str] = field(default_factory=dict)
    _seen: dict[str, float] = field(default_factory=dict)  # when a trouble was first seen

    def run(self, manifests: list[Manifest]) -> list[str]:
        """The refs of the workloads waited for, once all are up and settled."""
        workloads = [m for m in manifests if m.kind in status.WORKLOAD_KINDS]
        started = time.monotonic()
        deadline = started + self.timeout
        pending = {m.ref: m for m in workloads}
        while pending:
            for key, manifest in list(pending.items()):
                if self._up(manifest):
                    del pending[key]
            if not pending:
                break
            self._check_deadline(deadline, pending)
            elapsed = time.monotonic() - started
            self.progress(f"waiting for {', '.join(pending)} to run ({elapsed:.0f}s)")
            time.sleep(self.poll)
        self._settle(workloads, deadline)
        self.progress("")
        return [m.ref for m in workloads]

    def _pods(self, manifest: Manifest) -> list[dict[str, Any]]:
        label = c.Labels.JOB_NAME if manifest.kind == "Job" else c.Labels.APP
        return self.cluster.list(
            "Pod", manifest.namespace, label_selector=f"{label}={manifest.name}"
        )

    def _up(self, manifest: Manifest) -> bool:
        """Is it up? Raises WaitFailed when it never will be."""
        obj = self.cluster.get(*locate(manifest))
        pods = self._pods(manifest)
        failure = status.workload_failure(obj)
        if failure:
            raise WaitFailed(f"{manifest.ref}: {failure}")
        if status.workload_up(obj, pods):
            return True
        for pod in pods:
            trouble, final = status.pod_trouble(pod)
            if not trouble:
                continue
            self.troubles[manifest.ref] = f"pod {pod['metadata']['name']} {trouble}"
            if final or time.monotonic() - self._first_seen(manifest.ref) >= (
                self.unschedulable_grace
            ):
                raise WaitFailed(f"{manifest.ref}: {self.troubles[manifest.ref]}{self._tail(pod)}")
        if not pods:
            self._creation_refused(manifest, obj)
        return False

    def _first_seen(self, key: str) -> float:
        return self._seen.setdefault(key, time.monotonic())

    def _creation_refused(self, manifest: Manifest, obj: dict[str, Any]) -> None:
        """The newest FailedCreate event of the workload (a Deployment's: of its ReplicaSets):
        why the controller could not make pods. An exceeded quota fails the wait."""
        owners = {obj["metadata"].get("uid")}
        if manifest.kind == "Deployment":
            replica_sets = self.cluster.list(
                "ReplicaSet", manifest.namespace, label_selector=f"{c.Labels.APP}={manifest.name}"
            )
            owners |= {rs["metadata"].get("uid") for rs in replica_sets}
        events = [
            event
            for event in self.cluster.list(
                "Event", manifest.namespace, field_selector="reason=FailedCreate"
            )
            if (event.get("involvedObject") or {}).get("uid") in owners
        ]
        if not events:
            return
        events.sort(key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")
        refusal = str(events[-1].get("message") or "")
        self.troubles[manifest.ref] = f"cannot create its pods: {refusal}"
        if "exceeded quota" in refusal:
            raise WaitFailed(f"{manifest.ref}: {self.troubles[manifest.ref]}")

    def _check_deadline(self, deadline: float, pending: dict[str, Manifest]) -> None:
        if time.monotonic() < deadline:
            return
        why = "; ".join(f"{key}: {self.troubles[key]}" for key in pending if key in self.troubles)
        raise WaitTimeout(
            f"not running after {self.timeout:.0f}s: {', '.join(pending)}"
            + (f" ({why})" if why else "")
        )

    def _settle(self, workloads: list[Manifest], deadline: float) -> None:
        """Every pod stays Ready, without a restart, for `settle` seconds."""
        if self.settle <= 0:
            return
        baseline = {
            pod["metadata"]["name"]: status.pod_restarts(pod)
            for manifest in workloads
            for pod in self._pods(manifest)
        }
        end = min(time.monotonic() + self.settle, deadline)
        while time.monotonic() < end:
            self.progress(f"checking that {', '.join(m.ref for m in workloads)} stay up")
            for manifest in workloads:
                self._still_up(manifest, baseline)
            time.sleep(self.poll)

    def _still_up(self, manifest: Manifest, baseline: dict[str, int]) -> None:
        obj = self.cluster.get(*locate(manifest))
        failure = status.workload_failure(obj)
        if failure:
            raise WaitFailed(f"{manifest.ref}: {failure}")
        for pod in self._pods(manifest):
            name = pod["metadata"]["name"]
            trouble, final = status.pod_trouble(pod)
            if final:
                raise WaitFailed(f"{manifest.ref}: pod {name} {trouble}{self._tail(pod)}")
            if status.pod_restarts(pod) > baseline.get(name, 0):
                why = status.last_exit(pod)
                raise WaitFailed(
                    f"{manifest.ref}: pod {name} {why} within {self.settle:.0f}s of "
                    f"starting{self._tail(pod)}"
                )

    def _tail(self, pod: dict[str, Any]) -> str:
        """The pod's last log lines, for the message ("" when there are none to read)."""
        meta = pod["metadata"]
        lines: list[str] = []
        with contextlib.suppress(KubeError):
            lines = list(self.cluster.logs(meta["name"], meta["namespace"], tail=LOG_LINES))
        if not lines:
            return ""
        return "; last log lines: " + " | ".join(line.strip() for line in lines[-LOG_LINES:])
