"""`--wait`: until every workload is up and has stayed up for a settle period.

Up is the readiness rule of gpuctl.inventory.status. After every workload is up, the pods are
watched for `settle` more seconds: a restart, a container exiting non-zero or a pod no longer
Ready in that window fails the wait with the reason and the pod's last log lines (a container
that crashes a second after it starts is not a running job). What keeps a pod from coming up is
gpuctl.inventory.explain's rule, in its words: it fails fast on what will not mend by itself
(an image that cannot be pulled, a crash loop, a container killed for its memory or exiting
non-zero, a container the kubelet cannot configure), on a failed Job and on pods refused by a
quota; on a volume that cannot be mounted or a pod the scheduler keeps refusing after
`unschedulable_grace` seconds; a timeout names the last trouble seen (a failing readiness probe).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuctl import workloads
from gpuctl.cluster.api import LogCluster
from gpuctl.cluster.errors import Forbidden
from gpuctl.errors import GpuctlError
from gpuctl.inventory import explain, status
from gpuctl.inventory.jobs import EVENT_OWNERS, EVENT_PODS, last_lines
from gpuctl.render.engine import Manifest
from gpuctl.verbs.common import DEFAULT_TIMEOUT, Progress, VerbResult, locate, no_progress
from gpuctl.verbs.errors import WaitTimeout
from gpuctl.workloads import WorkloadAdapter

DEFAULT_SETTLE = 5.0


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
    cluster: LogCluster
    timeout: float = DEFAULT_TIMEOUT
    settle: float = DEFAULT_SETTLE
    progress: Progress = no_progress
    unschedulable_grace: float = 10.0
    poll: float = 0.5
    troubles: dict[str, str] = field(default_factory=dict)
    _seen: dict[str, float] = field(default_factory=dict)  # when a trouble was first seen

    def run(self, manifests: list[Manifest]) -> list[str]:
        """The refs of the workloads waited for, once all are up and settled."""
        waited = [m for m in manifests if workloads.adapter(m.kind) is not None]
        started = time.monotonic()
        deadline = started + self.timeout
        pending = {m.ref: m for m in waited}
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
        self._settle(waited, deadline)
        self.progress("")
        return [m.ref for m in waited]

    def _pods(self, manifest: Manifest) -> list[dict[str, Any]]:
        selector = _adapter(manifest).pod_selector(manifest.name)
        return self.cluster.list("Pod", manifest.namespace, label_selector=selector)

    def _up(self, manifest: Manifest) -> bool:
        """Is it up? Raises WaitFailed when it never will be."""
        obj = self.cluster.get(*locate(manifest))
        pods = self._pods(manifest)
        self._check_failed(manifest, obj, pods)
        if status.workload_up(obj, pods):
            return True
        warnings = self._warnings(manifest, pods)
        found = explain.explain_pods(pods, warnings)
        if found:
            first = found[0]
            self.troubles[manifest.ref] = first.text
            if first.final:
                raise WaitFailed(f"{manifest.ref}: {self._with_logs(first, pods, warnings)}")
            if first.kind == "mount" and self._past_grace(manifest.ref):
                raise WaitFailed(f"{manifest.ref}: {first.text}")
            return False
        for pod in pods:
            message = status.unschedulable_message(pod)
            if not message:
                continue
            name = pod["metadata"]["name"]
            self.troubles[manifest.ref] = f"pod {name} unschedulable: {message}"
            if self._past_grace(manifest.ref):
                raise WaitFailed(f"{manifest.ref}: {self.troubles[manifest.ref]}")
        if not pods:
            self._creation_refused(manifest, obj)
        return False

    def _check_failed(
        self, manifest: Manifest, obj: dict[str, Any], pods: list[dict[str, Any]]
    ) -> None:
        """A failed Job fails the wait with what its pods did (exit code, last log lines)
        before the Job's own verdict."""
        failure = explain.job_failure(obj)
        if not failure:
            return
        found = [e for e in explain.explain_pods(pods, []) if e.final]
        said = self._with_logs(found[0], pods) + "; " if found else ""
        raise WaitFailed(f"{manifest.ref}: {said}{failure}")

    def _warnings(self, manifest: Manifest, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The Warning events about the pods (pulls, mounts, probes), oldest first: read by
        field selector, one list per pod, for EVENT_PODS of them, those not ready first (never
        the namespace's every event); none asked for while every pod is Ready."""
        if all(status.pod_is_ready(pod) for pod in pods):
            return []
        found: list[dict[str, Any]] = []
        for pod in sorted(pods, key=status.pod_is_ready)[:EVENT_PODS]:
            name = pod["metadata"]["name"]
            wanted = f"involvedObject.kind=Pod,involvedObject.name={name},type=Warning"
            listed = self._events(manifest.namespace, wanted)
            found += [e for e in listed if (e.get("involvedObject") or {}).get("name") == name]
        return _oldest_first(found)

    def _events(self, namespace: str, field_selector: str) -> list[dict[str, Any]]:
        """The events matching the selector, oldest first; none for who may not read events
        (they are told what the pods' status says)."""
        try:
            listed = self.cluster.list("Event", namespace, field_selector=field_selector)
        except Forbidden:
            return []
        return _oldest_first(listed)

    def _with_logs(
        self,
        found: explain.Explanation,
        pods: list[dict[str, Any]],
        events: list[dict[str, Any]] | None = None,
    ) -> str:
        """The explanation again, with the last lines its container logged (and the same
        events, whose words it may carry: a pull's runtime message, a liveness probe)."""
        pod = next((p for p in pods if p["metadata"]["name"] == found.pod), None)
        if pod is None:
            return found.text
        logs = last_lines(self.cluster, [pod])
        again = explain.explain_pod(pod, explain.events_of(pod, events or []), logs)
        same = [e for e in again if e.container == found.container and e.kind == found.kind]
        return same[0].text if same else found.text

    def _past_grace(self, key: str) -> bool:
        return time.monotonic() - self._first_seen(key) >= self.unschedulable_grace

    def _first_seen(self, key: str) -> float:
        return self._seen.setdefault(key, time.monotonic())

    def _creation_refused(self, manifest: Manifest, obj: dict[str, Any]) -> None:
        """The newest FailedCreate event of the workload (a Deployment's: of its ReplicaSets):
        why the controller could not make pods. An exceeded quota fails the wait."""
        owners = [str(obj["metadata"].get("uid") or "")]
        adapter = _adapter(manifest)
        if adapter.pod_owner_kind:
            owned = self.cluster.list(
                adapter.pod_owner_kind,
                manifest.namespace,
                label_selector=adapter.pod_selector(manifest.name),
            )
            owned.sort(key=lambda o: o["metadata"].get("creationTimestamp") or "", reverse=True)
            owners += [str(item["metadata"].get("uid") or "") for item in owned[:EVENT_OWNERS]]
        events = _oldest_first(
            [
                event
                for uid in owners
                if uid
                for event in self._events(
                    manifest.namespace, f"reason=FailedCreate,involvedObject.uid={uid}"
                )
                if (event.get("involvedObject") or {}).get("uid") == uid
            ]
        )
        if not events:
            return
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
        pods = self._pods(manifest)
        self._check_failed(manifest, obj, pods)
        found = explain.explain_pods(pods, [])
        if found and found[0].final:
            raise WaitFailed(f"{manifest.ref}: {self._with_logs(found[0], pods)}")
        for pod in pods:
            name = pod["metadata"]["name"]
            if status.pod_restarts(pod) <= baseline.get(name, 0):
                continue
            restarted = [e for e in explain.explain_pod(pod, [], {}) if e.kind == "restarts"]
            why = (
                self._with_logs(restarted[0], pods)
                if restarted
                else f"pod {name}: a container restarted"
            )
            raise WaitFailed(
                f"{manifest.ref}: restarted within {self.settle:.0f}s of starting: {why}"
            )


def _adapter(manifest: Manifest) -> WorkloadAdapter:
    found = workloads.adapter(manifest.kind)
    if found is None:  # pragma: no cover - only workloads are waited for
        raise ValueError(f"{manifest.ref} is not a workload")
    return found


def _oldest_first(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(events, key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")
