"""Operate-layer speed against the sandbox (a report, not a test): `make bench`.

`gpuctl get jobs --pods -A` vs `kubectl get pods -A -l app.kubernetes.io/managed-by=gpuctl`
with 2,000 and then 10,000 gpuctl-labelled pods in a few namespaces, both as subprocesses on
the same sandbox, median of alternating runs. Target at each size: gpuctl <= 1.2x kubectl
measured in the same run. Also reported: the API requests one gpuctl run makes (pages of one
list, whatever the number of jobs). Exit code 1 when a target is missed.

Run: python benchmarks/bench_operate.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import harness

from gpuctl.sandbox import Sandbox, SandboxConfig
from gpuctl.sandbox.config import NodeSpec

SIZES = (2_000, 10_000) if not harness.smoke() else (40,)
NAMESPACES = ("team-a", "team-b", "team-c", "team-d")
PODS_PER_JOB = 20
RUNS = harness.sized(7, 1)
TARGET = 1.2
GPUCTL = Path(sys.executable).with_name("gpuctl")
JOB_TYPES = ("training", "inference", "compute", "notebook")
POOLS = ("default", "training-pool", "inference-pool")
SELECTOR = "app.kubernetes.io/managed-by=gpuctl"


def _config(pods: int) -> SandboxConfig:
    # Room for every pod, so they all run on a node as in a real cluster (NODE and IP set) and
    # the controllers fall quiet before anything is timed.
    nodes = [
        NodeSpec(f"node-{i}", {}, {"cpu": "256", "memory": "1024Gi", "pods": "250"})
        for i in range(pods // 200 + 1)
    ]
    return SandboxConfig.fast(nodes=nodes, job_run_seconds=3600)


def _fill(sandbox: Sandbox, count: int) -> None:
    """Store the pods in-process: the listing is what is measured, not the creating."""
    namespaces = sandbox.registry.get("", "namespaces")
    pods = sandbox.registry.get("", "pods")
    for namespace in NAMESPACES:
        sandbox.api.create(namespaces, "", {"metadata": {"name": namespace}})
    for i in range(count):
        job = i // PODS_PER_JOB
        namespace = NAMESPACES[job % len(NAMESPACES)]
        labels = {
            "app.kubernetes.io/managed-by": "gpuctl",
            "runwhere.ai/job-type": JOB_TYPES[job % len(JOB_TYPES)],
            "runwhere.ai/pool": POOLS[job % len(POOLS)],
            "runwhere.ai/priority": "medium",
            "app": f"job-{job}",
        }
        container = {
            "name": "main",
            "image": "busybox:1.36",
            "command": ["sleep", "3600"],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
        }
        body = {
            "metadata": {"name": f"job-{job}-{i % PODS_PER_JOB}", "labels": labels},
            "spec": {"containers": [container], "restartPolicy": "Always"},
        }
        sandbox.api.create(pods, namespace, body)


def _run(command: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    return time.perf_counter() - started, done


def _measure(pods: int, kubectl: str, folder: str) -> bool:
    """One sandbox with `pods` pods: both commands timed in turn; True when the target is met."""
    with Sandbox(_config(pods)) as sandbox:
        kubeconfig = sandbox.write_kubeconfig(Path(folder) / f"kubeconfig-{pods}")
        env = {**os.environ, "KUBECONFIG": str(kubeconfig), "NO_COLOR": "1"}
        started = time.perf_counter()
        _fill(sandbox, pods)
        settled = sandbox.settle(timeout=300)
        print(
            f"{pods} pods in {len(NAMESPACES)} namespaces stored in "
            f"{time.perf_counter() - started:.1f} s (controllers quiet: {settled})"
        )
        ours_command = [str(GPUCTL), "get", "jobs", "--pods", "-A"]
        theirs_command = [
            kubectl,
            "get",
            "pods",
            "-A",
            "-l",
            SELECTOR,
            "--cache-dir",
            f"{folder}/kube-cache",
        ]

        # Warm up both (kubectl fills its discovery cache, as a user's would be) and check that
        # gpuctl's command exists and lists every pod.
        _, done = _run(ours_command, env)
        rows = len(done.stdout.splitlines()) - 1
        if done.returncode != 0 or rows != pods:
            why = (done.stderr.strip().splitlines() or [""])[-1]
            raise harness.NotMeasured(
                f"gpuctl get jobs --pods -A listed {rows} of {pods} pods ({done.returncode}) {why}"
            )
        _run(theirs_command, env)

        ours: list[float] = []
        theirs: list[float] = []
        requests = 0
        for _ in range(RUNS):
            sandbox.requests.clear()
            elapsed, done = _run(ours_command, env)
            requests = len(sandbox.requests.api_calls())
            ours.append(elapsed)
            theirs.append(_run(theirs_command, env)[0])

    a, k = statistics.median(ours), statistics.median(theirs)
    ratio = a / k
    print(
        f"gpuctl get jobs --pods -A: median {a * 1000:.0f} ms over {RUNS} runs, {rows} rows, "
        f"{requests} API requests"
    )
    print(f"kubectl get pods -A -l {SELECTOR}: median {k * 1000:.0f} ms over {RUNS} runs")
    met = ratio <= TARGET
    print(
        f"ratio gpuctl/kubectl at {pods} pods {ratio:.2f} "
        f"(target <= {TARGET}: {'met' if met else 'MISSED'})"
    )
    return met


def _measure_all() -> bool:
    kubectl = shutil.which("kubectl")
    if not kubectl:
        raise harness.NotMeasured("kubectl is missing: no yardstick")
    with tempfile.TemporaryDirectory() as folder:
        verdicts = [_measure(pods, kubectl, folder) for pods in SIZES]
    return all(verdicts)


if __name__ == "__main__":
    sys.exit(harness.run(_measure_all))  # make bench reports a missed target
