"""Why a job's pods do not run, in plain words: the one rule for `describe job`, `--wait` and
the REST API's `why`.

Pure functions over a pod's status, the events about it (the kubelet's, the scheduler's) and,
where the cluster serves them, the last lines its containers logged. Each explanation is one
line naming the pod and the container; the most important comes first:

- a crash loop: the exit code (or the memory limit it broke), the restarts, the last lines
  of the instance that crashed (`previous` logs);
- a container killed for its memory (OOMKilled) with the limit it broke;
- a container that ended with a non-zero code, with its last log lines;
- an image that cannot be pulled, with the image and the runtime's message;
- a container the kubelet cannot configure (a missing Secret or ConfigMap key);
- a volume that cannot be mounted (a hostPath of type File that is not a file on the node);
- a container that runs but is not ready: its failing startup or readiness probe, and how often
  it failed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl import shapes, workloads
from gpuctl.terminal import shown

LAST_LINES = 5
LINE_CHARS = 200

# Waiting reasons for an image the kubelet cannot pull.
IMAGE_REASONS = ("ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName")
# Waiting reasons for a container the kubelet cannot create or start.
CONFIG_REASONS = ("CreateContainerConfigError", "CreateContainerError", "RunContainerError")

# The kubelet's FailedMount event: `MountVolume.SetUp failed for volume "v" : <why>`.
_FAILED_MOUNT = re.compile(r'MountVolume\.SetUp failed for volume "([^"]*)" : (.*)$', re.S)
_HOSTPATH_CHECK = re.compile(r"hostPath type check failed: (.+) is not an? (.+)$")
_FAILED_PULL = re.compile(r'^Failed to pull image "([^"]*)": (.*)$', re.S)


# What went wrong, the most important first.
KINDS = ("crash-loop", "exit", "image", "config", "mount", "restarts", "probe")
# Kinds that will not mend without a change to the spec or the cluster.
FINAL_KINDS = frozenset({"crash-loop", "exit", "image", "config"})


@dataclass(frozen=True)
class Explanation:
    """One reason a pod is not up, in words. `kind` is one of KINDS; `final` when it will not
    come up without a change (a crash, an image that never pulls), not when it may (a mount
    whose path may appear, a probe that may start passing)."""

    kind: str
    text: str
    pod: str
    container: str = ""

    @property
    def final(self) -> bool:
        return self.kind in FINAL_KINDS

    @property
    def rank(self) -> int:
        return KINDS.index(self.kind)


# LogKey: (pod name, container name); the value: that container's last lines
LogKey = tuple[str, str]


def log_requests(pod: shapes.Obj) -> list[tuple[str, bool]]:
    """(container, previous?) whose last lines explain the pod: the instance that crashed
    before a restart (`previous`), or a container that ended with a non-zero code."""
    wanted = []
    for container in _statuses(pod):
        state: shapes.ContainerState = container.get("state") or {}
        last_state: shapes.ContainerState = container.get("lastState") or {}
        last, ended = last_state.get("terminated"), state.get("terminated")
        if ended and _failed(ended):
            wanted.append((str(container.get("name")), False))
        elif last and _failed(last) and int(container.get("restartCount") or 0) > 0:
            wanted.append((str(container.get("name")), True))
    return wanted


def explain_pods(
    pods: Sequence[shapes.Obj],
    events: Sequence[dict[str, Any]],
    logs: Mapping[LogKey, Sequence[str]] | None = None,
) -> list[Explanation]:
    """Every explanation of every pod, the most important first (a pod being deleted only
    when no other pod explains anything)."""
    found: list[Explanation] = []
    leaving: list[Explanation] = []
    for pod in pods:
        reasons = explain_pod(pod, events_of(pod, events), logs or {})
        (leaving if shapes.meta(pod).get("deletionTimestamp") else found).extend(reasons)
    return sorted(found or leaving, key=lambda e: e.rank)


def events_of(pod: shapes.Obj, events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events about this pod (by uid where the event names one, else by name)."""
    meta = shapes.meta(pod)
    out = []
    for event in events:
        involved = event.get("involvedObject") or {}
        if involved.get("kind") not in (None, "Pod") or involved.get("name") != meta.get("name"):
            continue
        if involved.get("uid") and meta.get("uid") and involved["uid"] != meta["uid"]:
            continue
        out.append(event)
    return out


def explain_pod(
    pod: shapes.Obj,
    events: Sequence[dict[str, Any]],
    logs: Mapping[LogKey, Sequence[str]],
) -> list[Explanation]:
    """Why this pod is not up, one explanation per troubled container (and mount)."""
    name = _name(pod)
    out = []
    for container in _statuses(pod):
        found = _explain_container(pod, container, events, logs)
        if found is not None:
            out.append(found)
    if not any(e.final for e in out):
        mount = _failed_mount(pod, events)
        if mount:
            out.append(Explanation("mount", mount, name))
    return sorted(out, key=lambda e: e.rank)


def _explain_container(
    pod: shapes.Obj,
    container: shapes.ContainerStatus,
    events: Sequence[dict[str, Any]],
    logs: Mapping[LogKey, Sequence[str]],
) -> Explanation | None:
    pod_name = _name(pod)
    name = container.get("name", "")
    who = f"container `{name}` of pod {pod_name}"
    state: shapes.ContainerState = container.get("state") or {}
    waiting: shapes.ContainerStateWaiting = state.get("waiting") or {}
    reason = waiting.get("reason") or ""
    restarts = int(container.get("restartCount") or 0)
    last_state: shapes.ContainerState = container.get("lastState") or {}
    last: shapes.ContainerStateTerminated = last_state.get("terminated") or {}
    ended: shapes.ContainerStateTerminated = state.get("terminated") or {}

    def made(kind: str, text: str) -> Explanation:
        return Explanation(kind, text, pod_name, name)

    if reason == "CrashLoopBackOff" or _between_back_offs(pod, ended, restarts):
        crashed = ended or last
        how = _how_it_ended(crashed, _limit(pod, name)) if crashed else "exited"
        how += _liveness(name, events)
        lines = _lines(logs.get((pod_name, name)))
        said = reason or ended.get("reason") or "Error"
        return made(
            "crash-loop",
            f"{who} keeps crashing ({said}): {how}, restarted {_times(restarts)}{lines}",
        )
    if ended and _failed(ended) and _pod_phase(pod) != "Succeeded":
        how = _how_it_ended(ended, _limit(pod, name))
        return made("exit", f"{who} {how}{_lines(logs.get((pod_name, name)))}")
    if reason in IMAGE_REASONS:
        return made("image", _image_trouble(who, container, reason, waiting, events))
    if reason in CONFIG_REASONS:
        message = waiting.get("message") or ""
        return made("config", f"{who} cannot start ({reason}): {message}".rstrip(": "))
    if last and _failed(last) and state.get("running") is not None:
        how = _how_it_ended(last, _limit(pod, name)) + _liveness(name, events)
        lines = _lines(logs.get((pod_name, name)))
        return made("restarts", f"{who} restarted {_times(restarts)}, last {how}{lines}")
    if state.get("running") is not None and not container.get("ready"):
        probe = _probe_failures(name, events, ("Startup", "Readiness"))
        if probe:
            return made("probe", f"{who} is not ready: {probe}")
    return None


def _between_back_offs(
    pod: shapes.Obj, ended: shapes.ContainerStateTerminated, restarts: int
) -> bool:
    """A container that failed again after restarting, in a pod that restarts it: the same
    crash loop, seen in the moment between two back-offs (the kubelet shows it terminated
    before it shows CrashLoopBackOff again)."""
    policy = _spec(pod).get("restartPolicy") or "Always"
    return bool(ended) and _failed(ended) and restarts > 0 and policy != "Never"


def _how_it_ended(terminated: shapes.ContainerStateTerminated, limit: str) -> str:
    """`ran out of memory: ...` for OOMKilled, else `exited with code N`."""
    code = terminated.get("exitCode")
    if terminated.get("reason") == "OOMKilled":
        bound = f" ({limit})" if limit else ""
        return f"ran out of memory: killed for using more memory than its limit{bound}"
    signal = terminated.get("signal")
    if signal:
        return f"was killed by signal {signal} (exit code {code})"
    return f"exited with code {code}"


def _image_trouble(
    who: str,
    container: shapes.ContainerStatus,
    reason: str,
    waiting: shapes.ContainerStateWaiting,
    events: Sequence[dict[str, Any]],
) -> str:
    """The image and why it does not pull: the runtime's own words from the kubelet's newest
    `Failed to pull image` event when there is one (the back-off's message only says it waits)."""
    image = container.get("image") or ""
    message = waiting.get("message") or ""
    for event in reversed(events):
        pulled = _FAILED_PULL.match(str(event.get("message") or ""))
        if pulled and (not image or pulled.group(1) == image):
            message = pulled.group(2)
            break
    return f"{who} cannot pull image {image} ({reason}): {message}".rstrip(": ")


def _failed_mount(pod: shapes.Obj, events: Sequence[dict[str, Any]]) -> str:
    """`volume \\`v\\` cannot be mounted: <why> on node N` from the newest FailedMount event of
    a pod that has not started."""
    if _pod_phase(pod) not in ("Pending", ""):
        return ""
    node = _spec(pod).get("nodeName") or ""
    for event in reversed(events):
        if event.get("reason") != "FailedMount":
            continue
        text = str(event.get("message") or "")
        mount = _FAILED_MOUNT.search(text)
        if not mount:
            return f"pod {_name(pod)} cannot mount its volumes: {text}"
        volume, why = mount.group(1), mount.group(2).strip()
        check = _HOSTPATH_CHECK.match(why)
        if check:
            why = f"{check.group(1)} is not a {check.group(2)}"
        where = f" on node {node}" if node and check else ""
        return f"pod {_name(pod)}: volume `{volume}` cannot be mounted: {why}{where}"
    return ""


def _liveness(container: str, events: Sequence[dict[str, Any]]) -> str:
    """` after failing its liveness probe: <message> (N times)` when the kubelet restarted the
    container for its liveness probe, else ""."""
    failing = _probe_failures(container, events, ("Liveness",))
    said = failing.removeprefix("Liveness probe failed: ")
    return f" after failing its liveness probe: {said}" if failing else ""


def _probe_failures(
    container: str, events: Sequence[dict[str, Any]], probes: tuple[str, ...]
) -> str:
    """`<Probe> probe failed: <message> (N times)` from the kubelet's Unhealthy events about
    this container for the newest of these probes (a container with a startup probe fails that
    one, never its readiness probe, until it starts); "" when there are none."""
    said = [
        event
        for event in events
        if event.get("reason") == "Unhealthy"
        and str(event.get("message") or "").startswith(tuple(f"{p} probe" for p in probes))
        and _about_container(event, container)
    ]
    if not said:
        return ""
    newest_probe = str(said[-1].get("message") or "").split(" ", 1)[0]
    failing = [e for e in said if str(e.get("message") or "").startswith(newest_probe + " ")]
    count = sum(int(event.get("count") or 1) for event in failing)
    newest = str(failing[-1].get("message") or "").strip()
    return f"{newest} ({_times(count)})"


def _about_container(event: dict[str, Any], container: str) -> bool:
    """The event names this container (`spec.containers{name}`), or no container at all."""
    path = str((event.get("involvedObject") or {}).get("fieldPath") or "")
    return not path or path == f"spec.containers{{{container}}}"


def _limit(pod: shapes.Obj, container: str) -> str:
    for spec in _spec(pod).get("containers") or []:
        if spec.get("name") == container:
            resources: shapes.ResourceRequirements = spec.get("resources") or {}
            return (resources.get("limits") or {}).get("memory") or ""
    return ""


def _lines(lines: Sequence[str] | None) -> str:
    """`; last log lines: a | b`, each line cut to LINE_CHARS characters, with control
    characters (a terminal's escape sequences among them) escaped (gpuctl.terminal)."""
    quoted = [
        _cut(shown(line.strip()), LINE_CHARS)
        for line in (lines or [])[-LAST_LINES:]
        if line.strip()
    ]
    return "; last log lines: " + " | ".join(quoted) if quoted else ""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _failed(terminated: shapes.ContainerStateTerminated) -> bool:
    return int(terminated.get("exitCode") or 0) != 0 or terminated.get("reason") == "OOMKilled"


def _spec(pod: shapes.Obj) -> shapes.PodSpec:
    spec: shapes.PodSpec = shapes.pod(pod).get("spec") or {}
    return spec


def _status(pod: shapes.Obj) -> shapes.PodStatus:
    status: shapes.PodStatus = shapes.pod(pod).get("status") or {}
    return status


def _statuses(pod: shapes.Obj) -> list[shapes.ContainerStatus]:
    return list(_status(pod).get("containerStatuses") or [])


def _pod_phase(pod: shapes.Obj) -> str:
    return _status(pod).get("phase") or ""


def _name(pod: shapes.Obj) -> str:
    return str(shapes.meta(pod).get("name", ""))


def job_failure(job: dict[str, Any]) -> str:
    """A Job's Failed condition in words ("" when it has not failed): BackoffLimitExceeded says
    the Job gave up after its pods failed, DeadlineExceeded that it ran out of time."""
    adapter = workloads.adapter_of(job)
    if adapter is None or not adapter.runs_to_completion:
        return ""
    spec = job.get("spec") or {}
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") != "Failed" or condition.get("status") != "True":
            continue
        reason, message = condition.get("reason", ""), condition.get("message", "")
        if reason == "BackoffLimitExceeded":
            limit = spec.get("backoffLimit", 6)
            return (
                f"job failed (BackoffLimitExceeded): its pods failed more often than its "
                f"backoffLimit ({limit}) allows, so the Job gave up"
            )
        if reason == "DeadlineExceeded":
            deadline = spec.get("activeDeadlineSeconds")
            return f"job failed (DeadlineExceeded): it ran longer than its {deadline}s deadline"
        return f"job failed: {reason} {message}".strip()
    return ""
