"""What a user sees of GPU work on a cluster, on the `cluster` fixture: the sandbox, and the
local real control plane (real scheduler and controllers, kwok nodes), so the two must agree.

Both have the sandbox's default nodes: gpu-a100-0 and gpu-a100-1 (8 × A100-80G each), gpu-t4-0
(4 × T4-16G) and cpu-0."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import datetime
from typing import Any

from tests.conftest import GPUCTL, run_gpuctl
from tests.support.sandbox import Cluster, SandboxCluster

from .test_scenarios import gpuctl


def training(name: str, gpus: int, gpu_type: str | None = None) -> str:
    lines = [
        "kind: training",
        "version: v0.1",
        f"job: {{name: {name}}}",
        "environment:",
        "  image: busybox:1.36",
        '  command: ["sh", "-c", "echo step 1; sleep 30"]',
        "resources:",
        f"  gpu: {gpus}",
        "  cpu: 1",
        "  memory: 1Gi",
    ]
    if gpu_type:
        lines.append(f"  gpu-type: {gpu_type}")
    return "\n".join(lines) + "\n"


def pods(cluster: Cluster, job: str) -> list[dict[str, Any]]:
    out = cluster.kubectl("get", "pods", "-l", f"job-name={job}", "-o", "json").stdout
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items


def wait(predicate: Any, timeout: float = 60, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_a_training_job_runs_on_a_node_of_its_gpu_type(cluster: Cluster) -> None:
    done = gpuctl(cluster, "create", "-f", "-", stdin=training("train-a100", 2, "A100-80G"))
    assert done.returncode == 0, done.stderr

    def started() -> list[dict[str, Any]]:
        return [
            p
            for p in pods(cluster, "train-a100")
            if p["status"].get("phase") in ("Running", "Succeeded")
        ]

    (pod,) = wait(started, what="the training pod to run")
    assert pod["spec"]["nodeName"] in ("gpu-a100-0", "gpu-a100-1")
    assert pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"
    cluster.kubectl("wait", "--for=condition=complete", "job/train-a100", "--timeout=90s")


def test_a_job_asking_for_more_gpus_than_any_node_has_stays_pending(cluster: Cluster) -> None:
    refused_by_gpuctl = gpuctl(cluster, "create", "-f", "-", stdin=training("too-big", 64))
    assert refused_by_gpuctl.returncode == 1
    first_line = refused_by_gpuctl.stderr.splitlines()[0]
    assert "resources.gpu: a pod asks for 64 nvidia.com/gpu, more than any node" in first_line
    assert "nothing was created" in refused_by_gpuctl.stderr
    assert pods(cluster, "too-big") == []
    # --allow-pending accepts it: it waits, Pending, for a node that could hold it
    done = gpuctl(cluster, "create", "-f", "-", "--allow-pending", stdin=training("too-big", 64))
    assert done.returncode == 0, done.stderr

    def refused() -> list[dict[str, Any]]:
        out = cluster.kubectl(
            "get", "events", "--field-selector", "reason=FailedScheduling", "-o", "json"
        ).stdout
        return [e for e in json.loads(out)["items"] if e["involvedObject"]["kind"] == "Pod"]

    event = wait(refused, what="a FailedScheduling event")[0]
    # the scheduler's own words: every node lacks the GPUs
    assert "nodes are available" in event["message"]
    assert "Insufficient nvidia.com/gpu" in event["message"]
    (pod,) = pods(cluster, "too-big")
    assert pod["status"]["phase"] == "Pending" and not pod["spec"].get("nodeName")
    condition = next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
    assert condition["status"] == "False" and condition["reason"] == "Unschedulable"


def test_get_nodes_shows_the_gpu_nodes(cluster: Cluster) -> None:
    done = subprocess.run(  # nodes belong to no namespace: no -n
        [str(GPUCTL), "get", "nodes", "--kubeconfig", str(cluster.kubeconfig)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    header, *lines = done.stdout.splitlines()
    assert header.split()[:5] == ["NAME", "STATUS", "GPU", "VENDOR", "GPU-TYPE"]
    rows = {line.split()[0]: line.split() for line in lines}
    for name in ("gpu-a100-0", "gpu-a100-1"):
        assert rows[name][1] == "Ready" and rows[name][3:5] == ["NVIDIA", "A100-80G"]
        assert rows[name][2].startswith("8/")  # other tests may be using some
    assert rows["gpu-t4-0"][1:5] == ["Ready", "4/0/4", "NVIDIA", "T4-16G"]
    assert rows["cpu-0"][2] == "0/0/0"


def test_get_jobs_lists_the_jobs_with_their_kind_and_gpus(cluster: Cluster) -> None:
    for name, gpus in (("list-a", 1), ("list-b", 2)):
        done = gpuctl(cluster, "create", "-f", "-", stdin=training(name, gpus))
        assert done.returncode == 0, done.stderr
    listed = gpuctl(cluster, "get", "jobs")
    assert listed.returncode == 0, listed.stderr
    header, *lines = listed.stdout.splitlines()
    assert header.split()[:2] == ["NAME", "KIND"]
    rows = {line.split()[0]: line.split() for line in lines}
    assert set(rows) == {"list-a", "list-b"}
    assert rows["list-a"][1] == "training"
    names = gpuctl(cluster, "get", "jobs", "-o", "name").stdout.split()
    assert sorted(names) == ["job.batch/list-a", "job.batch/list-b"]


def test_logs_since_leaves_out_older_lines(cluster: Cluster) -> None:
    """Lines older than --since are left out (the sandbox once ignored it). The pod has written
    all its lines seconds before: on the sandbox it has finished, and kwok's log is written at
    start-up."""
    cluster.kubectl("run", "since", "--image=busybox:1.36", "--restart=Never", "--", "true")
    wait(lambda: cluster.kubectl("logs", "since", check=False).stdout.strip(), what="log lines")
    time.sleep(2.5)
    assert cluster.kubectl("logs", "since", "--since=1s").stdout == ""
    assert cluster.kubectl("logs", "since", "--since=1h").stdout.strip()
    assert cluster.kubectl("logs", "since").stdout.strip()


def test_a_quota_refusal_leaves_the_job_without_pods_and_the_cluster_working(
    cluster: Cluster,
) -> None:
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpus"},
        "spec": {"hard": {"requests.nvidia.com/gpu": "1"}},
    }
    cluster.kubectl("create", "-f", "-", input=json.dumps(quota))
    over = training("over-quota", 2)
    refused_by_gpuctl = gpuctl(cluster, "create", "-f", "-", stdin=over)
    assert refused_by_gpuctl.returncode == 1
    assert "resources.gpu: namespace " in refused_by_gpuctl.stderr.splitlines()[0]
    assert "allows 1 nvidia.com/gpu in all, and the job asks for 2" in refused_by_gpuctl.stderr
    # --allow-pending accepts it: the API server's quota then refuses its pods
    done = gpuctl(cluster, "create", "-f", "-", "--allow-pending", stdin=over)
    assert done.returncode == 0, done.stderr

    def refused() -> list[dict[str, Any]]:
        out = cluster.kubectl(
            "get", "events", "--field-selector", "reason=FailedCreate", "-o", "json"
        ).stdout
        return json.loads(out)["items"]  # type: ignore[no-any-return]

    event = wait(refused, what="a FailedCreate event")[0]
    assert event["involvedObject"]["kind"] == "Job"
    assert "exceeded quota: gpus" in event["message"]
    assert pods(cluster, "over-quota") == []
    # everything else still works: a job within the quota runs
    done = gpuctl(cluster, "create", "-f", "-", stdin=training("within-quota", 1))
    assert done.returncode == 0, done.stderr
    wait(lambda: pods(cluster, "within-quota"), what="the job within the quota to get a pod")


def test_a_job_whose_pods_name_a_missing_priority_class_gets_no_pods(cluster: Cluster) -> None:
    """The API server's Priority admission plugin refuses a pod that names a PriorityClass the
    cluster lacks; the Job itself is accepted (it is no pod), and the Job controller reports
    each refused pod in a FailedCreate event: `kubectl apply` says `created`, no pod appears.
    What `gpuctl render | kubectl apply -f -` would make if render left the classes out."""
    container = {"name": "main", "image": "busybox:1.36", "command": ["true"]}
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "classless"},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "priorityClassName": "gpuctl-test-missing",
                    "containers": [container],
                }
            },
        },
    }
    made = cluster.kubectl("apply", "-f", "-", input=json.dumps(job))
    assert made.stdout.strip() == "job.batch/classless created"

    def refused() -> list[dict[str, Any]]:
        out = cluster.kubectl(
            "get", "events", "--field-selector", "reason=FailedCreate", "-o", "json"
        ).stdout
        return json.loads(out)["items"]  # type: ignore[no-any-return]

    event = wait(refused, what="a FailedCreate event")[0]
    assert (event["involvedObject"]["kind"], event["involvedObject"]["name"]) == (
        "Job",
        "classless",
    )
    assert event["message"].startswith('Error creating: pods "classless-')
    assert event["message"].endswith(
        "is forbidden: no PriorityClass with name gpuctl-test-missing was found"
    )
    assert pods(cluster, "classless") == []


def _failing_job(name: str) -> dict[str, Any]:
    """A Job whose pods fail: the sandbox crashes images named *crash*; kwok fails pods with
    its chaos label (tests/kube/stages/stages.yaml)."""
    labels = {"pod-container-running-failed.stage.kwok.x-k8s.io": "true"}
    container = {"name": "main", "image": "busybox:crash", "command": ["false"]}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "backoffLimit": 1,
            "template": {
                "metadata": {"labels": labels},
                "spec": {"restartPolicy": "Never", "containers": [container]},
            },
        },
    }


def _stamp(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def test_a_failing_job_is_retried_after_a_back_off_then_fails(cluster: Cluster) -> None:
    """The Job controller recreates a failed pod only after a back-off (10 s, doubling), and
    marks the Job Failed once backoffLimit retries have failed too. The sandbox's tests run
    its timings scaled down (`backoff_time_scale`): this test sets the first back-off to 3 s."""
    back_off = 10.0
    if isinstance(cluster, SandboxCluster):  # 3 s instead of the tests' 50 ms
        cluster.sandbox.config.backoff_time_scale = 0.3
        back_off *= cluster.sandbox.config.backoff_time_scale
    cluster.kubectl("create", "-f", "-", input=json.dumps(_failing_job("fails")))

    def failed() -> bool:
        out = cluster.kubectl("get", "job", "fails", "-o", "json").stdout
        conditions = json.loads(out)["status"].get("conditions") or []
        return any(c["type"] == "Failed" and c["status"] == "True" for c in conditions)

    wait(failed, timeout=120, what="the Job to fail")
    out = cluster.kubectl("get", "job", "fails", "-o", "json").stdout
    condition = next(c for c in json.loads(out)["status"]["conditions"] if c["type"] == "Failed")
    assert condition["reason"] == "BackoffLimitExceeded"
    first, second = sorted(pods(cluster, "fails"), key=lambda p: p["metadata"]["creationTimestamp"])
    assert first["status"]["phase"] == second["status"]["phase"] == "Failed"
    ended = first["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"]
    gap = _stamp(second["metadata"]["creationTimestamp"]) - _stamp(ended)
    assert gap >= back_off - 1  # creationTimestamp and finishedAt are whole seconds


POOL_OF_ONE = """kind: pool
version: v0.1
metadata: {name: e2e-order-pool}
nodes:
  cpu-0: {}
"""
POOLED = """kind: compute
version: v0.1
job: {name: e2e-pooled}
environment: {image: nginx:1.27}
service: {replicas: 2, port: 80}
resources: {pool: e2e-order-pool, cpu: 0.1, memory: 64Mi}
"""


def pooled_pods_running(cluster: Cluster) -> list[dict[str, Any]]:
    out = cluster.kubectl("get", "pods", "-l", "app=e2e-pooled", "-o", "json").stdout
    pods: list[dict[str, Any]] = json.loads(out)["items"]
    running = [p for p in pods if p["status"].get("phase") == "Running"]
    return running if len(running) == 2 else []


def scheduling_failures(cluster: Cluster) -> list[str]:
    out = cluster.kubectl("get", "events", "-o", "json").stdout
    return [
        f"{e['involvedObject'].get('name')}: {e.get('message')}"
        for e in json.loads(out)["items"]
        if e.get("reason") == "FailedScheduling"
        and str(e["involvedObject"].get("name", "")).startswith("e2e-pooled")
    ]


def test_apply_and_create_label_a_pools_nodes_before_its_pods_exist(cluster: Cluster) -> None:
    """Pools go first: their nodes are labelled before the workloads that select them are
    written, so the scheduler never finds a pod of the pool with no node to go to."""
    files = cluster.workdir / "ordered"
    files.mkdir()
    (files / "a-job.yaml").write_text(POOLED)  # the job's file comes first in the directory
    (files / "b-pool.yaml").write_text(POOL_OF_ONE)
    for verb in ("apply", "create"):
        done = gpuctl(cluster, verb, "-f", str(files))
        assert done.returncode == 0, done.stderr
        pods = wait(lambda: pooled_pods_running(cluster), 90, "the pool's two pods running")
        assert {p["spec"]["nodeName"] for p in pods} == {"cpu-0"}
        assert scheduling_failures(cluster) == []
        described = gpuctl(cluster, "describe", "job", "e2e-pooled")
        assert described.returncode == 0, described.stderr
        assert "FailedScheduling" not in described.stdout
        lines = done.stdout.splitlines()
        labelled = lines.index("node/cpu-0 labeled")
        assert labelled < lines.index("deployment.apps/e2e-pooled created"), lines
        gone = gpuctl(cluster, "delete", "-f", str(files), "--wait")
        assert gone.returncode == 0, gone.stderr


def test_describe_leaves_out_scheduling_failures_from_before_the_pod_was_scheduled(
    cluster: Cluster,
) -> None:
    """A pod that could not be scheduled at first (its pool had no node yet) and runs now:
    the old FailedScheduling warnings are no longer true, so describe does not show them."""
    empty = POOL_OF_ONE.replace("nodes:\n  cpu-0: {}\n", "nodes: {}\n")
    assert gpuctl(cluster, "create", "-f", "-", stdin=empty).returncode == 0
    # the pool has no node yet: --allow-pending lets the job wait for the one added below
    created = gpuctl(cluster, "create", "-f", "-", "--allow-pending", stdin=POOLED)
    assert created.returncode == 0, created.stderr
    wait(lambda: len(scheduling_failures(cluster)) >= 2, 60, "both pods failing to schedule")
    pending = gpuctl(cluster, "describe", "job", "e2e-pooled")
    assert "FailedScheduling" in pending.stdout  # true while the pods wait

    added = run_gpuctl(
        cluster, "add", "node", "cpu-0", "--pool", "e2e-order-pool", namespaced=False
    )
    assert added.returncode == 0, added.stderr
    wait(lambda: pooled_pods_running(cluster), 90, "the pool's two pods running")
    described = gpuctl(cluster, "describe", "job", "e2e-pooled")
    assert described.returncode == 0, described.stderr
    assert "FailedScheduling" not in described.stdout, described.stdout
    assert len(scheduling_failures(cluster)) >= 2  # the cluster still has them
