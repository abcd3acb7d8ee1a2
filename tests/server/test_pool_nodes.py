"""Moving nodes in and out of a pool over REST (the `add node` / `remove node` verbs): who may
call what, and what a forged name or a malformed body gets. On the `cluster` fixture (the
sandbox and the local real control plane), on nodes of the test's own (`own_nodes`) and pools
named for it (the pool list is the whole cluster's: it is read for the test's pools)."""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c

from .conftest import ClusterApi

Nodes = dict[str, str]


def _pool_of(api: ClusterApi, node: str) -> str | None:
    labels = api.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(c.Labels.POOL)
    return value


def _make_pool(api: ClusterApi, name: str, nodes: list[str], gpu_type: list[str]) -> None:
    body = {"name": name, "nodes": nodes, "gpuType": gpu_type}
    made = api.call("admin", "POST", "/pools", json=body)
    assert made.status_code == 201, made.text


def _pool_nodes(api: ClusterApi, pool: str) -> list[str]:
    detail = api.call("admin", "GET", f"/pools/{pool}")
    assert detail.status_code == 200, detail.text
    nodes: list[str] = detail.json()["nodes"]
    return nodes


def test_an_admin_moves_a_node_into_a_pool_and_out_again(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, tuning = cluster_api, cluster_api.pool("tuning")
    a100_0, a100_1 = own_nodes["a100-0"], own_nodes["a100-1"]
    _make_pool(api, tuning, [a100_0], ["A100-80G"])
    added = api.call("admin", "POST", f"/pools/{tuning}/nodes", json={"nodes": [a100_1]})
    assert added.status_code == 200, added.text
    assert added.json() == {
        "name": tuning,
        "nodes": [a100_1],
        "status": "added",
        "message": f"node/{a100_1} added to pool {tuning}",
    }
    assert _pool_of(api, a100_1) == tuning
    assert _pool_nodes(api, tuning) == [a100_0, a100_1]
    taints = api.cluster.get("Node", a100_1)["spec"].get("taints") or []
    assert {"key": c.POOL_TAINT_KEY, "value": tuning, "effect": "NoSchedule"} in taints

    gone = api.call("admin", "DELETE", f"/pools/{tuning}/nodes/{a100_1}")
    assert gone.status_code == 200, gone.text
    assert gone.json()["message"] == f"node/{a100_1} removed from pool {tuning}"
    assert _pool_of(api, a100_1) is None
    assert _pool_nodes(api, tuning) == [a100_0]


def test_a_node_of_a_model_the_pool_refuses_or_of_another_pool_changes_nothing(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, tuning, other = cluster_api, cluster_api.pool("tuning"), cluster_api.pool("other")
    a100_0, a100_1, t4 = own_nodes["a100-0"], own_nodes["a100-1"], own_nodes["t4-0"]
    _make_pool(api, tuning, [a100_0], ["A100-80G"])
    _make_pool(api, other, [a100_1], [])
    refused = api.call("admin", "POST", f"/pools/{tuning}/nodes", json={"nodes": [a100_1, t4]})
    assert refused.status_code == 409, refused.text
    assert refused.json() == {
        "error": "PoolConflict",
        "message": f'node/{a100_1} is in pool {other}; send "overwrite": true to move it to pool'
        f" {tuning}; node/{t4} has GPU type T4-16G, but pool {tuning} allows only A100-80G "
        f"(compared without letter case); nothing was changed in pool {tuning}",
        "field": "overwrite",
    }
    assert (_pool_of(api, a100_1), _pool_of(api, t4)) == (other, None)
    body = {"nodes": [a100_1], "overwrite": True}
    moved = api.call("admin", "POST", f"/pools/{tuning}/nodes", json=body)
    assert moved.status_code == 200, moved.text
    assert moved.json()["message"] == f"node/{a100_1} moved from pool {other} to pool {tuning}"
    assert _pool_nodes(api, other) == []


def test_pool_node_writes_are_for_admins_and_check_every_name(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, tuning = cluster_api, cluster_api.pool("tuning")
    a100_0, a100_1 = own_nodes["a100-0"], own_nodes["a100-1"]
    _make_pool(api, tuning, [a100_0], [])
    wrong: list[str] = []
    cases: list[tuple[str, str, str, Any, int]] = [
        ("alice", "POST", f"/pools/{tuning}/nodes", {"nodes": [a100_1]}, 403),
        ("bob", "DELETE", f"/pools/{tuning}/nodes/{a100_0}", None, 403),
        ("admin", "POST", "/pools/no-such-pool/nodes", {"nodes": [a100_1]}, 404),
        ("admin", "POST", f"/pools/{tuning}/nodes", {"nodes": ["no-such-node"]}, 409),
        ("admin", "POST", f"/pools/{tuning}/nodes", {"nodes": [f"../{a100_1}"]}, 400),
        ("admin", "POST", f"/pools/{tuning}/nodes", {"nodes": []}, 400),
        ("admin", "POST", f"/pools/{tuning}/nodes", {"nodes": a100_1}, 400),
        ("admin", "POST", f"/pools/{tuning}/nodes", {"nodes": [a100_1], "x": 1}, 400),
        ("admin", "POST", "/pools/Tuning_/nodes", {"nodes": [a100_1]}, 400),
        ("admin", "DELETE", f"/pools/{tuning}/nodes/{a100_1}", None, 409),
        ("admin", "DELETE", f"/pools/{tuning}/nodes/no-such-node", None, 409),
        ("admin", "DELETE", f"/pools/no-such-pool/nodes/{a100_1}", None, 404),
        ("admin", "DELETE", f"/pools/{tuning}/nodes/NOT_A_NODE", None, 400),
    ]
    for who, method, path, body, code in cases:
        answer = api.call(who, method, path, json=body)
        if answer.status_code != code or "message" not in answer.json():
            wrong.append(f"{who} {method} {path} {body}: {answer.status_code} {answer.text}")
    assert wrong == []
    assert _pool_of(api, a100_1) is None
    assert _pool_nodes(api, tuning) == [a100_0]


def test_the_pool_list_says_whether_a_pool_isolates_its_nodes(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, tuning, shared = cluster_api, cluster_api.pool("tuning"), cluster_api.pool("open")
    _make_pool(api, tuning, [own_nodes["a100-0"]], [])
    body = {"name": shared, "nodes": [own_nodes["a100-1"]], "isolation": "shared"}
    assert api.call("admin", "POST", "/pools", json=body).status_code == 201
    items = api.call("alice", "GET", "/pools").json()["items"]
    ours = [(i["name"], i["isolation"]) for i in items if i["name"].endswith(f"-{api.tail}")]
    assert ours == [(shared, "shared"), (tuning, "isolated")]
    # the default pool (the nodes in no pool) comes last; having no record, it isolates nothing
    assert (items[-1]["name"], items[-1]["isolation"]) == ("default", None)
