"""Accelerators of other vendors on the `cluster` fixture (the sandbox and the real control
plane, where the nodes are kwok's): a job of an AMD GPU type asks for amd.com/gpu, so it lands
on the AMD node and never on an NVIDIA one, even one that carries the same GPU-type label;
placement counts only the devices the job asks for; `get nodes` names each node's vendor.

Each test adds its own two nodes in a pool of its own: an AMD node (4 × amd.com/gpu) and an
NVIDIA node with more GPUs (8 × nvidia.com/gpu) whose GPU-type label wrongly says MI300X, so
only the device-plugin resource tells them apart."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from gpuctl import constants as c
from tests.conftest import run_gpuctl
from tests.support.nodes import nodes_made, pool_name, pool_node
from tests.support.sandbox import Cluster

from .test_cluster_scenarios import pods, wait
from .test_scenarios import gpuctl


def training(name: str, pool: str, gpus: int, placement: str | None = None) -> str:
    spec = (
        f"kind: training\nversion: v0.1\njob: {{name: {name}}}\n"
        "environment:\n  image: rocm/pytorch:latest\n"
        '  command: ["sh", "-c", "sleep 600"]\n'
        f"resources:\n  pool: {pool}\n  gpu: {gpus}\n  gpu-type: MI300X\n"
        "  cpu: 100m\n  memory: 64Mi\n"
    )
    return spec + (f"  placement: {placement}\n" if placement else "")


@pytest.fixture
def vendor_pool(cluster: Cluster) -> Iterator[tuple[str, dict[str, str]]]:
    """(pool name, {"amd": node, "nvidia": node}), deleted afterwards."""
    name = pool_name(cluster, "vendor")
    names = {"amd": f"{name}-amd", "nvidia": f"{name}-nv"}
    mi300x = {c.Labels.GPU_TYPE: "MI300X"}
    made = [
        pool_node(
            names["amd"],
            name,
            4,
            resource="amd.com/gpu",
            labels={**mi300x, "feature.node.kubernetes.io/amd-gpu": "true"},
        ),
        pool_node(names["nvidia"], name, 8, labels=mi300x),
    ]
    with nodes_made(cluster, made):
        yield name, names


def bound(cluster: Cluster, job: str) -> list[str]:
    return [p["spec"]["nodeName"] for p in pods(cluster, job) if p["spec"].get("nodeName")]


def test_an_mi300x_job_asks_for_amd_gpus_and_lands_on_the_amd_node(
    cluster: Cluster, vendor_pool: tuple[str, dict[str, str]]
) -> None:
    pool, nodes = vendor_pool
    done = gpuctl(cluster, "create", "-f", "-", stdin=training("amd-train", pool, 2))
    assert done.returncode == 0, done.stderr
    job = json.loads(cluster.kubectl("get", "job", "amd-train", "-o", "json").stdout)
    limits = job["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits["amd.com/gpu"] == "2"
    assert "nvidia.com/gpu" not in limits
    assert wait(lambda: bound(cluster, "amd-train"), what="the pod to be bound") == [nodes["amd"]]


def test_placement_counts_only_the_devices_the_job_asks_for(
    cluster: Cluster, vendor_pool: tuple[str, dict[str, str]]
) -> None:
    pool, nodes = vendor_pool
    spec = training("amd-placed", pool, 2, "leastLoaded")
    done = gpuctl(cluster, "create", "-f", "-", stdin=spec)
    assert done.returncode == 0, done.stderr
    # the NVIDIA node has more free GPUs, but none of them is an amd.com/gpu
    assert done.stdout.startswith(
        f"job.batch/amd-placed created on node {nodes['amd']} (leastLoaded: 4 of 4 GPUs free)"
    )
    assert wait(lambda: bound(cluster, "amd-placed"), what="the pod to be bound") == [nodes["amd"]]
    too_big = gpuctl(cluster, "create", "-f", "-", stdin=training("amd-big", pool, 6, "binpack"))
    assert too_big.returncode == 1
    # the NVIDIA node (8 GPUs, labelled MI300X too) has no GPU of the job's vendor: the
    # largest node for 6 amd.com/gpu is the AMD node, with 4, so no node could ever hold it
    assert too_big.stderr.splitlines()[0].endswith(
        f"resources.gpu: a pod asks for 6 amd.com/gpu, more than any node in pool {pool} with "
        f"GPU type MI300X has: the largest, {nodes['amd']}, has 4 "
        "(split it over nodes: node_count: 2 with gpu: 4)"
    ), too_big.stderr
    assert nodes["nvidia"] not in too_big.stderr
    assert "nothing was created" in too_big.stderr


def test_get_nodes_names_each_vendor_and_counts_its_devices(
    cluster: Cluster, vendor_pool: tuple[str, dict[str, str]]
) -> None:
    pool, nodes = vendor_pool
    done = run_gpuctl(cluster, "get", "nodes", "--pool", pool, namespaced=False)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:]}
    assert done.stdout.splitlines()[0].split()[:5] == [
        "NAME",
        "STATUS",
        "GPU",
        "VENDOR",
        "GPU-TYPE",
    ]
    assert rows[nodes["amd"]][2:5] == ["4/0/4", "AMD", "MI300X"]
    assert rows[nodes["nvidia"]][2:5] == ["8/0/8", "NVIDIA", "MI300X"]


def test_create_warns_of_a_cuda_image_on_an_amd_type_and_creates_the_job(sandbox: Cluster) -> None:
    spec = training("cuda-on-amd", "default", 1).replace(
        "rocm/pytorch:latest", "nvcr.io/nvidia/pytorch:24.05-py3"
    )
    spec = spec.replace("  pool: default\n", "")
    # the test sandbox has no MI300X node: the job waits for one
    done = run_gpuctl(sandbox, "create", "-f", "-", "--allow-pending", stdin=spec)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("job.batch/cuda-on-amd created")
    assert done.stderr.splitlines()[-1] == (
        "warning: <stdin>:5:10: environment.image: image nvcr.io/nvidia/pytorch:24.05-py3 is a "
        "CUDA build, but resources.gpu-type MI300X is AMD (amd.com/gpu) (use a ROCm build, e.g. "
        "rocm/pytorch or rocm/vllm)"
    )
