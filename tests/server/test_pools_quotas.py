"""Pools through HTTP against the sandbox (quotas: test_quotas.py). On the sandbox only: a pool
labels and taints the cluster's nodes and GET /pools lists every pool and node of the cluster,
which on the shared control plane other tests change (pools on the real control plane, on
nodes of the test's own: tests/apply/test_pool_isolation.py)."""

from __future__ import annotations

import json
from typing import Any

from gpuctl import constants as c

from .conftest import Api, inference


def _pool_label(api: Api, node: str) -> str | None:
    labels = api.env.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(c.Labels.POOL)
    return value


def test_create_read_and_delete_a_pool(api: Api) -> None:
    body = {
        "name": "experiment",
        "description": "tuning",
        "nodes": ["gpu-a100-0", "gpu-a100-1"],
        "gpuType": ["A100-80G"],
        "maxGpus": 8,
    }
    made = api.call("admin", "POST", "/pools", json=body)
    assert made.status_code == 201, made.text
    assert made.json()["status"] == "created"
    assert _pool_label(api, "gpu-a100-0") == "experiment"
    job = inference("p1", replicas=1, gpu=2, pool="experiment")
    assert api.call("admin", "POST", "/jobs", json={"yamlContent": job}).status_code == 201
    items = api.call("admin", "GET", "/pools").json()["items"]
    assert items[-1]["name"] == c.DEFAULT_POOL  # the nodes in no pool come last
    items = items[:-1]
    assert items == [
        {
            "name": "experiment",
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
    from tests.support.sandbox import wait_for

    wait_for(
        lambda: api.call("admin", "GET", "/pools").json()["items"][0]["gpuCapUsed"] == 2,
        what="the job's pod counted against the cap",
    )
    beyond = inference("p2", replicas=1, gpu=7, pool="experiment")
    refused = api.call("admin", "POST", "/jobs", json={"yamlContent": beyond})
    assert refused.status_code == 422, refused.text
    assert refused.json() == {
        "error": "Refused",
        "message": "nothing was created: deployment.apps/p2: pool experiment: 2 of 8 GPUs "
        "used, this job asks 7 (cap 8)",
    }

    detail = wait_for(
        lambda: (d := api.call("admin", "GET", "/pools/experiment").json())["jobs"] and d,
        what="the job on the pool",
    )
    assert detail["nodes"] == ["gpu-a100-0", "gpu-a100-1"]
    assert detail["gpuType"] == {"A100-80G": 16}
    assert detail["jobs"] == [
        {
            "jobId": "default.p1",
            "name": "p1",
            "namespace": "default",
            "gpu": 2,
            "nodes": detail["jobs"][0]["nodes"],
        }
    ]
    again = api.call("admin", "POST", "/pools", json=body | {"name": "other"})
    assert again.status_code == 409 and again.json()["error"] == "PoolConflict"
    gone = api.call("admin", "DELETE", "/pools/experiment")
    assert gone.status_code == 200, gone.text
    assert _pool_label(api, "gpu-a100-0") is None
    assert api.call("admin", "GET", "/pools/experiment").json()["error"] == "PoolNotFound"
    assert api.call("admin", "DELETE", "/pools/experiment").status_code == 404


def _gpu_type_label(api: Api, node: str) -> str | None:
    labels = api.env.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(c.Labels.GPU_TYPE)
    return value


def test_gpu_type_is_the_pools_allowed_types_and_never_relabels_a_node(api: Api) -> None:
    body = {"name": "t4-only", "nodes": ["gpu-t4-0", "gpu-a100-0"], "gpuType": ["t4"]}
    refused = api.call("admin", "POST", "/pools", json=body)
    assert refused.status_code == 409 and refused.json()["error"] == "PoolConflict"
    assert refused.json()["message"] == (
        "nothing was changed: node gpu-t4-0 has GPU type T4-16G, but pool t4-only allows only "
        "t4 (compared without letter case); node gpu-a100-0 has GPU type A100-80G, but pool "
        "t4-only allows only t4 (compared without letter case)"
    )
    assert _gpu_type_label(api, "gpu-a100-0") == "A100-80G"
    assert _pool_label(api, "gpu-a100-0") is None
    assert api.env.cluster.find("ConfigMap", "pool-t4-only", c.SYSTEM_NAMESPACE) is None
    body = {"name": "big", "nodes": ["gpu-a100-0"], "gpuType": ["a100-80g", "h100"]}
    made = api.call("admin", "POST", "/pools", json=body)
    assert made.status_code == 201, made.text
    assert _gpu_type_label(api, "gpu-a100-0") == "A100-80G"  # the hardware label is untouched
    item, default = api.call("admin", "GET", "/pools").json()["items"]
    assert default["name"] == c.DEFAULT_POOL
    assert item["allowedGpuTypes"] == ["a100-80g", "h100"]
    assert api.call("admin", "DELETE", "/pools/big").status_code == 200
    assert _gpu_type_label(api, "gpu-a100-0") == "A100-80G"  # a label it did not write stays
    assert _pool_label(api, "gpu-a100-0") is None


def test_a_pool_with_a_missing_node_writes_nothing(api: Api) -> None:
    body = {"name": "p", "nodes": ["gpu-a100-0", "no-such-node"]}
    answer = api.call("admin", "POST", "/pools", json=body)
    assert answer.status_code == 409
    assert "node no-such-node (pool p, request body) does not exist" in answer.json()["message"]
    assert _pool_label(api, "gpu-a100-0") is None
    assert api.env.cluster.find("ConfigMap", "pool-p", c.SYSTEM_NAMESPACE) is None
    bad = api.call("admin", "POST", "/pools", json={"name": "Not_A_Name"})
    assert bad.status_code == 400 and bad.json()["field"] == "metadata.name"


def test_pools_and_nodes_agree_after_a_node_moves(api: Api) -> None:
    for name, nodes in (("first", ["gpu-a100-0", "gpu-a100-1"]), ("second", ["gpu-t4-0"])):
        made = api.call("admin", "POST", "/pools", json={"name": name, "nodes": nodes})
        assert made.status_code == 201, made.text
    moved = api.env.gpuctl("add", "node", "gpu-a100-1", "--pool", "second", "--overwrite")
    assert moved.stdout == "node/gpu-a100-1 moved from pool first to pool second\n"
    pools = {p["name"]: p["nodeCount"] for p in api.call("admin", "GET", "/pools").json()["items"]}
    assert pools == {"first": 1, "second": 2, c.DEFAULT_POOL: 1}
    detail = {p: api.call("admin", "GET", f"/pools/{p}").json()["nodes"] for p in pools}
    assert detail == {
        "first": ["gpu-a100-0"],
        "second": ["gpu-a100-1", "gpu-t4-0"],
        c.DEFAULT_POOL: ["cpu-0"],
    }
    nodes = api.call("admin", "GET", "/nodes").json()["items"]
    bound = {item["nodeName"]: item["boundPools"] for item in nodes if item["boundPools"]}
    assert bound == {"gpu-a100-0": ["first"], "gpu-a100-1": ["second"], "gpu-t4-0": ["second"]}
    node = api.call("admin", "GET", "/nodes/gpu-a100-1").json()
    assert node["boundPools"] == ["second"]


def test_a_bad_cap_or_isolation_is_refused_naming_the_field(api: Api) -> None:
    base = {"name": "bad", "nodes": ["gpu-a100-0"]}
    for field, value in (("maxGpus", -1), ("maxGpus", "eight"), ("isolation", "open")):
        answer = api.call("admin", "POST", "/pools", json=base | {field: value})
        assert answer.status_code == 400, answer.text
        assert answer.json()["field"] == field
    assert api.call("alice", "POST", "/pools", json=base | {"maxGpus": 4}).status_code == 403
    assert _pool_label(api, "gpu-a100-0") is None
    shared = api.call("admin", "POST", "/pools", json=base | {"isolation": "shared"})
    assert shared.status_code == 201, shared.text
    assert _pool_label(api, "gpu-a100-0") == "bad"
    assert not (api.env.cluster.get("Node", "gpu-a100-0").get("spec") or {}).get("taints")


def _node_state(api: Api, node: str) -> tuple[dict[str, str], list[Any]]:
    live = api.env.cluster.get("Node", node)
    return live["metadata"].get("labels") or {}, (live.get("spec") or {}).get("taints") or []


def _record_data(api: Api, pool: str) -> dict[str, str]:
    record = api.env.cluster.get("ConfigMap", f"pool-{pool}", c.SYSTEM_NAMESPACE)
    data: dict[str, str] = record.get("data") or {}
    return data


def test_an_admin_changes_a_pools_cap_and_nothing_else(api: Api) -> None:
    body = {"name": "capped", "nodes": ["gpu-a100-0"], "gpuType": ["A100-80G"], "maxGpus": 8}
    assert api.call("admin", "POST", "/pools", json=body).status_code == 201
    added = api.env.gpuctl("add", "node", "gpu-a100-1", "--pool", "capped")
    assert added.stdout == "node/gpu-a100-1 added to pool capped\n"  # recorded with its type
    nodes = {name: _node_state(api, name) for name in ("gpu-a100-0", "gpu-a100-1")}
    before = _record_data(api, "capped")
    assert json.loads(before["nodes"]) == {"gpu-a100-0": None, "gpu-a100-1": "A100-80G"}

    raised = api.call("admin", "PATCH", "/pools/capped", json={"maxGpus": 12})
    assert raised.status_code == 200, raised.text
    answer = raised.json()
    assert (answer["name"], answer["gpuCap"], answer["nodes"]) == (
        "capped",
        12,
        ["gpu-a100-0", "gpu-a100-1"],
    )
    assert "configmap/pool-capped configured" in answer["message"]
    assert answer | {"message": ""} == api.call("admin", "GET", "/pools/capped").json() | {
        "message": ""
    }
    assert _record_data(api, "capped") == before | {c.POOL_MAX_GPUS_KEY: "12"}
    assert {name: _node_state(api, name) for name in nodes} == nodes
    item = api.call("admin", "GET", "/pools").json()["items"][0]
    assert (item["allowedGpuTypes"], item["isolation"], item["gpuCap"]) == (
        ["A100-80G"],
        "isolated",
        12,
    )

    removed = api.call("admin", "PATCH", "/pools/capped", json={"maxGpus": None})
    assert removed.status_code == 200, removed.text
    assert removed.json()["gpuCap"] is None
    assert c.POOL_MAX_GPUS_KEY not in _record_data(api, "capped")
    assert {name: _node_state(api, name) for name in nodes} == nodes


def test_a_cap_change_is_refused_to_a_user_a_missing_pool_and_a_bad_body(api: Api) -> None:
    body = {"name": "held", "nodes": ["gpu-a100-0"], "maxGpus": 8}
    assert api.call("admin", "POST", "/pools", json=body).status_code == 201
    refused = api.call("alice", "PATCH", "/pools/held", json={"maxGpus": 100})
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
        answer = api.call("admin", "PATCH", "/pools/held", json=bad)
        assert answer.status_code == 400, (bad, answer.text)
        assert answer.json()["field"] == field, (bad, answer.text)
    huge = b'{"maxGpus": 4, "pad": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    too_large = api.call(
        "admin", "PATCH", "/pools/held", content=huge, headers={"Content-Type": "application/json"}
    )
    assert too_large.status_code == 413, too_large.text
    assert too_large.json()["error"] == "TooLarge"
    assert _record_data(api, "held")[c.POOL_MAX_GPUS_KEY] == "8"


class _AddsANodeFirst:
    """The server's host-path policy, but its first check first adds `node` to `pool` from the
    CLI: `add node` landing after the cap change read the pool's record, before it writes."""

    def __init__(self, api: Api, pool: str, node: str) -> None:
        app: Any = api.client.app  # typed as a bare ASGI callable
        self.state = app.state
        self.policy, self.api, self.pool, self.node = self.state.policy, api, pool, node
        self.added = False

    def admit(self, principal: Any, manifests: Any) -> None:
        if not self.added:
            self.added = True
            added = self.api.env.gpuctl("add", "node", self.node, "--pool", self.pool)
            assert added.returncode == 0, added.stderr
        self.policy.admit(principal, manifests)


def test_a_cap_change_racing_add_node_keeps_the_added_node(api: Api) -> None:
    body = {"name": "racing", "nodes": ["gpu-a100-0"], "maxGpus": 8}
    assert api.call("admin", "POST", "/pools", json=body).status_code == 201
    racer = _AddsANodeFirst(api, "racing", "gpu-a100-1")
    racer.state.policy = racer
    raised = api.call("admin", "PATCH", "/pools/racing", json={"maxGpus": 12})
    assert raised.status_code == 200, raised.text
    assert racer.added
    assert raised.json()["nodes"] == ["gpu-a100-0", "gpu-a100-1"]
    data = _record_data(api, "racing")
    assert sorted(json.loads(data["nodes"])) == ["gpu-a100-0", "gpu-a100-1"]
    assert data[c.POOL_MAX_GPUS_KEY] == "12"
    assert _pool_label(api, "gpu-a100-1") == "racing"
