"""Operate-layer speed against the sandbox (a report, not a test): `make bench`.

`gpuctl get jobs --pods -A` vs `kubectl get pods -A -l app.kubernetes.io/managed-by=gpuctl`
with 2,000 gpuctl-labelled pods in a few namespaces, both as subprocesses on the same sandbox,
median of alternating runs. Target: gpuctl <= 1.5x kubectl. Also reported: the API requests
one gpuctl run makes (pages of one list, whatever the number of jobs). Exit code 0 whatever
the verdict (the report says met or MISSED), as the other benchmarks.

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

from gpuctl.sandbox import Sandbox, SandboxConfig
from gpuctl.sandbox.config import NodeSpec

PODS = 2_000
NAMESPACES = ("team-a", "team-b", "team-c", "team-d")
PODS_PER_JOB = 20
RUNS = 7
TARGET = 1.5
GPUCTL = Path(sys.executable).with_name("gpuctl")
JOB_TYPES = ("training", "inference", "compute", "notebook")
POOLS = ("default", "training-pool", "inference-pool")
SELECTOR = "app.kubernetes.io/managed-by=gpuctl"


def _config() -> SandboxConfig:
    # Room for every pod, so they all run on a node as in a real cluster (NODE and IP set) and
    # the controllers fall quiet before anything is timed.
    nodes = [
        NodeSpec(f"node-{i}", {}, {"cpu": "256", "memory": "1024Gi", "pods": "250"})
        for i in range(PODS // 200 + 1)
    ]
    return SandboxConfig.fast(nodes=nodes, job_run_seconds=3600)


def _fill(sandbox: Sandbox) -> None:
    """Store the pods in-process: the listing is what is measured, not the creating."""
    namespaces = sandbox.registry.get("", "namespaces")
    pods = sandbox.registry.get("", "pods")
    for namespace in NAMESPACES:
        sandbox.api.create(namespaces, "", {"metadata": {"name": namespace}})
    for i in range(PODS):
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


def main() -> int:
    kubectl = shutil.which("kubectl")
    with tempfile.TemporaryDirectory() as folder, Sandbox(_config()) as sandbox:
        kubeconfig = sandbox.write_kubeconfig(Path(folder) / "kubeconfig")
        env = {**os.environ, "KUBECONFIG": str(kubeconfig), "NO_COLOR": "1"}
        started = time.perf_counter()
        _fill(sandbox)
        settled = sandbox.settle(timeout=60)
        print(
            f"{PODS} pods in {len(NAMESPACES)} namespaces stored in "
            f"{time.perf_counter() - started:.1f} s (controllers quiet: {settled})"
        )
        ours_command = [str(GPUCTL), "get", "jobs", "--pods", "-A"]
        theirs_command = (
            [kubectl, "get", "pods", "-A", "-l", SELECTOR, "--cache-dir", f"{folder}/kube-cache"]
            if kubectl
            else []
        )

        # Warm up both (kubectl fills its discovery cache, as a user's would be) and check that
        # gpuctl's command exists and lists every pod.
        _, done = _run(ours_command, env)
        if done.returncode != 0:
            missing = "No such command" in done.stderr or "no attribute" in done.stderr
            reason = "command missing" if missing else f"failed: {done.stderr.strip()[-300:]}"
            print(f"gpuctl get jobs --pods -A: {reason}")
            print("target gpuctl <= 1.5x kubectl: MISSED (nothing to time)")
            return 1
        rows = len(done.stdout.splitlines()) - 1
        if theirs_command:
            _run(theirs_command, env)

        ours: list[float] = []
        theirs: list[float] = []
        requests = 0
        for _ in range(RUNS):
            sandbox.requests.clear()
            elapsed, done = _run(ours_command, env)
            requests = len(sandbox.requests.api_calls())
            ours.append(elapsed)
            if theirs_command:
                theirs.append(_run(theirs_command, env)[0])

    a = statistics.median(ours)
    print(
        f"gpuctl get jobs --pods -A: median {a * 1000:.0f} ms over {RUNS} runs, {rows} rows, "
        f"{requests} API requests"
    )
    if not theirs:
        print("kubectl not found: no comparison (target gpuctl <= 1.5x kubectl: MISSED)")
        return 1
    k = statistics.median(theirs)
    ratio = a / k
    print(f"kubectl get pods -A -l {SELECTOR}: median {k * 1000:.0f} ms over {RUNS} runs")
    print(
        f"ratio gpuctl/kubectl {ratio:.2f} "
        f"(target <= {TARGET}: {'met' if ratio <= TARGET else 'MISSED'})"
    )
    return 0 if ratio <= TARGET else 1  # make bench reports a missed target


if __name__ == "__main__":
    sys.exit(main())
