"""Priorities on the `cluster` fixture (the sandbox and the real control plane): create
installs a missing PriorityClass and the pods carry its value.

Each test adds a GPU node of a pool of its own, so the other tests' pods do not take it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from gpuctl.cluster.client import Cluster as GpuctlCluster
from gpuctl.cluster.errors import KubeError
from tests.support.sandbox import Cluster

from .test_cluster_scenarios import pods, wait
from .test_placement_scenarios import node, ready
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
    name = "prio-" + cluster.namespace[-8:].strip("-").lower()
    client = GpuctlCluster.connect(str(cluster.kubeconfig))
    client.create(node(f"{name}-0", name, 4, {}))
    try:
        wait(lambda: ready(client.get("Node", f"{name}-0")), what="the node Ready")
        yield name
    finally:
        cluster.kubectl("delete", "job", "--all", "--wait=false", check=False)
        with contextlib.suppress(KubeError):
            client.delete("Node", f"{name}-0")


def test_create_installs_a_missing_class_and_the_pods_carry_its_value(
    cluster: Cluster, pool: str
) -> None:
    cluster.kubectl("delete", "priorityclass", "gpuctl-low", "--ignore-not-found")
    done = gpuctl(cluster, "create", "-f", "-", stdin=training("lowly", pool, 1, "low"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "priorityclass.scheduling.k8s.io/gpuctl-low created"
    made = wait(lambda: pods(cluster, "lowly"), what="the job's pod")
    spec = made[0]["spec"]
    assert (spec["priorityClassName"], spec["priority"]) == ("gpuctl-low", 100)
    assert spec["preemptionPolicy"] == "Never"
