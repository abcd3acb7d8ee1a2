"""gpuctl against a real apiserver (a report, not a test): `make bench`.

Starts its own local control plane (tests/kube: real etcd, apiserver, controller-manager and
scheduler, kwok nodes) and times gpuctl against the real kubectl doing the same work on the same
server in the same run, median of alternating runs:

- `gpuctl create` of 1,000 training jobs vs `kubectl create -f` of what they render to (each run
  in a fresh namespace). Target: gpuctl <= 0.5x kubectl.
- `gpuctl get jobs --pods -A` over 10,000 pods that kwok runs (500 inference services of 20
  replicas, made with `gpuctl create` and counted Running first) vs `kubectl get pods -A` with
  the same selector. Target: gpuctl <= 1.2x kubectl.
- an unchanged `gpuctl apply` of the 1,000: it must only read (the apiserver's own request
  counters show no write to a Job).

The priority classes are installed first with `gpuctl priority-classes install`, as an
administrator does. Also reported: the cold start of the control plane to nodes Ready. Exit 1
when a target is missed or it cannot measure (no Go to build the control plane, pods that did
not run).

Run: python benchmarks/bench_kube.py [--smoke]
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from harness import NotMeasured

from gpuctl.cluster.client import Cluster
from gpuctl.sandbox.config import NodeSpec
from tests.kube import controlplane

JOBS = harness.sized(1_000, 5)
PODS = harness.sized(10_000, 40)
PODS_PER_JOB = 20
NAMESPACES = ("team-a", "team-b", "team-c", "team-d")
RUNS = harness.sized(3, 1)
GPUCTL = harness.GPUCTL
SELECTOR = "app.kubernetes.io/managed-by=gpuctl"
CREATE_TARGET = 0.5
LIST_TARGET = 1.2


def _nodes() -> list[NodeSpec]:
    capacity = {"cpu": "1000", "memory": "4000Gi", "pods": "1000", "nvidia.com/gpu": "8"}
    return [NodeSpec(f"bench-{i}", {}, dict(capacity)) for i in range(PODS // 900 + 2)]


def _specs() -> str:
    spec = """kind: training
version: v0.1
job: {{name: bench-{i}}}
environment:
  image: busybox:1.36
  command: ["sleep", "1"]
resources:
  cpu: 0.01
  memory: 16Mi
"""
    return "---\n".join(spec.format(i=i) for i in range(JOBS))


def _run(command: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise NotMeasured(f"{' '.join(command[:4])} failed: {last}")
    return elapsed


def _kubectl(folder: str) -> list[str]:
    return [shutil.which("kubectl") or "kubectl", "--cache-dir", f"{folder}/kube-cache"]


def _namespace(state: controlplane.State, name: str) -> None:
    controlplane.request(state, "POST", "/api/v1/namespaces", {"metadata": {"name": name}})
    path = f"/api/v1/namespaces/{name}/serviceaccounts/default"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            controlplane.request(state, "GET", path)
            return
        except OSError:
            time.sleep(0.1)


def _render(specs: str, namespace: str, env: dict[str, str]) -> str:
    """What the specs render to, for `kubectl create`: render leads with the PriorityClasses
    the pods name, which gpuctl's own create of this run made already (kubectl create would
    refuse them as AlreadyExists), so they are left out."""
    command = [str(GPUCTL), "render", "-f", "-", "-n", namespace]
    text = subprocess.run(command, input=specs, capture_output=True, text=True, env=env).stdout
    documents = text.split("\n---\n")
    kept = [d for d in documents if "\nkind: PriorityClass\n" not in f"\n{d}\n"]
    return "\n---\n".join(kept)


def bench_create(state: controlplane.State, env: dict[str, str], folder: str) -> float:
    specs = _specs()
    ours: list[float] = []
    theirs: list[float] = []
    for run in range(RUNS):
        for who in ("gpuctl", "kubectl"):
            namespace = f"create-{who}-{run}"
            _namespace(state, namespace)
            if who == "gpuctl":
                command = [str(GPUCTL), "create", "-f", "-", "-n", namespace]
                ours.append(_run(command, env, specs))
            else:
                rendered = _render(specs, namespace, env)
                theirs.append(_run([*_kubectl(folder), "create", "-f", "-"], env, rendered))
    a, k = statistics.median(ours), statistics.median(theirs)
    print(f"create {JOBS} jobs: gpuctl median {a:.1f} s, kubectl create -f {k:.1f} s")
    return a / k


def _job_writes(state: controlplane.State) -> int:
    """Creates, updates, patches and deletes of Jobs (not their status) the apiserver served."""
    total = 0
    for line in str(controlplane.request(state, "GET", "/metrics")).splitlines():
        if not line.startswith("apiserver_request_total{") or 'resource="jobs"' not in line:
            continue
        writes = ("POST", "PUT", "PATCH", "DELETE", "APPLY")
        if 'subresource=""' in line and any(f'verb="{v}"' in line for v in writes):
            total += int(float(line.rsplit(" ", 1)[1]))
    return total


def bench_reapply(state: controlplane.State, env: dict[str, str]) -> int:
    before = _job_writes(state)
    command = [str(GPUCTL), "apply", "-f", "-", "-n", "create-gpuctl-0"]
    elapsed = _run(command, env, _specs())
    writes = _job_writes(state) - before
    print(f"unchanged apply of {JOBS} jobs: {elapsed:.1f} s, {writes} writes to Jobs")
    return writes


def _services(namespace: str, first: int, count: int) -> str:
    """`count` inference services of PODS_PER_JOB replicas: their pods keep running on kwok."""
    spec = """kind: inference
version: v0.1
job: {{name: serve-{i}}}
environment:
  image: busybox:1.36
  command: ["sleep", "3600"]
service: {{replicas: {replicas}, port: 8000}}
resources:
  cpu: 0.01
  memory: 16Mi
"""
    return "---\n".join(
        spec.format(i=i, replicas=PODS_PER_JOB) for i in range(first, first + count)
    )


def _fill(state: controlplane.State, env: dict[str, str]) -> None:
    """PODS running pods, made as users make them: `gpuctl create` of inference services,
    spread over the namespaces."""
    services = PODS // PODS_PER_JOB
    share = -(-services // len(NAMESPACES))
    for n, namespace in enumerate(NAMESPACES):
        count = min(share, services - n * share)
        if count <= 0:
            break
        _namespace(state, namespace)
        harness.create_jobs(_services(namespace, n * share, count), namespace, env)


def bench_list(state: controlplane.State, env: dict[str, str], folder: str) -> float:
    started = time.perf_counter()
    _fill(state, env)
    print(
        f"gpuctl create of {PODS // PODS_PER_JOB} services: {time.perf_counter() - started:.0f} s"
    )
    cluster = Cluster.connect(str(state.kubeconfig))
    selector = "runwhere.ai/job-type=inference"
    harness.wait_pods(cluster, None, PODS, timeout=900, label_selector=selector)
    ours_command = [str(GPUCTL), "get", "jobs", "--pods", "-A"]
    theirs_command = [*_kubectl(folder), "get", "pods", "-A", "-l", SELECTOR]
    _run(theirs_command, env)  # warm: kubectl's discovery cache
    listed = subprocess.run(ours_command, capture_output=True, text=True, env=env).stdout
    print(f"gpuctl lists {len(listed.splitlines()) - 1} pods (the Jobs' finished ones too)")
    ours, theirs = [], []
    for _ in range(RUNS + 2):
        ours.append(_run(ours_command, env))
        theirs.append(_run(theirs_command, env))
    a, k = statistics.median(ours), statistics.median(theirs)
    print(f"list {PODS} pods: gpuctl get jobs --pods -A {a:.2f} s, kubectl get pods -A {k:.2f} s")
    return a / k


def _verdict(name: str, ratio: float, target: float) -> bool:
    met = ratio <= target
    verdict = "met" if met else "MISSED"
    print(f"{name}: ratio gpuctl/kubectl {ratio:.2f} (target <= {target}: {verdict})")
    return met


def _measure() -> bool:
    reason = controlplane.unavailable_reason()
    if reason:
        raise NotMeasured(reason)
    controlplane.build()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        state = controlplane.up(Path(folder) / "cp", nodes=_nodes())
        print(f"control plane up, nodes Ready: {time.perf_counter() - started:.1f} s")
        env = harness.gpuctl_env(state.kubeconfig, Path(folder))
        try:
            harness.install_priority_classes(env)
            create = bench_create(state, env, folder)
            writes = bench_reapply(state, env)
            listing = bench_list(state, env, folder)
        finally:
            controlplane.down(Path(folder) / "cp")
    met = _verdict("create", create, CREATE_TARGET)
    print(f"unchanged re-apply: {'reads only: met' if writes == 0 else 'WROTE: MISSED'}")
    return _verdict("get jobs --pods -A", listing, LIST_TARGET) and met and writes == 0


def main() -> int:
    return harness.run(_measure)


if __name__ == "__main__":
    sys.exit(main())
