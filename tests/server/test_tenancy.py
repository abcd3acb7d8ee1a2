"""What one user sees of another through the views that aggregate across namespaces (pools,
nodes, labels): counts, never another user's job ids, pod names or namespace. Admins see all.
On the `cluster` fixture (the sandbox, and the local real control plane with kube-scheduler's
own preemption), in pools of nodes of the test's own (`own_nodes`)."""

from __future__ import annotations

import re
from typing import Any

from tests.support.sandbox import wait_for

from .conftest import ClusterApi, inference, quota

Nodes = dict[str, str]


def _reads(pool: str, node: str) -> list[str]:
    return [
        "/pools",
        f"/pools/{pool}",
        "/nodes",
        f"/nodes/{node}",
        "/nodes/labels?key=runwhere.ai/pool",
        "/nodes/labels/all",
        f"/nodes?pool={pool}",
    ]


def _team(api: ClusterApi) -> None:
    team = quota(api.user("alice"), api.user("bob"))
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": team}).status_code == 201


def _pool_of(api: ClusterApi, name: str, node: str) -> str:
    pool = api.pool(name)
    made = api.call("admin", "POST", "/pools", json={"name": pool, "nodes": [node]})
    assert made.status_code == 201, made.text
    api.open_to_pool([node])
    return pool


def _world(api: ClusterApi, node: str) -> str:
    """alice's job (one pod) and bob's (two) on `node`, in a pool of its own: the pool."""
    _team(api)
    pool = _pool_of(api, "shared", node)
    for who, name, replicas in (("alice", "mine", 1), ("bob", "secret-web", 2)):
        text = inference(name, replicas=replicas, gpu=1, pool=pool)
        made = api.call(who, "POST", "/jobs", json={"yamlContent": text})
        assert made.status_code == 201, made.text

    def placed() -> bool:
        pods = api.cluster.list("Pod", None, label_selector=f"runwhere.ai/pool={pool}")
        return len([p for p in pods if p["spec"].get("nodeName")]) == 3

    wait_for(placed, timeout=60, what=f"the three pods on {node}")
    return pool


def _get(api: ClusterApi, who: str, path: str) -> dict[str, Any]:
    answer = api.call(who, "GET", path)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_a_user_sees_other_users_work_counted_not_named(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, node, bob = cluster_api, own_nodes["a100-0"], cluster_api.user("bob")
    pool = _world(api, node)
    for path in _reads(pool, node):
        text = api.call("alice", "GET", path).text
        assert bob not in text and "secret-web" not in text, (path, text)
    found = _get(api, "alice", f"/pools/{pool}")
    assert [job["jobId"] for job in found["jobs"]] == [api.job_id("mine", owner="alice")]
    assert found["otherJobs"] == {"jobs": 1, "pods": 2, "gpu": 2}
    assert found["gpuUsed"] == 3  # the figures count everyone's
    shown = _get(api, "alice", f"/nodes/{node}")
    pods = [(pod["namespace"], pod["job"]) for pod in shown["pods"]]
    assert pods == [(api.user("alice"), "mine")]
    assert shown["otherPods"] == {"jobs": 1, "pods": 2, "gpu": 2}
    assert shown["resources"]["gpuUsed"] == 3


def test_an_admin_sees_every_users_work_by_name(cluster_api: ClusterApi, own_nodes: Nodes) -> None:
    api, node = cluster_api, own_nodes["a100-0"]
    pool = _world(api, node)
    found = _get(api, "admin", f"/pools/{pool}")
    assert [job["jobId"] for job in found["jobs"]] == [
        api.job_id("mine", owner="alice"),
        api.job_id("secret-web", owner="bob"),
    ]
    assert found["otherJobs"] == {"jobs": 0, "pods": 0, "gpu": 0}
    shown = _get(api, "admin", f"/nodes/{node}")
    assert sorted({pod["namespace"] for pod in shown["pods"]}) == [
        api.user("alice"),
        api.user("bob"),
    ]
    assert shown["otherPods"] == {"jobs": 0, "pods": 0, "gpu": 0}


def _service(name: str, priority: str, pool: str) -> str:
    """A service holding every GPU of the pool's one node (a T4 node: 4)."""
    return (
        f"kind: inference\nversion: v0.1\njob: {{name: {name}, priority: {priority}}}\n"
        "environment:\n  image: busybox:1.36\nservice:\n  replicas: 1\n  port: 8000\n"
        f"resources:\n  pool: {pool}\n  gpu: 4\n  cpu: 1\n  memory: 1Gi\n"
    )


def _preempted(api: ClusterApi, node: str) -> str:
    """alice's low job in a one-node pool, preempted by bob's high one: alice's job id."""
    _team(api)
    pool = _pool_of(api, "tight", node)
    victim = api.job_id("victim", owner="alice")
    low = api.call("alice", "POST", "/jobs", json={"yamlContent": _service("victim", "low", pool)})
    assert low.status_code == 201, low.text
    wait_for(
        lambda: _get(api, "alice", f"/jobs/{victim}")["status"] == "running",
        timeout=60,
        what="alice's job running",
    )
    high = _service("secret-x", "high", pool)
    made = api.call("bob", "POST", "/jobs", json={"yamlContent": high})
    assert made.status_code == 201, made.text
    wait_for(
        lambda: _get(api, "alice", f"/jobs/{victim}")["status"] == "preempted",
        timeout=60,
        what="alice's job preempted",
    )
    return victim


def test_a_preempted_job_does_not_name_the_other_users_job(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, node, bob = cluster_api, own_nodes["t4-0"], cluster_api.user("bob")
    victim = _preempted(api, node)
    answer = api.call("alice", "GET", f"/jobs/{victim}")
    assert bob not in answer.text and "secret-x" not in answer.text, answer.text
    assert re.fullmatch(
        rf"preempted by a higher-priority job in another namespace on node {node}: pod "
        r"victim-\w+-\w+ was evicted to make room; it waits until GPUs free up",
        answer.json()["why"],
    )
    pool = api.pool("tight")
    for path in (f"/pools/{pool}", f"/nodes/{node}", "/nodes", "/pools"):
        seen = api.call("alice", "GET", path).text
        assert bob not in seen and "secret-x" not in seen, (path, seen)


def test_an_admin_sees_who_preempted_a_job(cluster_api: ClusterApi, own_nodes: Nodes) -> None:
    api, node = cluster_api, own_nodes["t4-0"]
    victim = _preempted(api, node)
    why = _get(api, "admin", f"/jobs/{victim}")["why"]
    said = f"preempted by job secret-x (higher priority) on node {node}: pod victim-"
    assert why.startswith(said), why
