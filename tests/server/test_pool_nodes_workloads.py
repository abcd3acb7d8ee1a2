"""Moving nodes in and out of a pool over REST (the `add node` / `remove node` verbs), and the
GPUWorkload controller's workloads, read-only: who may call what, and what a forged name or a
malformed body gets."""

from __future__ import annotations

import contextlib
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.errors import AlreadyExists
from gpuctl.controller import resource

from .conftest import QUOTA, Api


def _pool_of(api: Api, node: str) -> str | None:
    labels = api.env.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(c.Labels.POOL)
    return value


def _make_pool(api: Api, name: str, nodes: list[str], gpu_type: list[str]) -> None:
    body = {"name": name, "nodes": nodes, "gpuType": gpu_type}
    made = api.call("admin", "POST", "/pools", json=body)
    assert made.status_code == 201, made.text


def _pool_nodes(api: Api, pool: str) -> list[str]:
    detail = api.call("admin", "GET", f"/pools/{pool}")
    assert detail.status_code == 200, detail.text
    nodes: list[str] = detail.json()["nodes"]
    return nodes


def test_an_admin_moves_a_node_into_a_pool_and_out_again(api: Api) -> None:
    _make_pool(api, "tuning", ["gpu-a100-0"], ["A100-80G"])
    added = api.call("admin", "POST", "/pools/tuning/nodes", json={"nodes": ["gpu-a100-1"]})
    assert added.status_code == 200, added.text
    assert added.json() == {
        "name": "tuning",
        "nodes": ["gpu-a100-1"],
        "status": "added",
        "message": "node/gpu-a100-1 added to pool tuning",
    }
    assert _pool_of(api, "gpu-a100-1") == "tuning"
    assert _pool_nodes(api, "tuning") == ["gpu-a100-0", "gpu-a100-1"]
    taints = api.env.cluster.get("Node", "gpu-a100-1")["spec"].get("taints") or []
    assert {"key": c.POOL_TAINT_KEY, "value": "tuning", "effect": "NoSchedule"} in taints

    gone = api.call("admin", "DELETE", "/pools/tuning/nodes/gpu-a100-1")
    assert gone.status_code == 200, gone.text
    assert gone.json()["message"] == "node/gpu-a100-1 removed from pool tuning"
    assert _pool_of(api, "gpu-a100-1") is None
    assert _pool_nodes(api, "tuning") == ["gpu-a100-0"]


def test_a_node_of_a_model_the_pool_refuses_or_of_another_pool_changes_nothing(api: Api) -> None:
    _make_pool(api, "tuning", ["gpu-a100-0"], ["A100-80G"])
    _make_pool(api, "other", ["gpu-a100-1"], [])
    refused = api.call(
        "admin", "POST", "/pools/tuning/nodes", json={"nodes": ["gpu-a100-1", "gpu-t4-0"]}
    )
    assert refused.status_code == 409, refused.text
    assert refused.json() == {
        "error": "PoolConflict",
        "message": 'node/gpu-a100-1 is in pool other; send "overwrite": true to move it to pool'
        " tuning; node/gpu-t4-0 has GPU type T4-16G, but pool tuning allows only A100-80G "
        "(compared without letter case); nothing was changed in pool tuning",
        "field": "overwrite",
    }
    assert (_pool_of(api, "gpu-a100-1"), _pool_of(api, "gpu-t4-0")) == ("other", None)
    moved = api.call(
        "admin", "POST", "/pools/tuning/nodes", json={"nodes": ["gpu-a100-1"], "overwrite": True}
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["message"] == "node/gpu-a100-1 moved from pool other to pool tuning"
    assert _pool_nodes(api, "other") == []


def test_pool_node_writes_are_for_admins_and_check_every_name(api: Api) -> None:
    _make_pool(api, "tuning", ["gpu-a100-0"], [])
    wrong: list[str] = []
    cases: list[tuple[str, str, str, Any, int]] = [
        ("alice", "POST", "/pools/tuning/nodes", {"nodes": ["gpu-a100-1"]}, 403),
        ("bob", "DELETE", "/pools/tuning/nodes/gpu-a100-0", None, 403),
        ("admin", "POST", "/pools/no-such-pool/nodes", {"nodes": ["gpu-a100-1"]}, 404),
        ("admin", "POST", "/pools/tuning/nodes", {"nodes": ["no-such-node"]}, 409),
        ("admin", "POST", "/pools/tuning/nodes", {"nodes": ["../gpu-a100-1"]}, 400),
        ("admin", "POST", "/pools/tuning/nodes", {"nodes": []}, 400),
        ("admin", "POST", "/pools/tuning/nodes", {"nodes": "gpu-a100-1"}, 400),
        ("admin", "POST", "/pools/tuning/nodes", {"nodes": ["gpu-a100-1"], "x": 1}, 400),
        ("admin", "POST", "/pools/Tuning_/nodes", {"nodes": ["gpu-a100-1"]}, 400),
        ("admin", "DELETE", "/pools/tuning/nodes/gpu-a100-1", None, 409),
        ("admin", "DELETE", "/pools/tuning/nodes/no-such-node", None, 409),
        ("admin", "DELETE", "/pools/no-such-pool/nodes/gpu-a100-1", None, 404),
        ("admin", "DELETE", "/pools/tuning/nodes/NOT_A_NODE", None, 400),
    ]
    for who, method, path, body, code in cases:
        answer = api.call(who, method, path, json=body)
        if answer.status_code != code or "message" not in answer.json():
            wrong.append(f"{who} {method} {path} {body}: {answer.status_code} {answer.text}")
    assert wrong == []
    assert _pool_of(api, "gpu-a100-1") is None
    assert _pool_nodes(api, "tuning") == ["gpu-a100-0"]


def _workload(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"modelName": f"model-{name}", "gpuCount": 2},
    }


def test_workloads_are_listed_per_namespace_for_users_and_all_for_admins(api: Api) -> None:
    cluster = api.env.cluster
    absent = api.call("admin", "GET", "/workloads")
    assert absent.status_code == 200, absent.text
    assert absent.json()["installed"] is False
    assert absent.json()["items"] == []

    with contextlib.suppress(AlreadyExists):
        cluster.create(resource.crd())
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    cluster.create(_workload("llama", "alice"))
    cluster.create(_workload("bert", "bob"))
    status = {"phase": "Scheduled", "assignedNode": "gpu-a100-0", "message": "on gpu-a100-0"}
    cluster.patch_status("GPUWorkload", "bert", "bob", status)

    def names(who: str) -> list[str]:
        answer = api.call(who, "GET", "/workloads")
        assert answer.status_code == 200, answer.text
        assert answer.json()["installed"] is True
        return [f"{row['namespace']}/{row['name']}" for row in answer.json()["items"]]

    assert names("admin") == ["alice/llama", "bob/bert"]
    assert names("alice") == ["alice/llama"]
    assert names("bob") == ["bob/bert"]
    row = api.call("alice", "GET", "/workloads").json()["items"][0]
    assert row == {
        "namespace": "alice",
        "name": "llama",
        "modelName": "model-llama",
        "gpuCount": 2,
        "phase": "Pending",
        "node": None,
        "jobName": None,
        "retries": 0,
        "message": "",
        "createdAt": row["createdAt"],
    }
    bert = api.call("bob", "GET", "/workloads").json()["items"][0]
    assert (bert["phase"], bert["node"], bert["message"]) == (
        "Scheduled",
        "gpu-a100-0",
        "on gpu-a100-0",
    )
    assert api.call(None, "GET", "/workloads").status_code == 401
    assert api.call("alice", "GET", "/workloads?namespace=bob").json()["items"][0]["name"] == (
        "llama"
    )


def test_the_pool_list_says_whether_a_pool_isolates_its_nodes(api: Api) -> None:
    _make_pool(api, "tuning", ["gpu-a100-0"], [])
    shared = {"name": "open", "nodes": ["gpu-a100-1"], "isolation": "shared"}
    assert api.call("admin", "POST", "/pools", json=shared).status_code == 201
    items = api.call("alice", "GET", "/pools").json()["items"]
    # the default pool (the sandbox's nodes in no pool) comes last; having no record, it
    # isolates nothing
    assert [(item["name"], item["isolation"]) for item in items] == [
        ("open", "shared"),
        ("tuning", "isolated"),
        ("default", None),
    ]
