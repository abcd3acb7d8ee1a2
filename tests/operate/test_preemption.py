"""gpuctl.inventory.preemption on hand-made events (no cluster but the in-process fake): the
preemptor is named only to a reader who sees its namespace, and another namespace's pod is
not even read for one who does not."""

from __future__ import annotations

from typing import Any

from gpuctl.cli.views.jobs import job_rows
from gpuctl.cluster.errors import Forbidden
from gpuctl.cluster.fake import FakeCluster
from gpuctl.inventory import preemption, visibility

HIDDEN = (
    "preempted by a higher-priority job in another namespace on node n1: pod victim-abc was "
    "evicted to make room; it waits until GPUs free up"
)


def _event(related: dict[str, str] | None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "metadata": {"name": "victim-abc.1", "namespace": "alice"},
        "reason": "Preempted",
        "message": "Preempted by pod uid-9 on node n1",
        "involvedObject": {"kind": "Pod", "name": "victim-abc", "namespace": "alice"},
        "lastTimestamp": "2026-11-28T10:00:00Z",
    }
    if related is not None:
        event["related"] = related
    return event


def _cluster() -> FakeCluster:
    cluster = FakeCluster()
    pod = {
        "kind": "Pod",
        "metadata": {"name": "secret-x-1", "namespace": "bob", "labels": {"app": "secret-x"}},
    }
    cluster.add(pod)
    return cluster


BOBS = {"kind": "Pod", "name": "secret-x-1", "namespace": "bob"}


class NoPodsOfBob(FakeCluster):
    """A cluster whose RBAC forbids reading the preemptor's pod."""

    def find(self, kind: str, name: str, namespace: str | None = None) -> Any:
        raise Forbidden(f'pods "{name}" is forbidden', status=403)


def _read(cluster: FakeCluster, event: dict[str, Any], sees: visibility.Sees) -> str:
    found = preemption.of_event(event, preemption.preemptor_jobs(cluster, [event], sees), sees)
    return found.words()


def test_the_preemptor_is_named_to_who_sees_its_namespace() -> None:
    cluster, event = _cluster(), _event(BOBS)
    named = _read(cluster, event, visibility.everyone)
    assert named.startswith("preempted by job secret-x (higher priority) on node n1")
    assert _read(cluster, event, visibility.only("alice", "bob")) == named


def test_another_namespaces_preemptor_is_neither_named_nor_read() -> None:
    cluster, event = _cluster(), _event(BOBS)
    assert _read(cluster, event, visibility.only("alice")) == HIDDEN
    assert not [call for call in cluster.calls if call[0] == "get"]  # bob's pod not read


def test_a_preemptor_the_cluster_forbids_reading_is_not_named() -> None:
    """The command line (and a caller RBAC decides for) sees what its credentials may read."""

    cluster = NoPodsOfBob()
    assert _read(cluster, _event(BOBS), visibility.everyone) == HIDDEN


def test_a_preemptor_known_only_by_its_uid_is_named_to_who_sees_everything() -> None:
    cluster, event = _cluster(), _event(None)  # no related object: the message's uid only
    assert _read(cluster, event, visibility.only("alice")) == HIDDEN
    assert _read(cluster, event, visibility.everyone).startswith("preempted by pod uid-9 ")


def test_a_preemptor_of_the_readers_own_namespace_is_named() -> None:
    cluster = FakeCluster()
    cluster.add(
        {
            "kind": "Pod",
            "metadata": {"name": "big-1", "namespace": "alice", "labels": {"app": "big"}},
        }
    )
    event = _event({"kind": "Pod", "name": "big-1", "namespace": "alice"})
    assert _read(cluster, event, visibility.only("alice")).startswith("preempted by job big ")


def test_get_jobs_wide_shows_a_hidden_preemptor_as_another_namespace() -> None:
    job = {
        "kind": "Deployment",
        "metadata": {"name": "victim", "namespace": "alice", "labels": {}},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [{"image": "busybox"}]}}},
        "status": {},
    }
    cluster = NoPodsOfBob()
    event = _event(BOBS)
    lost = preemption.of_event(event, preemption.preemptor_jobs(cluster, [event]))
    headers, rows = job_rows(
        [job], all_namespaces=False, wide=True, preempted={("alice", "victim"): lost}
    )
    assert rows[0][headers.index("PREEMPTED-BY")] == "<another-namespace>"
    assert rows[0][headers.index("STATUS")] == "Preempted"
