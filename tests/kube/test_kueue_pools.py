"""Pools as Kueue ClusterQueues, with the real Kueue (tests/kube/kueue.py) on the local control
plane: creating a capped pool makes its ResourceFlavor and ClusterQueue; a namespace's first
job in the pool makes its LocalQueue; a job beyond the cap is not refused but Queued with no
pod until the job holding the GPUs is gone (a GPUWorkload's Job too: the controller writes it
as create does); deleting the pool deletes its Kueue objects.

The tests run on the session's plane with Kueue (tests/kube/session.py KUEUE), each in a pool of
one node of its own (8 GPUs) with a name of its own: other tests on the same plane neither
take its GPUs nor queue to its ClusterQueue."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from gpuctl import constants as c
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from tests.apply.test_cluster_scenarios import wait
from tests.apply.test_scenarios import gpuctl
from tests.conftest import run_gpuctl
from tests.controller.scene import scene_on
from tests.kube import kueue
from tests.support.nodes import nodes_made, pool_name, pool_node
from tests.support.sandbox import Cluster

pytestmark = pytest.mark.kube

POOL = """kind: pool
version: v0.1
metadata: {{name: {name}}}
max-gpus: 8
nodes:
  {name}-0: {{}}
"""

TRAINING = """kind: training
version: v0.1
job: {{name: {name}}}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 600"]
resources: {{pool: {pool}, gpu: {gpu}, cpu: 100m, memory: 64Mi}}
"""


@pytest.fixture
def kueue_pool(kueue_local: Cluster) -> Iterator[tuple[Cluster, str]]:
    """The plane with Kueue, and the name of a fresh 8-GPU node's pool (the node is labelled
    and tainted with it; the pool itself is the test's to create)."""
    name = pool_name(kueue_local, "kq")
    with nodes_made(kueue_local, [pool_node(f"{name}-0", name, 8)]):
        yield kueue_local, name
        gpuctl(kueue_local, "delete", "-f", "-", stdin=POOL.format(name=name))


def _kueue_object(cluster: Cluster, kind: str, name: str) -> dict[str, Any] | None:
    done = cluster.kubectl("get", kind, name, "-o", "json", check=False, namespaced=False)
    return json.loads(done.stdout) if done.returncode == 0 else None


def _status(cluster: Cluster, name: str) -> str:
    rows = gpuctl(cluster, "get", "jobs", "--no-headers").stdout.splitlines()
    return next((row.split()[3] for row in rows if row.split()[0] == name), "")


def _pods(cluster: Cluster, job: str) -> str:
    return cluster.kubectl("get", "pods", "-l", f"job-name={job}", "-o", "name").stdout


def _holding(cluster: Cluster, pool: str, name: str, gpus: int) -> None:
    """A job of the pool rendered as gpuctl renders it for a cluster whose pool is a
    ClusterQueue, with its pod kept Running by kwok (which otherwise ends a Job's pod after
    5-15 s), so that it holds its GPUs until deleted."""
    text = TRAINING.format(name=name, pool=pool, gpu=gpus)
    options = Options(namespace=cluster.namespace, kueue_pools=frozenset({pool}))
    objects = [m.obj for m in engine.render_documents(load_text("holding", text), options)]
    job = next(obj for obj in objects if obj["kind"] == "Job")
    assert job["metadata"]["labels"][c.KUEUE_QUEUE_LABEL] == pool
    keep = {f"pod-complete.stage.kwok.x-k8s.io/{key}": "1h" for key in ("delay", "jitter-delay")}
    job["spec"]["template"]["metadata"].setdefault("annotations", {}).update(keep)
    listed = {"apiVersion": "v1", "kind": "List", "items": objects}
    cluster.kubectl("create", "-f", "-", input=json.dumps(listed))


def test_a_capped_pool_queues_the_job_beyond_its_cap_in_kueue(
    kueue_pool: tuple[Cluster, str],
) -> None:
    cluster, pool = kueue_pool
    made = gpuctl(cluster, "create", "-f", "-", stdin=POOL.format(name=pool))
    assert made.returncode == 0, made.stderr
    assert f"resourceflavor.kueue.x-k8s.io/{c.KUEUE_FLAVOR_PREFIX}{pool} created" in made.stdout
    assert f"clusterqueue.kueue.x-k8s.io/{pool} created" in made.stdout
    queue = _kueue_object(cluster, "clusterqueue", pool)
    assert queue is not None
    quotas = queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {"name": "nvidia.com/gpu", "nominalQuota": "8"} in quotas

    # the namespace's first job in the pool makes its LocalQueue
    warm = gpuctl(
        cluster, "create", "-f", "-", stdin=TRAINING.format(name="kq-warm", pool=pool, gpu=0)
    )
    assert warm.returncode == 0, warm.stderr
    assert f"localqueue.kueue.x-k8s.io/{pool} created" in warm.stdout
    _holding(cluster, pool, "kq-first", 8)
    wait(lambda: _status(cluster, "kq-first") == "Running", 120, "Kueue to admit kq-first")

    # 8 of 8 GPUs used: not refused, queued
    second = gpuctl(
        cluster, "create", "-f", "-", stdin=TRAINING.format(name="kq-second", pool=pool, gpu=4)
    )
    assert second.returncode == 0, second.stderr
    assert "localqueue" not in second.stdout  # the namespace has it already
    job = json.loads(cluster.kubectl("get", "job", "kq-second", "-o", "json").stdout)
    assert job["metadata"]["labels"][c.KUEUE_QUEUE_LABEL] == pool
    wait(lambda: _status(cluster, "kq-second") == "Queued", 60, "kq-second Queued")
    described = gpuctl(cluster, "describe", "job", "kq-second").stdout
    assert f"waiting for Kueue to admit it from queue {pool}" in described
    assert _pods(cluster, "kq-second") == ""
    pools = run_gpuctl(cluster, "get", "pools", "-o", "json", namespaced=False)
    shown = next(p for p in json.loads(pools.stdout)["items"] if p["name"] == pool)
    assert (shown["gpuCapUsed"], shown["gpuCap"]) == (8, 8)

    gone = gpuctl(cluster, "delete", "job", "kq-first", "--wait")
    assert gone.returncode == 0, gone.stderr
    wait(lambda: _status(cluster, "kq-second") == "Running", 120, "Kueue to admit kq-second")

    # deleting the pool deletes its Kueue objects; the admitted job runs on, and Kueue keeps
    # its ClusterQueue (terminating: it admits nothing more) until that job is gone
    deleted = gpuctl(cluster, "delete", "-f", "-", stdin=POOL.format(name=pool))
    assert deleted.returncode == 0, deleted.stderr
    assert f"localqueue.kueue.x-k8s.io/{pool} deleted" in deleted.stdout
    assert (
        f"clusterqueue.kueue.x-k8s.io/{pool} deleted (Kueue removes it once no job it "
        "admitted is left; a job still queued there stays Queued)" in deleted.stdout
    )
    assert _status(cluster, "kq-second") in ("Running", "Succeeded")  # kwok ends it in 5-15 s
    cluster.kubectl("delete", "job", "kq-second", "kq-warm", "--wait=false")
    wait(lambda: _kueue_object(cluster, "clusterqueue", pool) is None, 120, "the queue gone")
    flavor = c.KUEUE_FLAVOR_PREFIX + pool
    wait(lambda: _kueue_object(cluster, "resourceflavor", flavor) is None, 120, "the flavor gone")


DISTRIBUTED = """kind: training
version: v0.1
job: {{name: {name}}}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 600"]
resources: {{pool: {pool}, gpu: 8, node_count: 2, cpu: 100m, memory: 64Mi}}
"""


def test_kueue_evicts_a_queued_multi_node_job_whose_pods_do_not_all_start(
    kueue_pool: tuple[Cluster, str],
) -> None:
    """A 2-node job of 8 GPUs a node in a pool whose quota (raised from 8 to 16 by apply)
    admits it, but whose one node takes only one pod: no start barrier holds the pod that
    started; Kueue's waitForPodsReady evicts the whole job after its timeout and queues it
    again."""
    cluster, pool = kueue_pool
    made = gpuctl(cluster, "create", "-f", "-", stdin=POOL.format(name=pool))
    assert made.returncode == 0, made.stderr
    capped = POOL.format(name=pool).replace("max-gpus: 8", "max-gpus: 16")
    raised = gpuctl(cluster, "apply", "-f", "-", stdin=capped)  # the cap raised in place
    assert raised.returncode == 0, raised.stderr
    assert f"clusterqueue.kueue.x-k8s.io/{pool} configured" in raised.stdout
    queue = _kueue_object(cluster, "clusterqueue", pool) or {}
    quotas = queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {"name": "nvidia.com/gpu", "nominalQuota": "16"} in quotas
    options = Options(namespace=cluster.namespace, kueue_pools=frozenset({pool}))
    text = DISTRIBUTED.format(name="kq-gang", pool=pool)
    objects = [m.obj for m in engine.render_documents(load_text("gang", text), options)]
    job = next(obj for obj in objects if obj["kind"] == "Job")
    assert job["metadata"]["labels"][c.KUEUE_QUEUE_LABEL] == pool
    assert "initContainers" not in job["spec"]["template"]["spec"]  # no start barrier
    keep = {f"pod-complete.stage.kwok.x-k8s.io/{key}": "1h" for key in ("delay", "jitter-delay")}
    job["spec"]["template"]["metadata"].setdefault("annotations", {}).update(keep)
    queue = engine.render_local_queue(pool, cluster.namespace, kueue.SERVED_VERSION).obj
    listed = {"apiVersion": "v1", "kind": "List", "items": [*objects, queue]}
    cluster.kubectl("create", "-f", "-", input=json.dumps(listed))

    wait(lambda: "Running" in _pods_phases(cluster, "kq-gang"), 60, "one pod of kq-gang Running")
    assert _pods_phases(cluster, "kq-gang").count("Running") == 1
    timeout = kueue.PODS_READY_TIMEOUT + 60
    evicted = wait(lambda: _evicted(cluster, "kq-gang"), timeout, "Kueue to evict kq-gang")
    assert evicted["reason"] == "PodsReadyTimeout", evicted
    wait(lambda: _status(cluster, "kq-gang") == "Queued", 60, "kq-gang queued again")


def _pods_phases(cluster: Cluster, job: str) -> list[str]:
    listed = cluster.kubectl("get", "pods", "-l", f"job-name={job}", "-o", "json").stdout
    return [pod["status"].get("phase", "") for pod in json.loads(listed)["items"]]


def _evicted(cluster: Cluster, job: str) -> dict[str, Any] | None:
    listed = json.loads(cluster.kubectl("get", "workloads", "-o", "json").stdout)["items"]
    for workload in listed:
        owners = workload["metadata"].get("ownerReferences") or []
        if any(owner.get("name") == job for owner in owners):
            for condition in (workload.get("status") or {}).get("conditions") or []:
                if condition["type"] == "Evicted" and condition["status"] == "True":
                    return dict(condition)
    return None


def test_patching_a_pools_cap_sets_its_clusterqueue_quota_in_place(
    kueue_pool: tuple[Cluster, str],
) -> None:
    from fastapi.testclient import TestClient

    from gpuctl.cluster.client import Cluster as Kube
    from gpuctl.server.app import create_app

    cluster, pool = kueue_pool
    made = gpuctl(cluster, "create", "-f", "-", stdin=POOL.format(name=pool))
    assert made.returncode == 0, made.stderr
    created = _kueue_object(cluster, "clusterqueue", pool)
    assert created is not None
    node = cluster.kubectl("get", "node", f"{pool}-0", "-o", "json", namespaced=False)
    app = create_app(Kube.connect(str(cluster.kubeconfig)), None)
    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as client:
        raised = client.patch(f"/api/v1/pools/{pool}", json={"maxGpus": 12})
    assert raised.status_code == 200, raised.text
    assert raised.json()["gpuCap"] == 12
    assert f"clusterqueue.kueue.x-k8s.io/{pool} configured" in raised.json()["message"]
    queue = _kueue_object(cluster, "clusterqueue", pool)
    assert queue is not None
    assert queue["metadata"]["uid"] == created["metadata"]["uid"]  # in place, not replaced
    quotas = queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {"name": "nvidia.com/gpu", "nominalQuota": "12"} in quotas
    after = cluster.kubectl("get", "node", f"{pool}-0", "-o", "json", namespaced=False)
    labels_and_taints = [
        (json.loads(n.stdout)["metadata"]["labels"], json.loads(n.stdout)["spec"].get("taints"))
        for n in (node, after)
    ]
    assert labels_and_taints[0] == labels_and_taints[1]


SHARED_POOL = """kind: pool
version: v0.1
metadata: {{name: {name}}}
max-gpus: 8
isolation: shared
nodes:
  {first}: {{}}
  {second}: {{}}
"""


def test_a_gpuworkload_in_a_kueue_pool_is_queued_there_and_held_by_its_cap(
    kueue_local: Cluster,
) -> None:
    """The controller writes its Job through the create verb with the cluster's render
    options: placed on a node of a pool that is a ClusterQueue, the Job carries the pool's
    queue label and stays suspended, with no pod, while another job holds the pool's 8 GPUs
    (on its other node: the node the controller chose has 8 free), and runs on the chosen
    node once Kueue admits it."""
    cluster = kueue_local
    pool = pool_name(cluster, "kw")
    with scene_on(cluster) as scene:
        first, second = scene.add_node("kw-0", 8), scene.add_node("kw-1", 8)
        pool_file = SHARED_POOL.format(name=pool, first=first, second=second)
        try:
            made = gpuctl(cluster, "create", "-f", "-", stdin=pool_file)
            assert made.returncode == 0, made.stderr
            assert f"clusterqueue.kueue.x-k8s.io/{pool} created" in made.stdout
            queue = engine.render_local_queue(pool, cluster.namespace, kueue.SERVED_VERSION)
            cluster.kubectl("create", "-f", "-", input=json.dumps(queue.obj))
            _holding(cluster, pool, "kw-hold", 8)
            wait(lambda: _status(cluster, "kw-hold") == "Running", 120, "Kueue to admit kw-hold")
            held = _pod_node(cluster, "kw-hold")
            free = second if held == first else first

            with scene.controller():
                scene.create("kw-queued", 4, "leastLoaded")
                status = scene.wait_phase("kw-queued", "Scheduled", timeout=60)
                assert status["assignedNode"] == free
                assert f"queued in Kueue pool {pool}" in status["message"]
                job = scene.client.get("Job", "kw-queued", scene.namespace)
                assert job["metadata"]["labels"][c.KUEUE_QUEUE_LABEL] == pool
                wait(lambda: _status(cluster, "kw-queued") == "Queued", 60, "kw-queued Queued")
                time.sleep(5)  # Kueue had time to admit it, were there room
                job = scene.client.get("Job", "kw-queued", scene.namespace)
                assert job["spec"]["suspend"] is True
                assert _pods(cluster, "kw-queued") == ""
                described = gpuctl(cluster, "describe", "job", "kw-queued").stdout
                assert f"waiting for Kueue to admit it from queue {pool}" in described

                gone = gpuctl(cluster, "delete", "job", "kw-hold", "--wait")
                assert gone.returncode == 0, gone.stderr
                assert scene.pod_node("kw-queued", timeout=120) == free
                assert scene.status("kw-queued")["phase"] == "Scheduled"
        finally:
            cluster.kubectl("delete", "job", "kw-hold", "kw-queued", "--wait=false", check=False)
            gpuctl(cluster, "delete", "-f", "-", stdin=pool_file)


def _pod_node(cluster: Cluster, job: str) -> str:
    listed = cluster.kubectl("get", "pods", "-l", f"job-name={job}", "-o", "json").stdout
    nodes = [pod["spec"].get("nodeName") for pod in json.loads(listed)["items"]]
    assert len(nodes) == 1 and nodes[0], nodes
    return str(nodes[0])
