"""`gpuctl create` with resources.placement on the `cluster` fixture (the sandbox and the real
control plane): each strategy pins the job to the node it should, and its pod lands there; a
job no node fits is refused with nothing written.

Each test adds three GPU nodes of a pool of its own (free GPUs: big 8, mid 6 cheap, small 4
cheap), so the other tests' pods running meanwhile on the shared control plane do not change
the expected choice; the nodes are small in CPU and memory, so the scheduler prefers other
nodes for pods without a pin."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.support.nodes import nodes_made, pool_name, pool_node
from tests.support.sandbox import Cluster

from .test_cluster_scenarios import pods, wait
from .test_scenarios import gpuctl

CHEAP = {"gpu-orchestrator/cheap-node": "true"}


def training(name: str, pool: str, gpus: int, strategy: str) -> str:
    return (
        f"kind: training\nversion: v0.1\njob: {{name: {name}}}\n"
        "environment:\n  image: busybox:1.36\n"
        '  command: ["sh", "-c", "sleep 600"]\n'
        f"resources:\n  pool: {pool}\n  gpu: {gpus}\n  cpu: 100m\n  memory: 64Mi\n"
        f"  placement: {strategy}\n"
    )


@pytest.fixture
def pool(cluster: Cluster) -> Iterator[tuple[str, dict[str, str]]]:
    """(pool name, role -> node name) of three fresh nodes, deleted afterwards."""
    name = pool_name(cluster, "place")
    roles = {"big": (8, {}), "mid": (6, CHEAP), "small": (4, CHEAP)}
    names = {role: f"{name}-{role}" for role in roles}
    made = [
        pool_node(names[role], name, gpus, labels=labels) for role, (gpus, labels) in roles.items()
    ]
    with nodes_made(cluster, made):
        yield name, names


@pytest.mark.parametrize(
    ("strategy", "gpus", "role"),
    [
        ("leastLoaded", 2, "big"),
        ("binpack", 2, "small"),
        ("costOptimized", 2, "mid"),
        ("random", 7, "big"),  # only big has 7 free
    ],
)
def test_create_with_a_strategy_pins_the_job_to_its_node(
    cluster: Cluster, pool: tuple[str, dict[str, str]], strategy: str, gpus: int, role: str
) -> None:
    name, nodes = pool
    expected = nodes[role]
    done = gpuctl(cluster, "create", "-f", "-", stdin=training("placed", name, gpus, strategy))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"job.batch/placed created on node {expected} ({strategy}: ")
    job = json.loads(cluster.kubectl("get", "job", "placed", "-o", "json").stdout)
    terms = job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    pinned = {"key": "kubernetes.io/hostname", "operator": "In", "values": [expected]}
    assert terms == [{"matchExpressions": [pinned]}]

    def bound() -> list[str]:
        return [p["spec"]["nodeName"] for p in pods(cluster, "placed") if p["spec"].get("nodeName")]

    assert wait(bound, what="the pod to be bound") == [expected]


def test_create_refuses_a_job_no_node_of_its_pool_fits(
    cluster: Cluster, pool: tuple[str, dict[str, str]]
) -> None:
    name, nodes = pool
    done = gpuctl(cluster, "create", "-f", "-", stdin=training("toobig", name, 9, "binpack"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(
        "error: <stdin>:9:8: resources.gpu: a pod asks for 9 nvidia.com/gpu, more than any node "
        f"in pool {name} has: the largest, {nodes['big']}, has 8"
    ), done.stderr
    assert "nothing was created" in done.stderr
    listed = cluster.kubectl("get", "jobs,services", "-o", "name").stdout
    assert listed.strip() == ""


def test_a_two_node_run_gets_two_distinct_nodes(
    cluster: Cluster, pool: tuple[str, dict[str, str]]
) -> None:
    name, nodes = pool
    spec = training("pair", name, 4, "leastLoaded") + "  node_count: 2\n"
    done = gpuctl(cluster, "create", "-f", "-", stdin=spec)
    assert done.returncode == 0, done.stderr
    assert f"job.batch/pair created on nodes {nodes['big']}, {nodes['mid']} (leastLoaded: " in (
        done.stdout
    )

    def bound() -> list[str]:
        names = [p["spec"].get("nodeName") for p in pods(cluster, "pair")]
        return sorted(names) if len(names) == 2 and all(names) else []

    assert wait(bound, what="both pods to be bound") == sorted([nodes["big"], nodes["mid"]])


def test_apply_again_keeps_the_node_of_the_running_job(
    cluster: Cluster, pool: tuple[str, dict[str, str]]
) -> None:
    name, nodes = pool
    spec = training("kept", name, 6, "leastLoaded")
    done = gpuctl(cluster, "apply", "-f", "-", stdin=spec)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"job.batch/kept created on node {nodes['big']} ")

    def bound() -> list[str]:
        return [p["spec"]["nodeName"] for p in pods(cluster, "kept") if p["spec"].get("nodeName")]

    wait(bound, what="the pod to be bound")
    # the live pin is kept (the job's own pod counts as free), not placed anew
    again = gpuctl(cluster, "apply", "-f", "-", stdin=spec)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        f"job.batch/kept unchanged on node {nodes['big']} (kept from the live Job: leastLoaded "
        "placed it there and it still fits)\n"
    )
    assert gpuctl(cluster, "diff", "-f", "-", stdin=spec).returncode == 0
