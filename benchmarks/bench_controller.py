"""The GPUWorkload controller at scale on a real control plane (a report, not a test): `make bench`.

Starts its own local control plane (tests/kube: real etcd, apiserver, controller-manager and
scheduler) with 1,000 kwok nodes of 8 GPUs (one in ten labelled cheap), installs the controller
as users do (`gpuctl controller install`: the GPUWorkload resource and the PriorityClasses its
Jobs' pods name), then:

- yardstick: the same 500 Jobs the controller would make (1 to 8 GPUs each), created at once
  the way the controller creates its Jobs (one create each) but without node affinity, timed
  until kube-scheduler alone has bound every pod; their pods are then counted (Running, or
  Succeeded once kwok finished them): fewer than 500 and nothing is measured;
- the controller (`gpuctl controller run`, a subprocess with leader election on): 500
  GPUWorkloads (the four strategies in turn) created at once, timed until every one is
  Scheduled (its Job made on the node it chose) and until every pod is bound there.

Reported: time until all are placed, reconciles per second (its own duration histogram),
placement p50/p99 (create returned -> Scheduled seen), the controller's peak memory (VmHWM),
and two ratios to the yardstick. Targets: the controller decides for all 500 (every one
Scheduled) within PLACED_TARGET x the time kube-scheduler alone takes to bind them: it keeps up
with the cluster's own scheduler on 1,000 nodes; end to end (its decisions, then the Job
controller and kube-scheduler binding the pinned pods, in series) within BOUND_TARGET x; and
a peak RSS under MEMORY_TARGET_MB (the Deployment's limit). Exit 1 when a target is missed or
it cannot measure (no Go to build the control plane, pods that never came).

Run: python benchmarks/bench_controller.py [--smoke]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from harness import NotMeasured

from gpuctl.cluster.client import Cluster
from gpuctl.controller import resource
from gpuctl.controller.workload import Workload, render_job
from gpuctl.sandbox.config import NodeSpec
from tests.kube import controlplane
from tests.support.ports import free_port

NODES = harness.sized(1_000, 20)
WORKLOADS = harness.sized(500, 10)
GPUS_PER_NODE = 8
STRATEGIES = ("leastLoaded", "binpack", "costOptimized", "random")
GPUCTL = harness.GPUCTL
PLACED_TARGET = 2.0  # all Scheduled, over kube-scheduler alone binding the same Jobs' pods
BOUND_TARGET = 3.0  # all pods bound after the controller's Jobs, over the same
MEMORY_TARGET_MB = 256.0  # the Deployment's memory limit
TIMEOUT = 600.0
RAN = ("Running", "Succeeded")  # kwok finishes a Job's pod 5-15 s after it starts


def _nodes() -> list[NodeSpec]:
    capacity = {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "8"}
    cheap = {"gpu-orchestrator/cheap-node": "true"}
    return [
        NodeSpec(f"gpu-{i:04d}", dict(cheap) if i % 10 == 0 else {}, dict(capacity))
        for i in range(NODES)
    ]


def _workload(i: int, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": f"w-{i:03d}", "namespace": namespace},
        "spec": {
            "modelName": "llama2",
            "gpuCount": i % GPUS_PER_NODE + 1,
            "schedulingStrategy": STRATEGIES[i % len(STRATEGIES)],
            "cpu": "100m",
            "memory": "256Mi",
        },
    }


def _namespace(client: Cluster, name: str) -> None:
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    deadline = time.monotonic() + 60
    while client.find("ServiceAccount", "default", name) is None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"namespace {name} has no default service account")
        time.sleep(0.1)


def _create_all(client: Cluster, objects: list[dict[str, Any]]) -> dict[str, float]:
    """Create them 8 at a time; name -> when its create returned."""

    def create(obj: dict[str, Any]) -> tuple[str, float]:
        client.create(obj)
        return obj["metadata"]["name"], time.perf_counter()

    with ThreadPoolExecutor(8) as pool:
        return dict(pool.map(create, objects))


def _bound(client: Cluster, namespace: str) -> int:
    pods = client.list("Pod", namespace)
    return len(
        {pod["metadata"]["labels"].get("job-name") for pod in pods if pod["spec"].get("nodeName")}
    )


def _wait_bound(client: Cluster, namespace: str, started: float) -> float:
    while _bound(client, namespace) < WORKLOADS:
        if time.perf_counter() - started > TIMEOUT:
            raise NotMeasured(
                f"{_bound(client, namespace)} of {WORKLOADS} Jobs in {namespace} had a pod bound "
                f"after {TIMEOUT:.0f} s"
            )
        time.sleep(0.5)
    return time.perf_counter() - started


def yardstick(client: Cluster) -> tuple[float, float]:
    """(seconds to create the 500 Jobs, seconds until kube-scheduler bound all their pods);
    NotMeasured when their pods do not all run."""
    namespace = "yardstick"
    _namespace(client, namespace)
    jobs = []
    for i in range(WORKLOADS):
        job = render_job(Workload.of(_workload(i, namespace)), "any")
        job["metadata"].pop("ownerReferences")
        job["spec"]["template"]["spec"].pop("affinity")
        jobs.append(job)
    started = time.perf_counter()
    created = _create_all(client, jobs)
    create_seconds = max(created.values()) - started
    bound = _wait_bound(client, namespace, started)
    harness.wait_pods(client, namespace, WORKLOADS, done=RAN, timeout=TIMEOUT)
    return create_seconds, bound


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text: str = answer.read().decode()
        return text


def _reconciles(text: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("warp_gpuworkload_reconcile_duration_seconds_count")
    )


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _start_controller(kubeconfig: Path, namespace: str, log: Path) -> tuple[Any, int]:
    metrics_port, health_port = free_port(), free_port()
    command = [str(GPUCTL), "controller", "run", "--kubeconfig", str(kubeconfig)]
    command += ["--namespace", namespace, "--metrics-port", str(metrics_port)]
    command += ["--health-port", str(health_port)]
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{health_port}/readyz", timeout=2):
                return process, metrics_port
        except OSError as exc:
            if time.monotonic() > deadline or process.poll() is not None:
                last = (log.read_text().strip().splitlines() or ["no output"])[-1]
                raise NotMeasured(f"the controller did not become ready: {last}") from exc
            time.sleep(0.2)


def _watch_scheduled(client: Cluster, namespace: str, started: float) -> dict[str, float]:
    """name -> when it was first seen Scheduled (a list every 0.25 s)."""
    seen: dict[str, float] = {}
    while len(seen) < WORKLOADS:
        if time.perf_counter() - started > TIMEOUT:
            raise NotMeasured(f"only {len(seen)} of {WORKLOADS} Scheduled after {TIMEOUT:.0f} s")
        now = time.perf_counter()
        for obj in client.list(resource.KIND, namespace):
            name = obj["metadata"]["name"]
            if name not in seen and (obj.get("status") or {}).get("phase") == "Scheduled":
                seen[name] = now
        time.sleep(0.25)
    return seen


def bench_controller(client: Cluster, kubeconfig: Path, folder: Path) -> dict[str, float]:
    namespace = "bench"
    _namespace(client, namespace)
    process, metrics_port = _start_controller(kubeconfig, namespace, folder / "controller.log")
    try:
        before = _reconciles(_metrics(metrics_port))
        started = time.perf_counter()
        created = _create_all(client, [_workload(i, namespace) for i in range(WORKLOADS)])
        seen = _watch_scheduled(client, namespace, started)
        placed = max(seen.values()) - started
        bound = _wait_bound(client, namespace, started)
        harness.wait_pods(client, namespace, WORKLOADS, done=RAN, timeout=TIMEOUT)
        reconciles = _reconciles(_metrics(metrics_port)) - before
        peak = _peak_rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
    latencies = sorted(seen[name] - created[name] for name in created)
    return {
        "placed": placed,
        "bound": bound,
        "reconciles_per_second": reconciles / placed,
        "p50": statistics.median(latencies),
        "p99": latencies[int(len(latencies) * 0.99) - 1],
        "peak_mb": peak,
    }


def _verdict(name: str, value: float, target: float) -> bool:
    met = value <= target
    print(f"{name}: {value:.2f} (target <= {target:g}: {'met' if met else 'MISSED'})")
    return met


def _measure() -> bool:
    reason = controlplane.unavailable_reason()
    if reason:
        raise NotMeasured(reason)
    controlplane.build()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        state = controlplane.up(folder / "cp", nodes=_nodes())
        print(f"control plane up, {NODES} nodes Ready: {time.perf_counter() - started:.1f} s")
        try:
            client = Cluster.connect(str(state.kubeconfig))
            env = harness.gpuctl_env(state.kubeconfig, folder)
            harness.gpuctl(["controller", "install"], env)  # the resource, the classes
            classes = client.list("PriorityClass")
            print(
                f"gpuctl controller install: GPUWorkloads served, {len(classes)} priority classes"
            )
            create_seconds, alone = yardstick(client)
            print(
                f"yardstick: {WORKLOADS} Jobs created in {create_seconds:.1f} s, kube-scheduler "
                f"alone bound all their pods in {alone:.1f} s"
            )
            got = bench_controller(client, state.kubeconfig, folder)
        finally:
            controlplane.down(folder / "cp")
    print(
        f"controller: {WORKLOADS} GPUWorkloads on {NODES} nodes all Scheduled in "
        f"{got['placed']:.1f} s, all pods bound in {got['bound']:.1f} s; "
        f"{got['reconciles_per_second']:.1f} reconciles/s; placement p50 {got['p50']:.2f} s, "
        f"p99 {got['p99']:.2f} s; peak RSS {got['peak_mb']:.0f} MB"
    )
    placed_ratio = got["placed"] / alone
    bound_ratio = got["bound"] / alone
    verdicts = [
        _verdict("all Scheduled / kube-scheduler alone", placed_ratio, PLACED_TARGET),
        _verdict("all pods bound / kube-scheduler alone", bound_ratio, BOUND_TARGET),
        _verdict("peak RSS MB", got["peak_mb"], MEMORY_TARGET_MB),
    ]
    return all(verdicts)


def main() -> int:
    return harness.run(_measure)


if __name__ == "__main__":
    sys.exit(main())
