"""A cluster that keeps changing, for bench_rest's load under churn (run by it, not by hand).

    python benchmarks/churn.py KUBECONFIG SECONDS JOB_NAMESPACE POD_NAMESPACE PREFIX

For SECONDS, two loops side by side:

- jobs: every JOB_TICK seconds a short training job is created with gpuctl's create verb (its
  pod is scheduled, starts and finishes, and its Job with it), and the one made KEEP ticks
  before is deleted with its pod; the jobs are named PREFIX-N (a run of its own each time),
  and those still there at the end are deleted;
- pods: every POD_TICK seconds PODS_A_TICK pods of inference services in POD_NAMESPACE are
  deleted; each one's ReplicaSet makes a new one, which is scheduled and starts.

Each job makes about ten pod and Job changes, each pod deletion about five. It prints `ready`
once connected, and last a JSON line: what it did and the CPU seconds it took.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpuctl.cluster.client import Cluster
from gpuctl.cluster.errors import KubeError
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs.create import Create

JOB_TICK = 1.0
KEEP = 4  # a churn job lives this many ticks: its pod runs, then both are deleted
POD_TICK = 0.25
PODS_A_TICK = 2  # on 2 cores loaded by other work one a tick made 9.5 changes a second
INFERENCE = "runwhere.ai/job-type=inference"
SPEC = """kind: training
version: v0.1
job: {{name: {name}, priority: low}}
environment:
  image: busybox:1.36
  command: ["sleep", "2"]
resources:
  cpu: 0.01
  memory: 16Mi
"""


def _create(cluster: Cluster, name: str, namespace: str) -> None:
    documents = load_text(f"{name}.yaml", SPEC.format(name=name))
    manifests = engine.render_documents(documents, Options(namespace=namespace))
    result = Create(cluster).run(manifests)
    if not result.ok:
        raise SystemExit(f"creating {name} failed: {'; '.join(result.errors)}")


def _every(tick: float, ends: float, step: Any) -> None:
    """step(turn) every `tick` seconds until `ends` (a slow step delays the next)."""
    turn = 0
    while time.monotonic() < ends:
        started = time.monotonic()
        step(turn)
        turn += 1
        time.sleep(max(0.0, tick - (time.monotonic() - started)))


class Churn:
    """The two loops' state: what they did, the pods left to delete, the first failure."""

    def __init__(
        self, cluster: Cluster, job_namespace: str, pod_namespace: str, prefix: str
    ) -> None:
        self.cluster = cluster
        self.job_namespace = job_namespace
        self.pod_namespace = pod_namespace
        self.prefix = prefix
        self.done = {"jobs_created": 0, "jobs_deleted": 0, "pods_deleted": 0}
        self.pods: list[str] = []
        self.error = ""

    def job_step(self, turn: int) -> None:
        _create(self.cluster, f"{self.prefix}-{turn}", self.job_namespace)
        self.done["jobs_created"] += 1
        if turn >= KEEP:
            self.delete_job(turn - KEEP)

    def delete_job(self, turn: int) -> None:
        name = f"{self.prefix}-{turn}"
        self.cluster.delete("Job", name, self.job_namespace, propagation="Background")
        self.done["jobs_deleted"] += 1

    def pod_step(self, turn: int) -> None:
        if not self.pods:  # listed again once the names listed are used up
            listed = self.cluster.list("Pod", self.pod_namespace, label_selector=INFERENCE)
            self.pods = [p["metadata"]["name"] for p in listed]
        for _ in range(min(PODS_A_TICK, len(self.pods))):
            try:
                self.cluster.delete("Pod", self.pods.pop(), self.pod_namespace)
                self.done["pods_deleted"] += 1
            except KubeError:  # gone already
                pass

    def loop(self, tick: float, ends: float, step: Any) -> None:
        try:
            _every(tick, ends, step)
        except (KubeError, SystemExit) as exc:
            self.error = str(exc)


def main() -> int:
    kubeconfig, seconds, job_namespace, pod_namespace, prefix = sys.argv[1:6]
    churn = Churn(Cluster.connect(kubeconfig), job_namespace, pod_namespace, prefix)
    churn.cluster.current_version("Pod", pod_namespace)  # connected: the changes start now
    print("ready", flush=True)
    ends = time.monotonic() + float(seconds)
    loops = [
        threading.Thread(target=churn.loop, args=(JOB_TICK, ends, churn.job_step)),
        threading.Thread(target=churn.loop, args=(POD_TICK, ends, churn.pod_step)),
    ]
    for thread in loops:
        thread.start()
    for thread in loops:
        thread.join()
    report: dict[str, object] = dict(churn.done)
    report["cpu_seconds"] = round(time.process_time(), 2)  # before the clean-up: the window's
    made = churn.done["jobs_created"]
    for turn in range(max(0, made - KEEP), made):
        churn.delete_job(turn)
    print(json.dumps(report), flush=True)
    if churn.error:
        print(f"churn failed: {churn.error}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
