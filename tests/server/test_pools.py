"""Pools through HTTP on the `cluster` fixture (the sandbox and the local real control plane),
of nodes of the test's own (`own_nodes`) and with names of its own: GET /pools lists every pool
of the cluster, which on the shared control plane holds other tests' pools too, so the lists
are read for the test's pools and nodes. Quotas: test_quotas.py."""

from __future__ import annotations

import json
from typing import Any

from gpuctl import constants as c
from tests.support.sandbox import wait_for

from .conftest import ClusterApi, inference

Nodes = dict[str, str]


def _pools(api: ClusterApi) -> list[dict[str, Any]]:
    """GET /pools: the test's own pools, then the default pool (the nodes in no pool come
    last)."""
    items: list[dict[str, Any]] = api.call("admin", "GET", "/pools").json()["items"]
    assert items[-1]["name"] == c.DEFAULT_POOL
    return [item for item in items if item["name"].endswith(f"-{api.tail}")] + items[-1:]


def _pool_label(api: ClusterApi, node: str) -> str | None:
    labels = api.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(c.Labels.POOL)
    return value


def _gpu_type_label(api: ClusterApi, node: str) -> str | None:
    labels = api.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(c.Labels.GPU_TYPE)
    return value


def test_create_read_and_delete_a_pool(cluster_api: ClusterApi, own_nodes: Nodes) -> None:
    api, experiment = cluster_api, cluster_api.pool("experiment")
    a100s = [own_nodes["a100-0"], own_nodes["a100-1"]]
    body = {
        "name": experiment,
        "description": "tuning",
        "nodes": a100s,
        "gpuType": ["A100-80G"],
        "maxGpus": 8,
    }
    made = api.call("admin", "POST", "/pools", json=body)
    assert made.status_code == 201, made.text
    assert made.json()["status"] == "created"
    assert _pool_label(api, a100s[0]) == experiment
    api.open_to_pool(a100s)
    job = inference("p1", replicas=1, gpu=2, pool=experiment)
    assert api.call("admin", "POST", "/jobs", json={"yamlContent": job}).status_code == 201
    items = _pools(api)[:-1]
    assert items == [
        {
            "name": experiment,
            "description": "tuning",
            "gpuTotal": 16,
            "gpuUsed": items[0]["gpuUsed"],
            "gpuFree": 16 - items[0]["gpuUsed"],
            "gpuType": ["A100-80G"],
            "allowedGpuTypes": ["A100-80G"],
            "nodeCount": 2,
            "gpuCap": 8,
            "gpuCapUsed": items[0]["gpuCapUsed"],
            "status": "active",
            "isolation": "isolated",
        }
    ]
    wait_for(
        lambda: _pools(api)[0]["gpuCapUsed"] == 2,
        timeout=60,
        what="the job's pod counted against the cap",
    )
    beyond = inference("p2", replicas=1, gpu=7, pool=experiment)
    refused = api.call("admin", "POST", "/jobs", json={"yamlContent": beyond})
    assert refused.status_code == 422, refused.text
    assert refused.json() == {
        "error": "Refused",
        "message": f"nothing was created: deployment.apps/p2: pool {experiment}: 2 of 8 GPUs "
        "used, this job asks 7 (cap 8)",
    }

    detail = wait_for(
        lambda: (d := api.call("admin", "GET", f"/pools/{experiment}").json())["jobs"] and d,
        timeout=60,
        what="the job on the pool",
    )
    assert detail["nodes"] == a100s
    assert detail["gpuType"] == {"A100-80G": 16}
    assert detail["jobs"] == [
        {
            "jobId": api.job_id("p1"),
            "name": "p1",
            "namespace": api.namespace,
            "gpu": 2,
            "nodes": detail["jobs"][0]["nodes"],
        }
    ]
    again = api.call("admin", "POST", "/pools", json=body | {"name": api.pool("other")})
    assert again.status_code == 409 and again.json()["error"] == "PoolConflict"
    gone = api.call("admin", "DELETE", f"/pools/{experiment}")
    assert gone.status_code == 200, gone.text
    assert _pool_label(api, a100s[0]) is None
    assert api.call("admin", "GET", f"/pools/{experiment}").json()["error"] == "PoolNotFound"
    assert api.call("admin", "DELETE", f"/pools/{experiment}").status_code == 404


def test_gpu_type_is_the_pools_allowed_types_and_never_relabels_a_node(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, t4, a100 = cluster_api, own_nodes["t4-0"], own_nodes["a100-0"]
    t4_only, big = api.pool("t4-only"), api.pool("big")
    body = {"name": t4_only, "nodes": [t4, a100], "gpuType": ["t4"]}
    refused = api.call("admin", "POST", "/pools", json=body)
    assert refused.status_code == 409 and refused.json()["error"] == "PoolConflict"
    assert refused.json()["message"] == (
        f"nothing was changed: node {t4} has GPU type T4-16G, but pool {t4_only} allows only "
        f"t4 (compared without letter case); node {a100} has GPU type A100-80G, but pool "
        f"{t4_only} allows only t4 (compared without letter case)"
    )
    assert _gpu_type_label(api, a100) == "A100-80G"
    assert _pool_label(api, a100) is None
    assert api.cluster.find("ConfigMap", f"pool-{t4_only}", c.SYSTEM_NAMESPACE) is None
    body = {"name": big, "nodes": [a100], "gpuType": ["a100-80g", "h100"]}
    made = api.call("admin", "POST", "/pools", json=body)
    assert made.status_code == 201, made.text
    assert _gpu_type_label(api, a100) == "A100-80G"  # the hardware label is untouched
    item, default = _pools(api)
    assert default["name"] == c.DEFAULT_POOL
    assert item["allowedGpuTypes"] == ["a100-80g", "h100"]
    assert api.call("admin", "DELETE", f"/pools/{big}").status_code == 200
    assert _gpu_type_label(api, a100) == "A100-80G"  # a label it did not write stays
    assert _pool_label(api, a100) is None


def test_a_pool_with_a_missing_node_writes_nothing(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, a100, pool = cluster_api, own_nodes["a100-0"], cluster_api.pool("p")
    answer = api.call("admin", "POST", "/pools", json={"name": pool, "nodes": [a100, "no-such"]})
    assert answer.status_code == 409
    assert f"node no-such (pool {pool}, request body) does not exist" in answer.json()["message"]
    assert _pool_label(api, a100) is None
    assert api.cluster.find("ConfigMap", f"pool-{pool}", c.SYSTEM_NAMESPACE) is None
    bad = api.call("admin", "POST", "/pools", json={"name": "Not_A_Name"})
    assert bad.status_code == 400 and bad.json()["field"] == "metadata.name"


def test_pools_and_nodes_agree_after_a_node_moves(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, first, second = cluster_api, cluster_api.pool("first"), cluster_api.pool("second")
    a100_0, a100_1, t4 = own_nodes["a100-0"], own_nodes["a100-1"], own_nodes["t4-0"]
    for name, nodes in ((first, [a100_0, a100_1]), (second, [t4])):
        made = api.call("admin", "POST", "/pools", json={"name": name, "nodes": nodes})
        assert made.status_code == 201, made.text
    moved = api.gpuctl("add", "node", a100_1, "--pool", second, "--overwrite", namespaced=False)
    assert moved.stdout == f"node/{a100_1} moved from pool {first} to pool {second}\n"
    pools = {p["name"]: p["nodeCount"] for p in _pools(api)}
    assert (pools[first], pools[second]) == (1, 2)
    detail = {p: api.call("admin", "GET", f"/pools/{p}").json()["nodes"] for p in pools}
    assert (detail[first], detail[second]) == ([a100_0], sorted([a100_1, t4]))
    ours = set(own_nodes.values())
    assert ours & set(detail[c.DEFAULT_POOL]) == {own_nodes["cpu-0"]}
    nodes = api.call("admin", "GET", "/nodes").json()["items"]
    bound = {
        item["nodeName"]: item["boundPools"]
        for item in nodes
        if item["boundPools"] and item["nodeName"] in ours
    }
    assert bound == {a100_0: [first], a100_1: [second], t4: [second]}
    node = api.call("admin", "GET", f"/nodes/{a100_1}").json()
    assert node["boundPools"] == [second]


def test_a_bad_cap_or_isolation_is_refused_naming_the_field(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, a100, bad_pool = cluster_api, own_nodes["a100-0"], cluster_api.pool("bad")
    base = {"name": bad_pool, "nodes": [a100]}
    for field, value in (("maxGpus", -1), ("maxGpus", "eight"), ("isolation", "open")):
        answer = api.call("admin", "POST", "/pools", json=base | {field: value})
        assert answer.status_code == 400, answer.text
        assert answer.json()["field"] == field
    assert api.call("alice", "POST", "/pools", json=base | {"maxGpus": 4}).status_code == 403
    assert _pool_label(api, a100) is None
    shared = api.call("admin", "POST", "/pools", json=base | {"isolation": "shared"})
    assert shared.status_code == 201, shared.text
    assert _pool_label(api, a100) == bad_pool
    taints = api.cluster.get("Node", a100)["spec"].get("taints") or []
    assert [t for t in taints if t["key"] == c.POOL_TAINT_KEY] == []  # no pool taint


def _node_state(api: ClusterApi, node: str) -> tuple[dict[str, str], list[Any]]:
    live = api.cluster.get("Node", node)
    return live["metadata"].get("labels") or {}, (live.get("spec") or {}).get("taints") or []


def _record_data(api: ClusterApi, pool: str) -> dict[str, str]:
    record = api.cluster.get("ConfigMap", f"pool-{pool}", c.SYSTEM_NAMESPACE)
    data: dict[str, str] = record.get("data") or {}
    return data


def test_an_admin_changes_a_pools_cap_and_nothing_else(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, capped = cluster_api, cluster_api.pool("capped")
    a100_0, a100_1 = own_nodes["a100-0"], own_nodes["a100-1"]
    body = {"name": capped, "nodes": [a100_0], "gpuType": ["A100-80G"], "maxGpus": 8}
    assert api.call("admin", "POST", "/pools", json=body).status_code == 201
    added = api.gpuctl("add", "node", a100_1, "--pool", capped, namespaced=False)
    assert added.stdout == f"node/{a100_1} added to pool {capped}\n"  # recorded with its type
    nodes = {name: _node_state(api, name) for name in (a100_0, a100_1)}
    before = _record_data(api, capped)
    assert json.loads(before["nodes"]) == {a100_0: None, a100_1: "A100-80G"}

    raised = api.call("admin", "PATCH", f"/pools/{capped}", json={"maxGpus": 12})
    assert raised.status_code == 200, raised.text
    answer = raised.json()
    assert (answer["name"], answer["gpuCap"], answer["nodes"]) == (capped, 12, [a100_0, a100_1])
    assert f"configmap/pool-{capped} configured" in answer["message"]
    assert answer | {"message": ""} == api.call("admin", "GET", f"/pools/{capped}").json() | {
        "message": ""
    }
    assert _record_data(api, capped) == before | {c.POOL_MAX_GPUS_KEY: "12"}
    assert {name: _node_state(api, name) for name in nodes} == nodes
    item = _pools(api)[0]
    assert (item["allowedGpuTypes"], item["isolation"], item["gpuCap"]) == (
        ["A100-80G"],
        "isolated",
        12,
    )

    removed = api.call("admin", "PATCH", f"/pools/{capped}", json={"maxGpus": None})
    assert removed.status_code == 200, removed.text
    assert removed.json()["gpuCap"] is None
    assert c.POOL_MAX_GPUS_KEY not in _record_data(api, capped)
    assert {name: _node_state(api, name) for name in nodes} == nodes


def test_a_cap_change_is_refused_to_a_user_a_missing_pool_and_a_bad_body(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, held = cluster_api, cluster_api.pool("held")
    body = {"name": held, "nodes": [own_nodes["a100-0"]], "maxGpus": 8}
    assert api.call("admin", "POST", "/pools", json=body).status_code == 201
    refused = api.call("alice", "PATCH", f"/pools/{held}", json={"maxGpus": 100})
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == "Forbidden"
    missing = api.call("admin", "PATCH", "/pools/no-such-pool", json={"maxGpus": 1})
    assert missing.status_code == 404, missing.text
    assert missing.json()["error"] == "PoolNotFound"
    for bad, field in (
        ({"maxGpus": -1}, "maxGpus"),
        ({"maxGpus": "12"}, "maxGpus"),
        ({"maxGpus": 1.5}, "maxGpus"),
        ({"maxGpus": True}, "maxGpus"),
        ({"maxGpus": 10**30}, "maxGpus"),
        ({}, "maxGpus"),
        ({"maxGpus": 4, "gpuType": ["T4"]}, "gpuType"),
    ):
        answer = api.call("admin", "PATCH", f"/pools/{held}", json=bad)
        assert answer.status_code == 400, (bad, answer.text)
        assert answer.json()["field"] == field, (bad, answer.text)
    huge = b'{"maxGpus": 4, "pad": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    as_json = {"Content-Type": "application/json"}
    too_large = api.call("admin", "PATCH", f"/pools/{held}", content=huge, headers=as_json)
    assert too_large.status_code == 413, too_large.text
    assert too_large.json()["error"] == "TooLarge"
    assert _record_data(api, held)[c.POOL_MAX_GPUS_KEY] == "8"


class _AddsANodeFirst:
    """The server's host-path policy, but its first check first adds `node` to `pool` from the
    CLI: `add node` landing after the cap change read the pool's record, before it writes."""

    def __init__(self, api: ClusterApi, pool: str, node: str) -> None:
        app: Any = api.client.app  # typed as a bare ASGI callable
        self.state = app.state
        self.policy, self.api, self.pool, self.node = self.state.policy, api, pool, node
        self.added = False

    def admit(self, principal: Any, manifests: Any) -> None:
        if not self.added:
            self.added = True
            added = self.api.gpuctl("add", "node", self.node, "--pool", self.pool, namespaced=False)
            assert added.returncode == 0, added.stderr
        self.policy.admit(principal, manifests)


def test_a_cap_change_racing_add_node_keeps_the_added_node(
    cluster_api: ClusterApi, own_nodes: Nodes
) -> None:
    api, racing = cluster_api, cluster_api.pool("racing")
    a100_0, a100_1 = own_nodes["a100-0"], own_nodes["a100-1"]
    body = {"name": racing, "nodes": [a100_0], "maxGpus": 8}
    assert api.call("admin", "POST", "/pools", json=body).status_code == 201
    racer = _AddsANodeFirst(api, racing, a100_1)
    racer.state.policy = racer
    raised = api.call("admin", "PATCH", f"/pools/{racing}", json={"maxGpus": 12})
    assert raised.status_code == 200, raised.text
    assert racer.added
    assert raised.json()["nodes"] == [a100_0, a100_1]
    data = _record_data(api, racing)
    assert sorted(json.loads(data["nodes"])) == [a100_0, a100_1]
    assert data[c.POOL_MAX_GPUS_KEY] == "12"
    assert _pool_label(api, a100_1) == racing
