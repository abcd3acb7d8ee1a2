"""Reconcile on the sandbox: each strategy's node, the Job gpuctl renders pinned there, GPUs
promised before pods exist, retries with backoff then Failed, adoption, and cleanup."""

from __future__ import annotations

import logging
import random
import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from gpuctl.controller import resource
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.reconcile import Reconciler
from gpuctl.controller.workload import label_value, workload_selector
from tests.conftest import Env
from tests.controller.conftest import workload
from tests.support.sandbox import SandboxCluster, wait_for


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


def make(env: Env, obj: dict[str, Any]) -> dict[str, Any]:
    return env.cluster.create(obj)


def current(env: Env, name: str) -> dict[str, Any]:
    return env.cluster.get(resource.KIND, name, "default")


def status(env: Env, name: str) -> dict[str, Any]:
    return dict(current(env, name).get("status") or {})


def sample(metrics: Metrics, name: str, labels: dict[str, str] | None = None) -> float:
    value = metrics.registry.get_sample_value(name, labels or {})
    return 0.0 if value is None else value


@pytest.mark.parametrize(
    ("strategy", "gpus", "node"),
    [("leastLoaded", 2, "big"), ("binpack", 2, "small"), ("costOptimized", 2, "mid")],
)
def test_each_strategy_places_the_job_on_its_node(
    crd_env: Env, strategy: str, gpus: int, node: str
) -> None:
    metrics = Metrics()
    reconciler = Reconciler(crd_env.cluster, metrics)
    outcome = reconciler.reconcile(make(crd_env, workload("w", gpus, strategy)))
    assert (outcome.result, outcome.message) == ("scheduled", node)
    got = status(crd_env, "w")
    assert (got["phase"], got["assignedNode"], got["jobName"]) == ("Scheduled", node, "w")
    assert got["conditions"][0]["type"] == "Scheduled"
    assert got["conditions"][0]["status"] == "True"
    job = crd_env.cluster.get("Job", "w", "default")
    terms = job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert terms == [  # a GPUWorkload's Job is in default-pool: the nodes in no pool
        {
            "matchExpressions": [
                {"key": "runwhere.ai/pool", "operator": "DoesNotExist"},
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]},
            ]
        }
    ]
    assert "nodeName" not in job["spec"]["template"]["spec"]
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == str(gpus)
    assert {"name": "MODEL_NAME", "value": "llama2"} in container["env"]
    assert job["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "gpuctl"
    assert job["metadata"]["ownerReferences"][0]["uid"] == current(crd_env, "w")["metadata"]["uid"]
    pods = wait_for(
        lambda: crd_env.cluster.list("Pod", "default", label_selector="gpu.warp.dev/workload=w"),
        what="the Job's pod",
    )
    wait_for(
        lambda: crd_env.cluster.get("Pod", pods[0]["metadata"]["name"], "default")["spec"].get(
            "nodeName"
        )
    )
    assert (
        crd_env.cluster.get("Pod", pods[0]["metadata"]["name"], "default")["spec"]["nodeName"]
        == node
    )
    assert sample(metrics, "warp_gpuworkload_scheduled_total", {"strategy": strategy}) == 1


def test_random_places_on_a_suitable_node_drawn_by_the_seed(crd_env: Env) -> None:
    chosen = set()
    for seed in range(6):
        reconciler = Reconciler(crd_env.cluster, rng=random.Random(seed))
        outcome = reconciler.reconcile(make(crd_env, workload(f"r{seed}", 1, "random")))
        assert outcome.result == "scheduled"
        chosen.add(outcome.message)
    assert chosen <= {"big", "mid", "small"}
    assert len(chosen) > 1


def test_gpus_placed_but_not_yet_running_are_not_given_twice(crd_env: Env) -> None:
    """Three 8-GPU-node-sized requests at once: the 8 free on big go to one of them only."""
    reconciler = Reconciler(crd_env.cluster)
    objects = [make(crd_env, workload(f"w{i}", 5)) for i in range(3)]
    threads = [threading.Thread(target=reconciler.reconcile, args=(obj,)) for obj in objects]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    nodes = sorted(status(crd_env, f"w{i}").get("assignedNode", "-") for i in range(3))
    assert nodes == ["-", "big", "mid"]
    assert len(crd_env.cluster.list("Job", "default")) == 2


def test_a_pod_pinned_elsewhere_but_not_yet_bound_holds_its_gpus(crd_env: Env) -> None:
    """What `gpuctl create` pinned to big and the scheduler has not bound (here: it asks for
    more CPU than big has) keeps its 6 GPUs from the controller, which goes to mid."""
    waiting = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pinned", "namespace": "default"},
        "spec": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "kubernetes.io/hostname",
                                        "operator": "In",
                                        "values": ["big"],
                                    }
                                ]
                            }
                        ]
                    }
                }
            },
            "containers": [
                {
                    "name": "main",
                    "image": "busybox:1.36",
                    "resources": {"limits": {"nvidia.com/gpu": "6", "cpu": "500"}},
                }
            ],
        },
    }
    make(crd_env, waiting)
    outcome = Reconciler(crd_env.cluster).reconcile(make(crd_env, workload("w", 4)))
    assert (outcome.result, outcome.message) == ("scheduled", "mid")
    assert not crd_env.cluster.get("Pod", "pinned", "default")["spec"].get("nodeName")


def test_over_capacity_retries_with_backoff_then_fails(crd_env: Env) -> None:
    clock, metrics = Clock(), Metrics()
    reconciler = Reconciler(crd_env.cluster, metrics, random.Random(1), clock)
    retry_policy = {"maxRetries": 2, "backoffSeconds": 10}
    obj = make(crd_env, workload("huge", 9, retryPolicy=retry_policy))

    first = reconciler.reconcile(obj)
    assert first.result == "retry" and first.requeue_after is not None
    assert 10 <= first.requeue_after <= 11
    got = status(crd_env, "huge")
    assert (got["phase"], got["retries"], got["reason"]) == ("Pending", 1, "NoSuitableNode")
    assert got["message"].startswith("no Ready, schedulable node has 9 free GPU(s)")
    assert sample(metrics, "warp_gpuworkload_fragmented_gpus") == 8 + 6 + 4

    early = reconciler.reconcile(current(crd_env, "huge"))  # an event before the retry is due
    assert early.result == "waiting" and early.requeue_after == pytest.approx(
        first.requeue_after, abs=1
    )
    assert status(crd_env, "huge")["retries"] == 1

    clock.now += first.requeue_after + 1
    second = reconciler.reconcile(current(crd_env, "huge"))
    assert second.result == "retry" and second.requeue_after is not None
    assert 20 <= second.requeue_after <= 22
    assert status(crd_env, "huge")["retries"] == 2

    clock.now += second.requeue_after + 1
    last = reconciler.reconcile(current(crd_env, "huge"))
    assert (last.result, last.requeue_after) == ("failed", None)
    got = status(crd_env, "huge")
    assert (got["phase"], got["reason"], got["retries"]) == ("Failed", "RetriesExhausted", 2)
    assert got["message"].endswith("gave up after 2 retries")
    assert reconciler.reconcile(current(crd_env, "huge")).result == "unchanged"
    assert crd_env.cluster.list("Job", "default") == []
    assert sample(metrics, "warp_gpuworkload_failed_total", {"reason": "NoSuitableNode"}) == 3
    assert sample(metrics, "warp_gpuworkload_retries_total") == 2
    assert sample(metrics, "warp_gpuworkload_fragmented_gpus") == 0  # Failed: not pending


def test_fragmented_gpus_fall_to_zero_once_no_workload_waits(crd_env: Env) -> None:
    """From the caches when the metric is read: a pending workload deleted (no reconcile
    follows) leaves no fragmentation behind."""
    metrics = Metrics()
    cache = ClusterCache(crd_env.cluster, "default", None, resource.KIND)
    assert cache.start(timeout=20)
    try:
        reconciler = Reconciler(crd_env.cluster, metrics, cache=cache)
        wait = {"maxRetries": 5, "backoffSeconds": 300}
        assert reconciler.reconcile(
            make(crd_env, workload("huge", 9, retryPolicy=wait))
        ).result == ("retry")
        wait_for(
            lambda: sample(metrics, "warp_gpuworkload_fragmented_gpus") == 8 + 6 + 4,
            what="the pending workload in the cache",
        )
        crd_env.cluster.delete(resource.KIND, "huge", "default", propagation="Background")
        wait_for(
            lambda: sample(metrics, "warp_gpuworkload_fragmented_gpus") == 0,
            what="fragmented GPUs back to 0 once huge is gone",
        )
    finally:
        cache.stop()


def test_an_existing_job_is_adopted_never_duplicated(crd_env: Env) -> None:
    reconciler = Reconciler(crd_env.cluster)
    reconciler.reconcile(make(crd_env, workload("w", 2)))
    # the status write is lost (say the controller stopped right after creating the Job)
    crd_env.cluster.patch(resource.KIND, "w", "default", {"status": None}, subresource="status")
    assert status(crd_env, "w") == {}
    outcome = Reconciler(crd_env.cluster).reconcile(current(crd_env, "w"))
    assert (outcome.result, outcome.message) == ("adopted", "big")
    got = status(crd_env, "w")
    assert (got["phase"], got["assignedNode"], got["reason"]) == ("Scheduled", "big", "JobAdopted")
    assert [job["metadata"]["name"] for job in crd_env.cluster.list("Job", "default")] == ["w"]


def test_a_job_of_the_same_name_owned_by_someone_else_fails_the_workload(crd_env: Env) -> None:
    [job] = [m.obj for m in crd_env.render(TRAINING) if m.kind == "Job"]
    crd_env.cluster.create(job)
    Reconciler(crd_env.cluster).reconcile(make(crd_env, workload("w", 1)))
    got = status(crd_env, "w")
    assert (got["phase"], got["reason"]) == ("Failed", "JobNameTaken")


TRAINING = """
kind: training
version: v0.1
job: {name: w}
environment: {image: busybox:1.36}
resources: {cpu: 1, memory: 1Gi}
"""


def test_deleting_the_workload_deletes_its_job(crd_env: Env) -> None:
    Reconciler(crd_env.cluster).reconcile(make(crd_env, workload("w", 2)))
    assert crd_env.cluster.find("Job", "w", "default") is not None
    crd_env.cluster.delete(resource.KIND, "w", "default", propagation="Background")
    wait_for(lambda: crd_env.cluster.find("Job", "w", "default") is None, what="the Job's deletion")
    wait_for(
        lambda: (
            not crd_env.cluster.list("Pod", "default", label_selector="gpu.warp.dev/workload=w")
        ),
        what="the pods' deletion",
    )


def test_a_spec_the_training_schema_refuses_fails_the_workload(crd_env: Env) -> None:
    obj = make(crd_env, workload("w", 1, image="has space"))
    Reconciler(crd_env.cluster).reconcile(obj)
    got = status(crd_env, "w")
    assert (got["phase"], got["reason"]) == ("Failed", "InvalidSpec")
    assert "environment.image" in got["message"]


def test_placements_a_lagging_cache_does_not_show_yet_still_hold_their_gpus(crd_env: Env) -> None:
    """The cache holds what was read before any placement and is never updated; each
    placement reads it anew (no snapshot reuse): the controller's own placements still count."""
    cache = ClusterCache(crd_env.cluster, "default", None, resource.KIND)
    cache.nodes.replace_all(crd_env.cluster.list("Node"))
    cache.pods.replace_all(crd_env.cluster.list("Pod", None))
    cache.workloads.replace_all([])
    reconciler = Reconciler(crd_env.cluster, snapshot_seconds=0, cache=cache)
    first = reconciler.reconcile(make(crd_env, workload("w1", 5)))
    second = reconciler.reconcile(make(crd_env, workload("w2", 5)))
    assert (first.message, second.message) == ("big", "mid")
    # once the cache shows a placement, it is counted from the cache, not twice
    cache.workloads.replace_all([current(crd_env, "w1"), current(crd_env, "w2")])
    third = reconciler.reconcile(make(crd_env, workload("w3", 3, "binpack")))
    assert third.message == "big"  # 3 free on big (0 if counted twice), 1 on mid, 4 on small


def test_a_node_notready_for_less_than_the_grace_period_keeps_its_workload(crd_env: Env) -> None:
    """The Job's pod asks for more CPU than any node has, so it never starts: only the node's
    readiness, and for how long, decides."""
    clock = Clock()
    reconciler = Reconciler(crd_env.cluster, clock=clock, not_ready_grace_seconds=30)
    placed = reconciler.reconcile(make(crd_env, workload("w", 2, cpu="100")))
    assert placed.message == "big"
    since = datetime.fromtimestamp(clock.now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    not_ready = {"type": "Ready", "status": "False", "lastTransitionTime": since}
    crd_env.cluster.patch(
        "Node", "big", None, {"status": {"conditions": [not_ready]}}, subresource="status"
    )
    clock.now += 10
    assert reconciler.reconcile(current(crd_env, "w")).result == "unchanged"
    assert crd_env.cluster.find("Job", "w", "default") is not None
    clock.now += 25
    assert reconciler.reconcile(current(crd_env, "w")).result == "replaced"
    got = status(crd_env, "w")
    assert (got["phase"], got["reason"], got["replacements"]) == ("Pending", "NodeNotReady", 1)
    wait_for(lambda: crd_env.cluster.find("Job", "w", "default") is None, what="the Job deleted")


def test_a_stale_cache_is_not_placed_on_the_cluster_is_read_instead(crd_env: Env) -> None:
    """The cache still shows the cluster from before w1 was placed, and can no longer vouch
    for it (a silent watch, a new cluster...): placement reads the cluster, where w1 holds
    its GPUs, instead of giving them twice."""
    first = Reconciler(crd_env.cluster, snapshot_seconds=0).reconcile(
        make(crd_env, workload("w1", 5))
    )
    assert first.message == "big"
    cache = ClusterCache(crd_env.cluster, "default", None, resource.KIND)
    cache.nodes.replace_all(crd_env.cluster.list("Node"))
    cache.pods.replace_all([])
    cache.workloads.replace_all([])
    for informer in (cache.nodes, cache.pods, cache.workloads):
        informer.silence_seconds = 0.0  # nothing heard since: stale at once
    assert cache.stale.startswith("no word from the cluster")
    reconciler = Reconciler(crd_env.cluster, snapshot_seconds=0, cache=cache)
    second = reconciler.reconcile(make(crd_env, workload("w2", 5)))
    assert second.message == "mid"  # "big" again from the stale cache


LONG_NAME = "a-workload-whose-name-is-far-longer-than-a-label-value-may-be-at-all"


def test_a_name_longer_than_a_label_value_is_placed_under_a_hashed_label(
    crd_env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    assert len(LONG_NAME) > 63
    metrics = Metrics()
    reconciler = Reconciler(crd_env.cluster, metrics)
    with caplog.at_level(logging.INFO, logger="gpuctl.controller"):
        outcome = reconciler.reconcile(make(crd_env, workload(LONG_NAME, 2)))
    assert outcome.result == "scheduled", outcome.message
    job_name = status(crd_env, LONG_NAME)["jobName"]
    job = crd_env.cluster.get("Job", job_name, "default")
    value = label_value(LONG_NAME)
    assert len(value) == 63 and value.startswith(LONG_NAME[:52] + "-")
    for meta in (job["metadata"], job["spec"]["template"]["metadata"]):
        assert meta["labels"]["gpu.warp.dev/workload"] == value
        assert meta["annotations"]["gpu.warp.dev/workload-name"] == LONG_NAME
    pods = wait_for(
        lambda: crd_env.cluster.list("Pod", "default", label_selector=workload_selector(LONG_NAME)),
        what="the Job's pod, by the workload's label",
    )
    assert len(pods) == 1
    assert sample(metrics, "warp_gpuworkload_failed_total", {"reason": "APIError"}) == 0
    assert f"default/{LONG_NAME} Scheduled (Scheduled): Job {job_name} created on big" in (
        caplog.text
    )
    # found again by its label: a placed workload whose pod runs is final
    wait_for(
        lambda: (
            crd_env.cluster.get("Pod", pods[0]["metadata"]["name"], "default")["status"]["phase"]
            == "Running"
        ),
        what="the pod running",
    )
    assert reconciler.reconcile(current(crd_env, LONG_NAME)).result == "unchanged"


def test_an_object_the_api_server_refuses_fails_the_workload_and_is_logged(
    crd_env: Env, sandbox: SandboxCluster, caplog: pytest.LogCaptureFixture
) -> None:
    metrics = Metrics()
    sandbox.faults.fail(
        verb="create", resource="jobs", status=422, reason="Invalid", message="Job is invalid"
    )
    with caplog.at_level(logging.INFO, logger="gpuctl.controller"):
        outcome = Reconciler(crd_env.cluster, metrics).reconcile(make(crd_env, workload("w", 2)))
    assert (outcome.result, outcome.requeue_after) == ("error", None)
    got = status(crd_env, "w")
    assert (got["phase"], got["reason"]) == ("Failed", "APIError")
    assert "an API request refused: " in got["message"] and "Job is invalid" in got["message"]
    assert got["conditions"][0]["reason"] == "APIError"
    assert got["conditions"][0]["message"] == got["message"]
    assert sample(metrics, "warp_gpuworkload_failed_total", {"reason": "APIError"}) == 1
    assert any(
        r.levelname == "WARNING" and "Job is invalid" in r.getMessage() for r in caplog.records
    )
    assert crd_env.cluster.list("Job", "default") == []


def test_a_failed_request_is_said_in_the_status_and_retried(
    crd_env: Env, sandbox: SandboxCluster
) -> None:
    clock = Clock()
    reconciler = Reconciler(crd_env.cluster, clock=clock)
    sandbox.faults.fail(verb="create", resource="jobs", status=500, message="etcd is slow")
    outcome = reconciler.reconcile(make(crd_env, workload("w", 2)))
    assert (outcome.result, outcome.requeue_after) == ("error", 5.0)
    got = status(crd_env, "w")
    assert (got["phase"], got["reason"]) == ("Pending", "APIError")
    assert "retrying in 5s" in got["message"] and "etcd is slow" in got["message"]
    assert reconciler.reconcile(current(crd_env, "w")).result == "waiting"
    clock.now += 5
    assert reconciler.reconcile(current(crd_env, "w")).result == "scheduled"
    assert status(crd_env, "w")["retries"] == 0


@pytest.mark.parametrize(
    "malformed",
    [
        {"phase": "Scheduled", "assignedNode": 7, "retries": "x", "replacements": "many"},
        {"phase": "Placed", "retries": 2},
        ["Scheduled"],
        "Scheduled",
    ],
)
def test_a_status_it_cannot_read_is_treated_as_new_logged_and_rewritten(
    crd_env: Env, caplog: pytest.LogCaptureFixture, malformed: Any
) -> None:
    """What a CRD without the status schema (an older version of it) may hold."""
    obj = {**make(crd_env, workload("w", 2)), "status": malformed}
    with caplog.at_level(logging.INFO, logger="gpuctl.controller"):
        outcome = Reconciler(crd_env.cluster).reconcile(obj)
    assert (outcome.result, outcome.message) == ("scheduled", "big")
    got = status(crd_env, "w")
    assert (got["phase"], got["assignedNode"], got["retries"]) == ("Scheduled", "big", 0)
    assert "replacements" not in got
    assert any(
        r.levelname == "WARNING" and "its status cannot be read" in r.getMessage()
        for r in caplog.records
    )
