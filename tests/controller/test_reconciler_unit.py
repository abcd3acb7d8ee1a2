"""The Reconciler on gpuctl.cluster.fake.FakeCluster (no cluster process; its status writes
stand for a status subresource's): a new workload gets its Job, written as gpuctl writes one,
on its strategy's node; a workload whose node is lost before its pod started has its Job
deleted and is placed again; a Failed workload whose spec changed starts over; a deleted one
is left alone; a failed create and a workload no node fits are called back later, the latter
with exponential backoff."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from gpuctl import constants as c
from gpuctl.cluster.errors import KubeError, ServerError
from gpuctl.cluster.fake import FakeCluster
from gpuctl.controller import backoff, resource
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.operator import Workers
from gpuctl.controller.queue import WorkQueue
from gpuctl.controller.reconcile import Reconciler
from gpuctl.controller.status import ERROR_RETRY_SECONDS
from gpuctl.controller.workload import label_value
from gpuctl.placement.affinity import pinned_node
from gpuctl.render.engine import render_priority_classes
from tests.controller.conftest import workload

NOW = 1_900_000_000.0


def fail_next_job_create(
    monkeypatch: pytest.MonkeyPatch, cluster: FakeCluster, error: KubeError
) -> None:
    """The next create of a Job raises `error` (and is recorded, as a refused request is)."""
    create = cluster.create

    def refusing(obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        if obj["kind"] != "Job":
            return create(obj, dry_run=dry_run)
        monkeypatch.setattr(cluster, "create", create)
        cluster.calls.append(("create", "Job", obj["metadata"]["name"]))
        raise error

    monkeypatch.setattr(cluster, "create", refusing)


def node(name: str, gpus: int, ready: bool = True) -> dict[str, Any]:
    capacity = {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "capacity": capacity,
            "allocatable": capacity,
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if ready else "False",
                    "lastTransitionTime": "2020-01-01T00:00:00Z",
                }
            ],
        },
    }


@pytest.fixture
def fake() -> FakeCluster:
    """Two GPU nodes, and gpuctl's PriorityClasses (`controller install` installs them)."""
    cluster = FakeCluster()
    cluster.add(node("big", 8), node("small", 4))
    cluster.add(*(manifest.obj for manifest in render_priority_classes()))
    return cluster


def reconciler(cluster: FakeCluster) -> Reconciler:
    return Reconciler(cluster, Metrics(), rng=random.Random(7), clock=at(NOW), snapshot_seconds=0)


def at(moment: float) -> Callable[[], float]:
    return lambda: moment


def made(cluster: FakeCluster, obj: dict[str, Any]) -> dict[str, Any]:
    obj["metadata"]["generation"] = 1
    return cluster.create(obj)


def current(cluster: FakeCluster, name: str) -> dict[str, Any]:
    return cluster.get(resource.KIND, name, "default")


def test_a_new_workload_gets_its_job_on_its_strategys_node(fake: FakeCluster) -> None:
    obj = made(fake, workload("w", 2, "binpack"))
    outcome = reconciler(fake).reconcile(obj)
    assert (outcome.result, outcome.message) == ("scheduled", "small")
    job = fake.get("Job", "w", "default")
    assert pinned_node(job) == "small"
    assert job["metadata"]["ownerReferences"][0]["uid"] == obj["metadata"]["uid"]
    assert job["metadata"]["labels"][c.Labels.WORKLOAD] == label_value("w")
    annotations = job["metadata"]["annotations"]
    assert c.RENDER_HASH_ANNOTATION in annotations
    assert "kind: training" in annotations[c.SPEC_ANNOTATION]
    status = current(fake, "w")["status"]
    assert (status["phase"], status["assignedNode"], status["jobName"]) == (
        "Scheduled",
        "small",
        "w",
    )
    assert fake.writes() == [
        ("create", resource.KIND, "w"),
        ("create", "Job", "w"),
        ("patch-status", resource.KIND, "w"),
    ]


def test_the_job_is_written_by_the_create_verb_which_installs_a_missing_priority_class(
    fake: FakeCluster,
) -> None:
    """The create verb's opening runs before the Job is written: the PriorityClass its pods
    name is created first when the cluster lacks it (as `gpuctl create` does)."""
    fake.delete("PriorityClass", "gpuctl-high")
    obj = made(fake, workload("w", 2, priority="high"))
    before = len(fake.writes())
    assert reconciler(fake).reconcile(obj).result == "scheduled"
    assert fake.writes()[before:] == [
        ("create", "PriorityClass", "gpuctl-high"),
        ("create", "Job", "w"),
        ("patch-status", resource.KIND, "w"),
    ]
    job = fake.get("Job", "w", "default")
    assert job["spec"]["template"]["spec"]["priorityClassName"] == "gpuctl-high"


def test_a_workload_whose_node_is_lost_before_its_pod_started_is_placed_again(
    fake: FakeCluster,
) -> None:
    controller = reconciler(fake)
    controller.reconcile(made(fake, workload("w", 2, "leastLoaded")))
    assert current(fake, "w")["status"]["assignedNode"] == "big"
    fake.add(node("big", 8, ready=False))  # NotReady since 2020: past the grace period

    replaced = controller.reconcile(current(fake, "w"))
    assert replaced.result == "replaced"
    assert fake.find("Job", "w", "default") is None
    status = current(fake, "w")["status"]
    assert (status["phase"], status["reason"], status["replacements"]) == (
        "Pending",
        "NodeNotReady",
        1,
    )
    assert "assignedNode" not in status

    again = controller.reconcile(current(fake, "w"))
    assert (again.result, again.message) == ("scheduled", "small")
    assert pinned_node(fake.get("Job", "w", "default")) == "small"
    assert current(fake, "w")["status"]["replacements"] == 1


def test_a_failed_workload_whose_spec_changed_starts_over(fake: FakeCluster) -> None:
    controller = reconciler(fake)
    controller.reconcile(made(fake, workload("w", 16, retryPolicy={"maxRetries": 0})))
    assert current(fake, "w")["status"]["phase"] == "Failed"
    assert controller.reconcile(current(fake, "w")).result == "unchanged"  # Failed is final

    fake.patch(resource.KIND, "w", "default", {"spec": {"gpuCount": 4}})
    fake.patch(resource.KIND, "w", "default", {"metadata": {"generation": 2}})
    outcome = controller.reconcile(current(fake, "w"))
    assert (outcome.result, outcome.message) == ("scheduled", "big")
    assert current(fake, "w")["status"]["observedGeneration"] == 2


def test_a_deleted_workload_is_left_alone(fake: FakeCluster) -> None:
    obj = made(fake, workload("w", 2))
    obj["metadata"]["deletionTimestamp"] = "2030-01-01T00:00:00Z"
    before = list(fake.writes())
    assert reconciler(fake).reconcile(obj).result == "deleted"
    assert fake.writes() == before


def test_a_failed_create_is_retried_later_and_then_placed(
    fake: FakeCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = reconciler(fake)
    fail_next_job_create(monkeypatch, fake, ServerError("etcd timed out", status=500))
    outcome = controller.reconcile(made(fake, workload("w", 2)))
    assert (outcome.result, outcome.requeue_after) == ("error", ERROR_RETRY_SECONDS)
    status = current(fake, "w")["status"]
    assert (status["phase"], status["reason"]) == ("Pending", "APIError")
    assert status["nextRetryTime"].startswith("2030-03-17T17:46:45")  # NOW + 5 s
    assert fake.find("Job", "w", "default") is None

    waiting = controller.reconcile(current(fake, "w"))  # called back early: still waits
    assert waiting.result == "waiting"
    assert 0 < (waiting.requeue_after or 0) <= ERROR_RETRY_SECONDS

    later = Reconciler(fake, Metrics(), clock=at(NOW + ERROR_RETRY_SECONDS + 1))
    assert later.reconcile(current(fake, "w")).result == "scheduled"
    assert fake.find("Job", "w", "default") is not None


def test_no_fitting_node_retries_with_exponential_backoff(fake: FakeCluster) -> None:
    obj = made(fake, workload("w", 16, retryPolicy={"maxRetries": 3, "backoffSeconds": 10}))
    delays = []
    for attempt in range(3):
        clock = NOW + 1000 * attempt  # each retry is due by then
        controller = Reconciler(fake, Metrics(), rng=random.Random(attempt), clock=at(clock))
        outcome = controller.reconcile(current(fake, "w") if attempt else obj)
        assert outcome.result == "retry"
        assert outcome.requeue_after == backoff.delay(10, attempt, random.Random(attempt))
        delays.append(outcome.requeue_after)
        assert current(fake, "w")["status"]["retries"] == attempt + 1
    assert 10 <= delays[0] <= 11 and 20 <= delays[1] <= 22 and 40 <= delays[2] <= 44
    final = Reconciler(fake, Metrics(), clock=at(NOW + 5000)).reconcile(current(fake, "w"))
    assert final.result == "failed"
    assert current(fake, "w")["status"]["reason"] == "RetriesExhausted"


class Held:
    """The informer's side of the workers: the objects it holds."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster

    def get(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.cluster.find(resource.KIND, name, namespace)


def test_the_workers_call_a_workload_back_when_its_reconcile_asks(
    fake: FakeCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    workers = Workers(reconciler(fake), Held(fake), queue)
    fail_next_job_create(monkeypatch, fake, ServerError("etcd timed out", status=500))
    workers.on_change("ADDED", made(fake, workload("w", 2)))
    assert queue.get() == ("default", "w")
    workers.handle(("default", "w"))
    queue.done(("default", "w"))
    assert len(queue) == 0  # not at once: after the retry's delay
    now[0] = ERROR_RETRY_SECONDS
    assert queue.get() == ("default", "w")

    fake.delete(resource.KIND, "w", "default")
    workers.handle(("default", "w"))  # gone: nothing is written, nothing called back
    queue.done(("default", "w"))
    now[0] = 1000.0
    queue.add(("default", "other"))
    assert queue.get() == ("default", "other")


def test_a_copy_older_than_the_controllers_own_status_write_waits_for_the_watch(
    fake: FakeCluster,
) -> None:
    """A watch that lags behind the controller's own status write must not get the workload
    placed again from the old copy: it is looked at again once the watch caught up."""
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    controller = reconciler(fake)
    old = made(fake, workload("w", 2))

    class Lagging:
        def get(self, namespace: str, name: str) -> dict[str, Any] | None:
            return old  # the copy from before the status write

    workers = Workers(controller, Lagging(), queue)
    workers.handle(("default", "w"))
    assert current(fake, "w")["status"]["phase"] == "Scheduled"
    writes = list(fake.writes())
    workers.handle(("default", "w"))  # the stale copy: nothing is written
    assert fake.writes() == writes
    now[0] = 1.0
    assert queue.get() == ("default", "w")
    assert not controller.behind(current(fake, "w"))  # the new copy is reconciled


def test_a_workload_is_never_placed_on_an_isolated_pools_node(fake: FakeCluster) -> None:
    """An isolated pool's nodes carry its taint and are kept for its own jobs: binpack would
    pick `small`, which is in such a pool, so the strategy picks among the others."""
    fake.patch(
        "Node",
        "small",
        None,
        {
            "metadata": {"labels": {c.Labels.POOL: "team"}},
            "spec": {
                "taints": [{"key": c.POOL_TAINT_KEY, "value": "team", "effect": "NoSchedule"}]
            },
        },
    )
    made(fake, workload("w", 2, "binpack"))
    outcome = reconciler(fake).reconcile(current(fake, "w"))
    assert (outcome.result, outcome.message) == ("scheduled", "big")
    job = fake.get("Job", "w", "default")
    assert pinned_node(job) == "big"


def test_a_workload_on_a_shared_pools_node_runs_in_that_pool(fake: FakeCluster) -> None:
    """A pool that does not isolate (no taint) takes GPUWorkloads: the Job joins the node's
    pool, so its affinity and toleration are the pool's (default-pool's would keep it off)."""
    fake.patch("Node", "small", None, {"metadata": {"labels": {c.Labels.POOL: "team"}}})
    made(fake, workload("w", 2, "binpack"))
    outcome = reconciler(fake).reconcile(current(fake, "w"))
    assert (outcome.result, outcome.message) == ("scheduled", "small")
    job = fake.get("Job", "w", "default")
    assert pinned_node(job) == "small"
    assert job["metadata"]["labels"][c.Labels.POOL] == "team"


def pool_record(pool: str, **data: str) -> dict[str, Any]:
    """A pool's record, as creating a pool file writes it."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"{c.POOL_CONFIGMAP_PREFIX}{pool}",
            "namespace": c.SYSTEM_NAMESPACE,
            "labels": {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE, c.Labels.POOL: pool},
        },
        "data": data,
    }


def test_a_job_on_a_kueue_pools_node_is_queued_there_as_create_queues_it(
    fake: FakeCluster,
) -> None:
    """The render options are the cluster's (verbs.options): the pool of the chosen node is a
    Kueue ClusterQueue, so the Job carries its queue label and is created suspended, and the
    create verb makes the namespace's LocalQueue; the status says where it waits."""
    fake.patch("Node", "small", None, {"metadata": {"labels": {c.Labels.POOL: "team"}}})
    fake.add(pool_record("team", **{c.POOL_KUEUE_KEY: "true", c.POOL_MAX_GPUS_KEY: "4"}))
    outcome = reconciler(fake).reconcile(made(fake, workload("w", 2, "binpack")))
    assert (outcome.result, outcome.message) == ("scheduled", "small")
    job = fake.get("Job", "w", "default")
    assert job["metadata"]["labels"][c.KUEUE_QUEUE_LABEL] == "team"
    assert job["spec"]["suspend"] is True
    assert pinned_node(job) == "small"
    assert fake.find("LocalQueue", "team", "default") is not None
    status = current(fake, "w")["status"]
    assert "queued in Kueue pool team" in status["message"]


def running_pod(name: str, node_name: str, gpus: int, pool: str) -> dict[str, Any]:
    """A running pod of a gpuctl job of `pool` (what counts against the pool's cap)."""
    labels = {c.Labels.POOL: pool, c.Labels.INSTANCE: name}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "other", "labels": labels},
        "spec": {
            "nodeName": node_name,
            "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": gpus}}}],
        },
        "status": {"phase": "Running"},
    }


def test_a_pool_without_kueue_at_its_cap_refuses_the_job_and_the_workload_retries(
    fake: FakeCluster,
) -> None:
    """The create verb refuses a Job that would take its pool beyond its GPU cap (a pool
    without Kueue): nothing is written, the GPUs the placement took are free again, and the
    workload retries on the backoff schedule with the verb's words."""
    for name in ("big", "small"):
        fake.patch("Node", name, None, {"metadata": {"labels": {c.Labels.POOL: "team"}}})
    fake.add(pool_record("team", **{c.POOL_MAX_GPUS_KEY: "4"}))
    fake.add(running_pod("busy", "big", 3, "team"))
    controller = reconciler(fake)
    outcome = controller.reconcile(made(fake, workload("w", 2, retryPolicy={"maxRetries": 2})))
    assert outcome.result == "retry"
    assert fake.find("Job", "w", "default") is None
    status = current(fake, "w")["status"]
    assert (status["phase"], status["reason"], status["retries"]) == (
        "Pending",
        "CreateRefused",
        1,
    )
    assert "pool team: 3 of 4 GPUs used, this job asks 2 (cap 4)" in status["message"]
    assert controller.placer.recent.unseen({}, time.monotonic()) == {}  # released


def test_a_namespace_quota_below_the_request_is_unschedulable_and_retried(
    fake: FakeCluster,
) -> None:
    """A request the namespace's quota never allows is refused by the create verb's
    feasibility check: the workload says so (reason Unschedulable) and is retried (an
    administrator may raise the quota); no Job is written."""
    fake.add(
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "gpus", "namespace": "default"},
            "spec": {"hard": {"requests.nvidia.com/gpu": "1"}},
        }
    )
    outcome = reconciler(fake).reconcile(made(fake, workload("w", 2)))
    assert outcome.result == "retry"
    assert fake.find("Job", "w", "default") is None
    status = current(fake, "w")["status"]
    assert (status["phase"], status["reason"]) == ("Pending", "Unschedulable")
    assert "namespace default's quota allows 1 nvidia.com/gpu in all" in status["message"]
    assert "\n" not in status["message"]


def test_a_job_of_the_workloads_name_that_is_not_a_job_fails_it(fake: FakeCluster) -> None:
    """The create verb refuses a job of that name whatever its kind (here an inference job's
    Deployment): the workload fails with JobNameTaken, nothing is written."""
    fake.add(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "w",
                "namespace": "default",
                "labels": {
                    c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE,
                    c.Labels.INSTANCE: "w",
                    c.Labels.JOB_TYPE: "inference",
                },
            },
            "spec": {"template": {"spec": {"containers": []}}},
        }
    )
    outcome = reconciler(fake).reconcile(made(fake, workload("w", 2)))
    assert outcome.result == "failed"
    status = current(fake, "w")["status"]
    assert (status["phase"], status["reason"]) == ("Failed", "JobNameTaken")
    assert fake.find("Job", "w", "default") is None
