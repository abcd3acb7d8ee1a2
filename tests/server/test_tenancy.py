"""What one user sees of another through the views that aggregate across namespaces (pools,
nodes, labels): counts, never another user's job ids, pod names or namespace. Admins see all."""

from __future__ import annotations

import re
from typing import Any

from tests.support.sandbox import wait_for

from .conftest import QUOTA, Api, inference

READS = [
    "/pools",
    "/pools/shared",
    "/nodes",
    "/nodes/gpu-a100-0",
    "/nodes/labels?key=runwhere.ai/pool",
    "/nodes/labels/all",
    "/nodes?pool=shared",
]


def _world(api: Api) -> None:
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    pool = {"name": "shared", "nodes": ["gpu-a100-0"]}
    assert api.call("admin", "POST", "/pools", json=pool).status_code == 201
    for who, name, replicas in (("alice", "mine", 1), ("bob", "secret-web", 2)):
        text = inference(name, replicas=replicas, gpu=1, pool="shared")
        made = api.call(who, "POST", "/jobs", json={"yamlContent": text})
        assert made.status_code == 201, made.text

    def placed() -> bool:
        pods = api.env.cluster.list("Pod", None, label_selector="runwhere.ai/pool=shared")
        return len([p for p in pods if p["spec"].get("nodeName")]) == 3

    wait_for(placed, timeout=30, what="the three pods on gpu-a100-0")


def _get(api: Api, who: str, path: str) -> dict[str, Any]:
    answer = api.call(who, "GET", path)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_a_user_sees_other_users_work_counted_not_named(api: Api) -> None:
    _world(api)
    for path in READS:
        text = api.call("alice", "GET", path).text
        assert "bob" not in text and "secret-web" not in text, (path, text)
    pool = _get(api, "alice", "/pools/shared")
    assert [job["jobId"] for job in pool["jobs"]] == ["alice.mine"]
    assert pool["otherJobs"] == {"jobs": 1, "pods": 2, "gpu": 2}
    assert pool["gpuUsed"] == 3  # the figures count everyone's
    node = _get(api, "alice", "/nodes/gpu-a100-0")
    assert [(pod["namespace"], pod["job"]) for pod in node["pods"]] == [("alice", "mine")]
    assert node["otherPods"] == {"jobs": 1, "pods": 2, "gpu": 2}
    assert node["resources"]["gpuUsed"] == 3


def test_an_admin_sees_every_users_work_by_name(api: Api) -> None:
    _world(api)
    pool = _get(api, "admin", "/pools/shared")
    assert [job["jobId"] for job in pool["jobs"]] == ["alice.mine", "bob.secret-web"]
    assert pool["otherJobs"] == {"jobs": 0, "pods": 0, "gpu": 0}
    node = _get(api, "admin", "/nodes/gpu-a100-0")
    assert sorted({pod["namespace"] for pod in node["pods"]}) == ["alice", "bob"]
    assert node["otherPods"] == {"jobs": 0, "pods": 0, "gpu": 0}


def _service(name: str, priority: str) -> str:
    """A service holding every GPU of the pool's one node (gpu-t4-0: 4)."""
    return (
        f"kind: inference\nversion: v0.1\njob: {{name: {name}, priority: {priority}}}\n"
        "environment:\n  image: busybox:1.36\nservice:\n  replicas: 1\n  port: 8000\n"
        "resources:\n  pool: tight\n  gpu: 4\n  cpu: 1\n  memory: 1Gi\n"
    )


def _preempted(api: Api) -> None:
    """alice's low job in a one-node pool, preempted by bob's high one."""
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    pool = {"name": "tight", "nodes": ["gpu-t4-0"]}
    assert api.call("admin", "POST", "/pools", json=pool).status_code == 201
    low = api.call("alice", "POST", "/jobs", json={"yamlContent": _service("victim", "low")})
    assert low.status_code == 201, low.text
    wait_for(
        lambda: _get(api, "alice", "/jobs/alice.victim")["status"] == "running",
        timeout=30,
        what="alice's job running",
    )
    high = api.call("bob", "POST", "/jobs", json={"yamlContent": _service("secret-x", "high")})
    assert high.status_code == 201, high.text
    wait_for(
        lambda: _get(api, "alice", "/jobs/alice.victim")["status"] == "preempted",
        timeout=30,
        what="alice's job preempted",
    )


def test_a_preempted_job_does_not_name_the_other_users_job(api: Api) -> None:
    _preempted(api)
    answer = api.call("alice", "GET", "/jobs/alice.victim")
    assert "bob" not in answer.text and "secret-x" not in answer.text, answer.text
    assert re.fullmatch(
        r"preempted by a higher-priority job in another namespace on node gpu-t4-0: pod "
        r"victim-\w+-\w+ was evicted to make room; it waits until GPUs free up",
        answer.json()["why"],
    )
    for path in ("/pools/tight", "/nodes/gpu-t4-0", "/nodes", "/pools"):
        seen = api.call("alice", "GET", path).text
        assert "bob" not in seen and "secret-x" not in seen, (path, seen)


def test_an_admin_sees_who_preempted_a_job(api: Api) -> None:
    _preempted(api)
    why = _get(api, "admin", "/jobs/alice.victim")["why"]
    assert why.startswith(
        "preempted by job secret-x (higher priority) on node gpu-t4-0: pod victim-"
    )
