"""What `describe job` and `GET /jobs/{jobId}` say of a job in a state the cluster put it in, on
the `cluster` fixture (the sandbox and the local real control plane, which must agree): pods
refused by a ResourceQuota; a half-deleted job (its workload gone, its Service left, as a
`gpuctl delete` killed between two deletes leaves it), which is listed as Partial, and which
`delete` and `create` finish; when a job started (null while no pod of it has)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi.testclient import TestClient

from gpuctl.cluster.client import Cluster as GpuctlCluster
from gpuctl.server.app import create_app
from tests.conftest import run_gpuctl
from tests.support.sandbox import Cluster

T = TypeVar("T")


def training(name: str, gpus: int, pool: str = "default") -> str:
    return f"""kind: training
version: v0.1
job: {{name: {name}}}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "echo step 1; sleep 300"]
resources: {{gpu: {gpus}, cpu: 1, memory: 1Gi, pool: {pool}}}
"""


def wait(predicate: Callable[[], T], what: str, timeout: float = 60) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def failed_creates(cluster: Cluster, job: str) -> list[dict[str, Any]]:
    out = cluster.kubectl("get", "events", "--field-selector", "reason=FailedCreate", "-o", "json")
    items = json.loads(out.stdout)["items"]
    return [e for e in items if e["involvedObject"]["name"] == job]


def why_of(cluster: Cluster, job: str) -> str:
    """The Why line of `gpuctl describe job` (without its label)."""
    described = run_gpuctl(cluster, "describe", "job", job)
    assert described.returncode == 0, described.stderr
    line = next(line for line in described.stdout.splitlines() if line.startswith("Why"))
    return line.partition(":")[2].strip()


def api_get(cluster: Cluster, path: str) -> dict[str, Any]:
    """`GET /api/v1{path}` of a server on this cluster."""
    app = create_app(GpuctlCluster.connect(str(cluster.kubeconfig)), None, cache=False)
    with TestClient(app, base_url="http://localhost") as client:
        answer = client.get(f"/api/v1{path}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def job_detail(cluster: Cluster, job: str) -> dict[str, Any]:
    return api_get(cluster, f"/jobs/{cluster.namespace}.{job}")


def described(cluster: Cluster, job: str) -> dict[str, str]:
    """`gpuctl describe job`'s fields above its Pods table, by name."""
    done = run_gpuctl(cluster, "describe", "job", job)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("Pods:")[0].splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def test_a_job_over_its_quota_says_which_quota_and_how_much_is_used(cluster: Cluster) -> None:
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpus"},
        "spec": {"hard": {"requests.nvidia.com/gpu": "2"}},
    }
    cluster.kubectl("create", "-f", "-", input=json.dumps(quota))
    refused = run_gpuctl(cluster, "create", "-f", "-", stdin=training("over-quota", 3))
    assert refused.returncode == 1, refused.stdout
    said = refused.stderr.splitlines()[0]
    assert "resources.gpu: " in said and f"namespace {cluster.namespace}'s quota allows 2" in said
    assert "nothing was created" in refused.stderr and "--allow-pending" in refused.stderr
    assert cluster.kubectl("get", "jobs", "-o", "name").stdout == ""
    # accepted anyway, the job waits, and its pods' refusals say which quota and how much
    done = run_gpuctl(
        cluster, "create", "-f", "-", "--allow-pending", stdin=training("over-quota", 3)
    )
    assert done.returncode == 0, done.stderr
    wait(lambda: failed_creates(cluster, "over-quota"), "the quota's refusal")

    expected = (
        f"over quota gpus of namespace {cluster.namespace}, so the cluster refuses its pods "
        "(requests.nvidia.com/gpu: a pod asks for 3, 0 of 2 used); it starts once enough of "
        "the quota is free (delete or pause other jobs there, or ask an admin to raise the quota)"
    )
    assert why_of(cluster, "over-quota") == expected
    detail = job_detail(cluster, "over-quota")
    assert detail["status"] == "pending"
    assert detail["why"] == expected


def inference(name: str) -> str:
    return f"""kind: inference
version: v0.1
job: {{name: {name}}}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 3600"]
service: {{replicas: 2, port: 8000}}
resources: {{gpu: 1, cpu: 1, memory: 1Gi}}
"""


def half_delete(cluster: Cluster, name: str) -> None:
    """What a delete killed after its first deletes leaves: the Deployment (and its pods) gone,
    the Service and PodDisruptionBudget still there."""
    cluster.kubectl("delete", "deployment", name, "--cascade=foreground", "--wait=true")
    left = cluster.kubectl("get", "service,pdb", "-o", "name").stdout.split()
    assert sorted(left) == [f"poddisruptionbudget.policy/{name}", f"service/svc-{name}"]


def job_rows(cluster: Cluster) -> list[list[str]]:
    listed = run_gpuctl(cluster, "get", "jobs")
    assert listed.returncode == 0, listed.stderr
    return [line.split() for line in listed.stdout.splitlines()[1:]]


def test_a_half_deleted_job_is_listed_partial_and_delete_finishes_it(cluster: Cluster) -> None:
    made = run_gpuctl(cluster, "create", "-f", "-", stdin=inference("web"))
    assert made.returncode == 0, made.stderr
    half_delete(cluster, "web")

    assert [row[:6] for row in job_rows(cluster)] == [
        ["web", "inference", "default", "Partial", "0/0", "0"]
    ]
    named = run_gpuctl(cluster, "get", "jobs", "-o", "name")
    assert named.stdout.split() == ["poddisruptionbudget.policy/web", "service/svc-web"]
    described = run_gpuctl(cluster, "describe", "job", "web")
    assert described.returncode == 0, described.stderr
    shown = dict(
        (key, value.strip())
        for key, _, value in (line.partition(":") for line in described.stdout.splitlines())
    )
    assert shown["Status"] == "Partial"
    assert shown["Object"] == "<none> (left: poddisruptionbudget.policy/web, service/svc-web)"
    assert why_of(cluster, "web") == (
        "half-deleted: its workload is gone, poddisruptionbudget.policy/web, service/svc-web "
        "are left (gpuctl delete job web removes them; creating the job again removes them "
        "first)"
    )
    logs = run_gpuctl(cluster, "logs", "web")
    assert logs.returncode == 1
    assert logs.stderr == (
        f"error: job 'web' in namespace {cluster.namespace} is partial: its workload is gone, "
        "poddisruptionbudget.policy/web, service/svc-web are left (gpuctl delete job web "
        "removes them)\n"
    )

    deleted = run_gpuctl(cluster, "delete", "job", "web")
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout.splitlines() == [
        "poddisruptionbudget.policy/web deleted",
        "service/svc-web deleted",
    ]
    wait(lambda: not cluster.kubectl("get", "service,pdb", "-o", "name").stdout, "the leftovers")
    assert job_rows(cluster) == []


def test_creating_a_half_deleted_job_again_removes_its_leftovers_first(cluster: Cluster) -> None:
    made = run_gpuctl(cluster, "create", "-f", "-", stdin=inference("web"))
    assert made.returncode == 0, made.stderr
    half_delete(cluster, "web")

    again = run_gpuctl(cluster, "create", "-f", "-", stdin=inference("web"))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == [
        "poddisruptionbudget.policy/web deleted (left of a half-deleted job)",
        "service/svc-web deleted (left of a half-deleted job)",
        "service/svc-web created",
        "deployment.apps/web created",
        "poddisruptionbudget.policy/web created",
    ]
    (row,) = job_rows(cluster)
    assert row[:2] == ["web", "inference"] and row[3] != "Partial"


def test_started_at_is_null_until_a_pod_started(cluster: Cluster) -> None:
    """The Job controller sets the Job's `status.startTime` at once, even when no node can take
    its pod; `startedAt` is when a container of the job first ran."""
    # no node is in pool nowhere: the job waits for one (a pod that cannot be scheduled)
    waits = training("waits", 1, pool="nowhere")
    made = run_gpuctl(cluster, "create", "-f", "-", "--allow-pending", stdin=waits)
    assert made.returncode == 0, made.stderr

    def unschedulable() -> bool:
        pods = json.loads(
            cluster.kubectl("get", "pods", "-l", "job-name=waits", "-o", "json").stdout
        )
        conditions = [c for p in pods["items"] for c in p["status"].get("conditions") or []]
        return any(c["type"] == "PodScheduled" and c["status"] == "False" for c in conditions)

    wait(unschedulable, "the pod to be unschedulable")
    job = json.loads(cluster.kubectl("get", "job", "waits", "-o", "json").stdout)
    assert job["status"].get("startTime")  # what startedAt used to be
    assert job_detail(cluster, "waits")["startedAt"] is None
    items = api_get(cluster, f"/jobs?namespace={cluster.namespace}")["items"]
    assert [(i["name"], i["startedAt"]) for i in items] == [("waits", None)]
    assert described(cluster, "waits")["Started"] == "<none> (no pod has started)"


def test_started_at_is_when_the_first_container_ran(cluster: Cluster) -> None:
    made = run_gpuctl(cluster, "create", "-f", "-", stdin=inference("web"))
    assert made.returncode == 0, made.stderr

    def started() -> list[str]:
        pods = json.loads(cluster.kubectl("get", "pods", "-l", "app=web", "-o", "json").stdout)
        times = [
            s["state"]["running"]["startedAt"]
            for p in pods["items"]
            for s in p["status"].get("containerStatuses") or []
            if "running" in s["state"]
        ]
        return times if len(times) == 2 else []

    first = min(wait(started, "both pods to run"))
    assert job_detail(cluster, "web")["startedAt"] == first
    items = api_get(cluster, f"/jobs?namespace={cluster.namespace}")["items"]
    assert [(i["name"], i["startedAt"]) for i in items] == [("web", first)]
    assert described(cluster, "web")["Started"].startswith(f"{first} (")
