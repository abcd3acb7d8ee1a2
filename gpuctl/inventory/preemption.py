"""Which jobs lost pods to a higher-priority job, from what kube-scheduler leaves behind.

When the scheduler preempts, it sets the victim pod's condition DisruptionTarget (reason
PreemptionByScheduler), deletes the pod, and records an event about it: reason `Preempted`,
"Preempted by pod <uid> on node <node>", the preemptor pod as the event's related object. The
pod is gone soon after (its Job or ReplicaSet makes a new one, which waits for room), so the
event is what remains: a job whose pods are all waiting again, with such an event about one of
its former pods (named `<job>-...`), was preempted, by the job of the related pod.

The preemptor is named only to a reader who sees its namespace (gpuctl.inventory.visibility):
to anyone else it is "a higher-priority job in another namespace", with neither its job, its
pod nor its namespace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden, KubeError
from gpuctl.inventory import status, visibility

REASON = "Preempted"
MESSAGE = re.compile(r"Preempted by pod (?P<uid>\S+) on node (?P<node>\S+)")


@dataclass(frozen=True)
class Preemption:
    victim: str  # the pod that was evicted
    by_pod: str  # the preemptor pod ("" when the reader does not see its namespace)
    by_job: str  # its gpuctl job ("" when it cannot be told: the pod is gone, or hidden)
    node: str
    at: str  # when (RFC 3339)

    @property
    def hidden(self) -> bool:
        """Is the preemptor of a namespace the reader does not see?"""
        return not self.by_pod and not self.by_job

    def words(self) -> str:
        if self.hidden:
            by = visibility.ANOTHER_NAMESPACE
        else:
            by = f"job {self.by_job}" if self.by_job else f"pod {self.by_pod}"
            by += " (higher priority)"
        return (
            f"preempted by {by} on node {self.node}: pod {self.victim} was evicted to make "
            "room; it waits until GPUs free up"
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


def preemptor_namespace(event: Mapping[str, Any]) -> str:
    """The namespace of the preemptor pod the event relates to ("" when it names none: the
    message's uid is all there is)."""
    related = event.get("related") or {}
    if not related.get("name"):
        return ""
    involved = event.get("involvedObject") or {}
    return str(related.get("namespace") or involved.get("namespace") or "")


def of_event(
    event: Mapping[str, Any],
    jobs_of_pods: Mapping[str, str | None],
    sees: visibility.Sees = visibility.everyone,
) -> Preemption:
    """The preemption an event records, as a reader who `sees` those namespaces may read it;
    `jobs_of_pods` (preemptor_jobs): pod name -> gpuctl job of the preemptor, None when the
    reader may not read it."""
    found = MESSAGE.search(str(event.get("message") or ""))
    related = event.get("related") or {}
    by_pod = str(related.get("name") or (found.group("uid") if found else ""))
    by_job = jobs_of_pods.get(by_pod, "")
    if by_job is None or not sees(preemptor_namespace(event)):
        by_pod, by_job = "", ""
    return Preemption(
        victim=str((event.get("involvedObject") or {}).get("name", "")),
        by_pod=by_pod,
        by_job=by_job,
        node=found.group("node") if found else "",
        at=_when(event),
    )


def job_of_pod(pod_name: str, job_names: Iterable[str]) -> str:
    """The job a pod's name belongs to (`<job>-...`), the longest such name; "" if none."""
    return max((j for j in job_names if pod_name.startswith(f"{j}-")), key=len, default="")


def preemptor_jobs(
    cluster: ClusterAPI,
    events: Sequence[Mapping[str, Any]],
    sees: visibility.Sees = visibility.everyone,
) -> dict[str, str | None]:
    """pod name -> gpuctl job of each preemptor pod the events name ("" when it is gone);
    None for one the reader may not read: of a namespace it does not `see` (not read at
    all), or one the cluster forbids it to read."""
    out: dict[str, str | None] = {}
    for event in events:
        name = (event.get("related") or {}).get("name")
        where = preemptor_namespace(event)
        if not name or name in out:
            continue
        if not sees(where):
            out[name] = None
            continue
        try:
            pod = cluster.find("Pod", name, where)
        except Forbidden:
            out[name] = None
            continue
        except KubeError:
            pod = None
        labels = ((pod or {}).get("metadata") or {}).get("labels") or {}
        out[name] = status.job_name_of(labels)
    return out


def latest(job: str, preemptions: Iterable[Preemption]) -> Preemption | None:
    """The newest preemption of one of the job's pods."""
    mine = [p for p in preemptions if p.victim.startswith(f"{job}-")]
    return max(mine, key=lambda p: p.at, default=None)
