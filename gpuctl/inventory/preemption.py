"""Which jobs lost pods to a higher-priority job, from what kube-scheduler leaves behind.

When the scheduler preempts, it sets the victim pod's condition DisruptionTarget (reason
PreemptionByScheduler), deletes the pod, and records an event about it: reason `Preempted`,
"Preempted by pod <uid> on node <node>", the preemptor pod as the event's related object. The
pod is gone soon after (its Job or ReplicaSet makes a new one, which waits for room), so the
event is what remains: a job whose pods are all waiting again, with such an event about one of
its former pods (named `<job>-...`), was preempted, by the job of the related pod.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError
from gpuctl.inventory import status

REASON = "Preempted"
MESSAGE = re.compile(r"Preempted by pod (?P<uid>\S+) on node (?P<node>\S+)")


@dataclass(frozen=True)
class Preemption:
    victim: str  # the pod that was evicted
    by_pod: str  # the preemptor pod
    by_job: str  # its gpuctl job ("" when it cannot be told: the pod is gone)
    node: str
    at: str  # when (RFC 3339)

    def words(self) -> str:
        by = f"job {self.by_job}" if self.by_job else f"pod {self.by_pod}"
        return (
            f"preempted by {by} (higher priority) on node {self.node}: pod {self.victim} was "
            "evicted to make room; it waits until GPUs free up"
        )


def _when(event: Mapping[str, Any]) -> str:
    return str(event.get("eventTime") or event.get("lastTimestamp") or "")


def preemption_events(events: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The scheduler's Preempted events about pods, oldest first."""
    found = [
        e
        for e in events
        if e.get("reason") == REASON
        and (e.get("involvedObject") or {}).get("kind") == "Pod"
        and MESSAGE.search(str(e.get("message") or ""))
    ]
    return sorted(found, key=_when)


def of_event(event: Mapping[str, Any], jobs_of_pods: Mapping[str, str]) -> Preemption:
    """The preemption an event records; `jobs_of_pods`: pod name -> gpuctl job, for the
    preemptor."""
    found = MESSAGE.search(str(event.get("message") or ""))
    related = event.get("related") or {}
    by_pod = str(related.get("name") or (found.group("uid") if found else ""))
    return Preemption(
        victim=str((event.get("involvedObject") or {}).get("name", "")),
        by_pod=by_pod,
        by_job=jobs_of_pods.get(by_pod, ""),
        node=found.group("node") if found else "",
        at=_when(event),
    )


def job_of_pod(pod_name: str, job_names: Iterable[str]) -> str:
    """The job a pod's name belongs to (`<job>-...`), the longest such name; "" if none."""
    return max((j for j in job_names if pod_name.startswith(f"{j}-")), key=len, default="")


def preemptor_jobs(
    cluster: ClusterAPI, events: Sequence[Mapping[str, Any]], namespace: str | None
) -> dict[str, str]:
    """pod name -> gpuctl job of each preemptor pod the events name that still exists."""
    out: dict[str, str] = {}
    for event in events:
        related = event.get("related") or {}
        name = related.get("name")
        if not name or name in out:
            continue
        try:
            pod = cluster.find("Pod", name, related.get("namespace") or namespace)
        except KubeError:
            pod = None
        labels = ((pod or {}).get("metadata") or {}).get("labels") or {}
        out[name] = status.job_name_of(labels)
    return out


def latest(job: str, preemptions: Iterable[Preemption]) -> Preemption | None:
    """The newest preemption of one of the job's pods."""
    mine = [p for p in preemptions if p.victim.startswith(f"{job}-")]
    return max(mine, key=lambda p: p.at, default=None)
