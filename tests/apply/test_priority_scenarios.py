"""Priorities on the `cluster` fixture (the sandbox and the real control plane): create
installs a missing PriorityClass and the pods carry its value; a `high` job in a full pool
evicts a `low` job's pod, and `get jobs` / `describe job` of the low one say by which job.

Each test adds a GPU node of a pool of its own, so the other tests' pods do not take it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.operate.test_job_states import job_detail
from tests.support.nodes import nodes_made, pool_name, pool_node
from tests.support.sandbox import Cluster

from .test_cluster_scenarios import pods, wait
from .test_scenarios import gpuctl


def training(name: str, pool: str, gpus: int, priority: str) -> str:
    return (
        f"kind: training\nversion: v0.1\njob: {{name: {name}, priority: {priority}}}\n"
        "environment:\n  image: busybox:1.36\n"
        '  command: ["sh", "-c", "sleep 600"]\n'
        f"resources:\n  pool: {pool}\n  gpu: {gpus}\n  cpu: 100m\n  memory: 64Mi\n"
    )


@pytest.fixture
def pool(cluster: Cluster) -> Iterator[str]:
    """A pool of one fresh 4-GPU node, deleted afterwards."""
    name = pool_name(cluster, "prio")
    with nodes_made(cluster, [pool_node(f"{name}-0", name, 4)]):
        yield name


@contextlib.contextmanager
def low_class_held() -> Iterator[None]:
    """PriorityClasses are cluster-wide and the local control plane is shared: while one test
    deletes gpuctl-low and creates a job that installs it again, no other test's `low` job may
    install it in between (a lock across the xdist workers)."""
    with LOW_CLASS_LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


LOW_CLASS_LOCK = Path(tempfile.gettempdir()) / "gpuctl-tests-gpuctl-low.lock"


def test_create_installs_a_missing_class_and_the_pods_carry_its_value(
    cluster: Cluster, pool: str
) -> None:
    with low_class_held():
        cluster.kubectl("delete", "priorityclass", "gpuctl-low", "--ignore-not-found")
        done = gpuctl(cluster, "create", "-f", "-", stdin=training("lowly", pool, 1, "low"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "priorityclass.scheduling.k8s.io/gpuctl-low created"
    made = wait(lambda: pods(cluster, "lowly"), what="the job's pod")
    spec = made[0]["spec"]
    assert (spec["priorityClassName"], spec["priority"]) == ("gpuctl-low", 100)
    assert spec["preemptionPolicy"] == "Never"


def service(name: str, pool: str, gpus: int, priority: str) -> str:
    """An inference service: its pods run until deleted on both clusters (a Job's pod would
    end after a while, in the sandbox and on kwok nodes alike)."""
    return (
        f"kind: inference\nversion: v0.1\njob: {{name: {name}, priority: {priority}}}\n"
        "environment:\n  image: busybox:1.36\n"
        '  command: ["sh", "-c", "sleep 3600"]\n'
        "service:\n  replicas: 1\n  port: 8000\n"
        f"resources:\n  pool: {pool}\n  gpu: {gpus}\n  cpu: 100m\n  memory: 64Mi\n"
    )


def pods_of(cluster: Cluster, name: str) -> list[dict[str, Any]]:
    out = cluster.kubectl("get", "pods", "-l", f"app={name}", "-o", "json").stdout
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items


def running_on(cluster: Cluster, name: str, node: str) -> bool:
    return any(
        p["spec"].get("nodeName") == node and p["status"].get("phase") == "Running"
        for p in pods_of(cluster, name)
        if not p["metadata"].get("deletionTimestamp")
    )


def test_a_high_job_in_a_full_pool_preempts_a_low_one(cluster: Cluster, pool: str) -> None:
    node_name = f"{pool}-0"
    with low_class_held():
        low = gpuctl(cluster, "create", "-f", "-", stdin=service("lowjob", pool, 4, "low"))
    assert low.returncode == 0, low.stderr
    wait(lambda: running_on(cluster, "lowjob", node_name), what="lowjob Running")
    victim = pods_of(cluster, "lowjob")[0]["metadata"]["name"]
    high = gpuctl(cluster, "create", "-f", "-", stdin=service("highjob", pool, 4, "high"))
    assert high.returncode == 0, high.stderr
    wait(lambda: running_on(cluster, "highjob", node_name), timeout=120, what="highjob Running")

    found = cluster.kubectl("get", "events", "--field-selector", "reason=Preempted", "-o", "json")
    preempted = [
        e for e in json.loads(found.stdout)["items"] if e["involvedObject"]["name"] == victim
    ]
    assert preempted, found.stdout
    high_pod = pods_of(cluster, "highjob")[0]["metadata"]
    assert preempted[0]["message"] == f"Preempted by pod {high_pod['uid']} on node {node_name}"
    assert preempted[0]["related"]["name"] == high_pod["name"]

    # its pod is made again and waits (low never preempts)
    again = wait(
        lambda: [p for p in pods_of(cluster, "lowjob") if p["metadata"]["name"] != victim],
        what="lowjob's new pod",
    )
    assert again[0]["status"]["phase"] == "Pending"
    listed = gpuctl(cluster, "get", "jobs", "-o", "wide").stdout
    row = next(line.split() for line in listed.splitlines() if line.startswith("lowjob "))
    assert row[3] == "Preempted" and row[-1] == "highjob", listed
    described = gpuctl(cluster, "describe", "job", "lowjob").stdout
    assert "Status:      Preempted" in described, described
    detail = job_detail(cluster, "lowjob")  # the REST API says what describe says
    assert detail["status"] == "preempted" and "preempted by job highjob" in detail["why"]
    assert (
        f"preempted by job highjob (higher priority) on node {node_name}: pod {victim} was "
        "evicted to make room; it waits until GPUs free up"
    ) in described, described
