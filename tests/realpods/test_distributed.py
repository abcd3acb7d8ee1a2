"""Two-node training on the two real nodes: the pods find each other through the headless
Service's DNS names and do a real all-reduce over MASTER_ADDR:MASTER_PORT; the start barrier
holds the first pod until the second has a node, and its timeout fails the job and frees the
GPUs.

The collective is JAX's (the JAX image, `images.JAX_PYTHON`): each pod calls
`jax.distributed.initialize` with the coordinator at MASTER_ADDR:MASTER_PORT (pod 0, through
the headless Service's DNS name), NODE_RANK as its process id and WORLD_SIZE processes, with
JAX's CPU collectives over gloo; then a jitted sum over a global array with one row per
process, sharded over a mesh of one CPU device per process, into a replicated result. XLA
compiles that sum to an all-reduce (the pods print the collective found in the compiled
program) that gloo carries between the nodes. Not PyTorch: its CPU build is on its own package
index, which cannot be reached from here, and PyPI's torch for Linux is the CUDA build (about
900 MB, with some 2.5 GB of nvidia-* wheels it requires).

The barrier tests need only that the pods meet once both run: they keep a lighter exchange in
the Python image (a sum over TCP in Python's standard library).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import yaml

from gpuctl import constants as c
from tests.kube import images, nodes
from tests.realpods.conftest import gpuctl
from tests.realpods.test_training import job_status, training_spec
from tests.support.sandbox import Cluster, wait_for

pytestmark = pytest.mark.realpods

ALL_REDUCE = """
import json, os, socket, time
rank, world = int(os.environ["NODE_RANK"]), int(os.environ["WORLD_SIZE"])
nproc = int(os.environ["NPROC_PER_NODE"])
address, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
mine = [float(rank + 1), 10.0 * (rank + 1)]
if rank == 0:
    server = socket.create_server(("", port))
    peers = [server.accept()[0].makefile("rw") for _ in range(world - 1)]
    vectors = [mine] + [json.loads(peer.readline()) for peer in peers]
    total = [sum(column) for column in zip(*vectors)]
    for peer in peers:
        peer.write(json.dumps(total) + "\\n")
        peer.flush()
else:
    deadline = time.monotonic() + 120
    while True:
        try:
            connection = socket.create_connection((address, port), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
    master = connection.makefile("rw")
    master.write(json.dumps(mine) + "\\n")
    master.flush()
    total = json.loads(master.readline())
print(f"rank {rank}/{world} ({nproc} per node) via {address}:{port}: sum {total}", flush=True)
"""
SUM = "sum [3.0, 30.0]"

JAX_ALL_REDUCE = """
import os
import jax
jax.config.update("jax_cpu_collectives_implementation", "gloo")
rank, world = int(os.environ["NODE_RANK"]), int(os.environ["WORLD_SIZE"])
nproc = int(os.environ["NPROC_PER_NODE"])
address = f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}"
jax.distributed.initialize(coordinator_address=address, num_processes=world, process_id=rank)
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec
mesh = Mesh(np.array(jax.devices()), ("node",))
mine = np.array([[rank + 1.0, 10.0 * (rank + 1)]], dtype=np.float32)
rows = jax.make_array_from_process_local_data(NamedSharding(mesh, PartitionSpec("node")), mine)
replicated = NamedSharding(mesh, PartitionSpec())
compiled = jax.jit(lambda a: a.sum(axis=0), out_shardings=replicated).lower(rows).compile()
found = [op for op in ("all-reduce", "all-gather", "reduce-scatter") if op in compiled.as_text()]
total = np.asarray(compiled(rows).addressable_data(0)).tolist()
print(f"rank {rank}/{world} ({nproc} per node) via {address}: {jax.process_count()} processes,"
      f" {jax.device_count()} CPU devices, XLA {'+'.join(found)}: sum {total}", flush=True)
"""


def _pods(cluster: Cluster, job: str) -> list[dict[str, Any]]:
    shown = cluster.kubectl("get", "pods", "-l", f"{c.Labels.JOB_NAME}={job}", "-o", "json")
    pods: list[dict[str, Any]] = json.loads(shown.stdout)["items"]
    return sorted(pods, key=lambda p: p["metadata"]["name"])


def _distributed(name: str, **resources: Any) -> str:
    spec = training_spec(name, ["python3", "-c", ALL_REDUCE], node_count=2, **resources)
    return yaml.safe_dump(spec)


def test_two_pods_on_two_nodes_all_reduce_through_the_headless_service(real_pods: Cluster) -> None:
    """JAX's all-reduce over gloo between a pod on real-0 and one on real-1. Each JAX process
    peaked at about 185 MB resident in its pod (getrusage, measured on these nodes): 1Gi of
    memory and a CPU each leave room."""
    spec = training_spec("pair", ["python3", "-c", JAX_ALL_REDUCE], node_count=2)
    spec["environment"]["image"] = images.JAX_PYTHON
    spec["resources"].update(cpu="1", memory="1Gi")
    created = gpuctl(real_pods, "create", "-f", "-", stdin=yaml.safe_dump(spec))
    assert created.returncode == 0, created.stderr
    wait_for(lambda: job_status(real_pods, "pair") in ("Succeeded", "Failed"), 300, 1, "the job")
    logs = gpuctl(real_pods, "logs", "pair").stdout
    assert job_status(real_pods, "pair") == "Succeeded", logs
    pods = _pods(real_pods, "pair")
    assert sorted(p["spec"]["nodeName"] for p in pods) == nodes.names(2), logs
    address = f"pair-0.pair:{c.MASTER_PORT}"
    for rank, pod in enumerate(pods):
        name = pod["metadata"]["name"]
        summed = f"rank {rank}/2 (1 per node) via {address}: 2 processes, 2 CPU devices"
        assert f"[{name}] {summed}, XLA all-reduce: {SUM}" in logs.splitlines(), logs
        connected = f"[{name}] [Gloo] Rank {rank} is connected to 1 peer ranks."
        assert any(line.startswith(connected) for line in logs.splitlines()), logs


def _label_gpu_type(cluster: Cluster, node: str, value: str | None) -> None:
    label = f"{c.Labels.GPU_TYPE}={value}" if value else f"{c.Labels.GPU_TYPE}-"
    cluster.kubectl("label", "node", node, label, "--overwrite", namespaced=False)


def _gpus_held(cluster: Cluster) -> int:
    """GPUs requested by the namespace's pods that hold them (neither finished nor failed)."""
    shown = json.loads(cluster.kubectl("get", "pods", "-o", "json").stdout)["items"]
    return sum(
        int(container["resources"].get("requests", {}).get(c.GPU_RESOURCE, 0))
        for pod in shown
        if pod["status"].get("phase") not in ("Succeeded", "Failed")
        for container in pod["spec"]["containers"]
    )


def test_the_start_barrier_holds_the_first_pod_until_the_second_has_a_node(
    real_pods: Cluster,
) -> None:
    """Only real-0 has the job's GPU type at first: pod 0 starts there and waits in its start
    barrier; once real-1 has the type too, pod 1 starts there and both run."""
    gpu_type = f"barrier-{real_pods.namespace[-8:]}"
    _label_gpu_type(real_pods, "real-0", gpu_type)
    try:
        # one node of the type so far: accepted only to wait for the second (--allow-pending)
        created = gpuctl(
            real_pods,
            "create",
            "--allow-pending",
            "-f",
            "-",
            stdin=_distributed("held", **{"gpu-type": gpu_type}),
        )
        assert created.returncode == 0, created.stderr
        wait_for(lambda: _barrier_running(real_pods, "held-0"), 120, 1, "pod 0 in its barrier")
        time.sleep(10)  # the barrier polls every 5 s: two rounds with no peer
        first = next(
            p for p in _pods(real_pods, "held") if p["metadata"]["name"].startswith("held-0")
        )
        assert _barrier_running(real_pods, "held-0"), first["status"]
        assert (
            first["status"]["containerStatuses"][0]["state"]["waiting"]["reason"]
            == "PodInitializing"
        )
        _label_gpu_type(real_pods, "real-1", gpu_type)
        wait_for(
            lambda: job_status(real_pods, "held") in ("Succeeded", "Failed"), 240, 1, "the job"
        )
        assert job_status(real_pods, "held") == "Succeeded", gpuctl(
            real_pods, "logs", "held"
        ).stdout
    finally:
        for node in nodes.names(2):
            _label_gpu_type(real_pods, node, None)


def _barrier_running(cluster: Cluster, prefix: str) -> bool:
    for pod in _pods(cluster, prefix.rsplit("-", 1)[0]):
        if pod["metadata"]["name"].startswith(prefix):
            statuses = pod["status"].get("initContainerStatuses") or []
            return bool(statuses and "running" in statuses[0]["state"])
    return False


def test_the_start_barrier_times_out_fails_the_job_and_frees_the_gpus(real_pods: Cluster) -> None:
    gpu_type = f"alone-{real_pods.namespace[-8:]}"
    _label_gpu_type(real_pods, "real-0", gpu_type)
    try:
        spec = _distributed("alone", start_timeout=30, gpu=2, **{"gpu-type": gpu_type})
        refused = gpuctl(real_pods, "create", "-f", "-", stdin=spec)  # no second node of it
        assert refused.returncode == 1 and "resources.node_count: 2 pods need a node each" in (
            refused.stderr
        ), refused.stderr
        created = gpuctl(real_pods, "create", "--allow-pending", "-f", "-", stdin=spec)
        assert created.returncode == 0, created.stderr
        wait_for(lambda: _barrier_running(real_pods, "alone-0"), 120, 1, "pod 0 in its barrier")
        first = next(
            p for p in _pods(real_pods, "alone") if p["metadata"]["name"].startswith("alone-0")
        )
        assert first["spec"]["nodeName"] == "real-0", first["spec"]
        assert _gpus_held(real_pods) == 4  # pod 0's 2 GPUs on real-0, pod 1's 2 asked for
        wait_for(lambda: job_status(real_pods, "alone") == "Failed", 150, 1, "the job to fail")
        wait_for(lambda: _gpus_held(real_pods) == 0, 60, 0.5, "the GPUs to be free")
        described = gpuctl(real_pods, "describe", "job", "alone").stdout
        assert "not every node of job alone started within 30s" in described, described
    finally:
        _label_gpu_type(real_pods, "real-0", None)
