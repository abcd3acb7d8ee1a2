"""A cluster that keeps changing, for bench_rest's load under churn (run by it, not by hand).

    python benchmarks/churn.py KUBECONFIG SECONDS JOB_NAMESPACE POD_NAMESPACE

Every TICK seconds, for SECONDS: one short training job created with gpuctl's create verb
(its pod is scheduled, starts and finishes, and its Job with it), the churn job made
KEEP ticks before deleted with its pod, and one pod of a Deployment in POD_NAMESPACE deleted
(its ReplicaSet makes a new one, which is scheduled and starts). Each tick makes about a dozen
pod and Job changes. Its last line is JSON: what it did and the CPU seconds it took.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpuctl.cluster.client import Cluster
from gpuctl.cluster.errors import KubeError
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs.create import Create

TICK = 0.5
KEEP = 6  # a churn job lives this many ticks (3 s): its pod runs, then both are deleted
SPEC = """kind: training
version: v0.1
job: {{name: churn-{i}, priority: low}}
environment:
  image: busybox:1.36
  command: ["sleep", "2"]
resources:
  cpu: 0.01
  memory: 16Mi
"""


def _create(cluster: Cluster, i: int, namespace: str) -> None:
    documents = load_text(f"churn-{i}.yaml", SPEC.format(i=i))
    manifests = engine.render_documents(documents, Options(namespace=namespace))
    result = Create(cluster).run(manifests)
    if not result.ok:
        raise SystemExit(f"creating churn-{i} failed: {result}")


def _delete_a_pod(cluster: Cluster, namespace: str, turn: int) -> bool:
    pods = [
        pod
        for pod in cluster.list("Pod", namespace, label_selector="runwhere.ai/job-type=inference")
        if not pod["metadata"].get("deletionTimestamp")
    ]
    if not pods:
        return False
    pod = pods[turn % len(pods)]
    try:
        cluster.delete("Pod", pod["metadata"]["name"], namespace)
    except KubeError:
        return False
    return True


def main() -> int:
    kubeconfig, seconds, job_namespace, pod_namespace = sys.argv[1:5]
    cluster = Cluster.connect(kubeconfig)
    done: dict[str, float] = {"jobs_created": 0, "jobs_deleted": 0, "pods_deleted": 0, "ticks": 0}
    cluster.current_version("Pod", pod_namespace)  # connected: the changes start now
    print("ready", flush=True)
    ends = time.monotonic() + float(seconds)
    turn = 0
    while time.monotonic() < ends:
        tick = time.monotonic()
        _create(cluster, turn, job_namespace)
        done["jobs_created"] += 1
        if turn >= KEEP:
            name = f"churn-{turn - KEEP}"
            cluster.delete("Job", name, job_namespace, propagation="Background")
            done["jobs_deleted"] += 1
        done["pods_deleted"] += _delete_a_pod(cluster, pod_namespace, turn)
        done["ticks"] += 1
        turn += 1
        time.sleep(max(0.0, TICK - (time.monotonic() - tick)))
    done["cpu_seconds"] = round(time.process_time(), 2)
    print(json.dumps(done), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
