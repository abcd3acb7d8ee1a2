"""A node's details and labels through HTTP on the `cluster` fixture (the sandbox and the local
real control plane), on nodes of the test's own (`own_nodes`): set, read, conflict, overwrite
and delete a label; only g8s.host/ keys are written; labels in a batch; label queries. The
lists of every node of the cluster are test_nodes.py's (on the sandbox)."""

from __future__ import annotations

from .conftest import ClusterApi

KEY = "g8s.host/gpu-type"


def _label(api: ClusterApi, node: str, key: str = KEY) -> str | None:
    labels = api.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(key)
    return value


def test_node_details(cluster_api: ClusterApi, own_nodes: dict[str, str]) -> None:
    api, t4, cpu = cluster_api, own_nodes["t4-0"], own_nodes["cpu-0"]
    body = api.call("admin", "GET", f"/nodes/{t4}").json()
    assert body["resources"]["gpuTotal"] == 4
    assert body["resources"]["cpuTotal"] == "32"
    assert {"key": "runwhere.ai/gpu-type", "value": "T4-16G"} in body["labels"]
    assert body["gpuType"] == "T4-16G"
    assert body["vendor"] == "NVIDIA"  # by the nvidia.com/gpu it advertises, as get nodes
    listed = api.call("admin", "GET", "/nodes").json()["items"]
    assert {item["nodeName"]: item["vendor"] for item in listed}[cpu] is None
    missing = api.call("admin", "GET", "/nodes/nope")
    assert missing.status_code == 404
    assert missing.json() == {"error": "NodeNotFound", "message": "node nope not found"}


def test_set_read_conflict_overwrite_and_delete_a_label(
    cluster_api: ClusterApi, own_nodes: dict[str, str]
) -> None:
    api, node = cluster_api, own_nodes["a100-0"]
    made = api.call("admin", "POST", f"/nodes/{node}/labels", json={"key": KEY, "value": "a"})
    assert made.status_code == 200
    assert made.json() == {
        "nodeName": node,
        "label": {"key": KEY, "value": "a"},
        "message": f"node/{node} labeled",
    }
    got = api.call("admin", "GET", f"/nodes/{node}/labels/{KEY}").json()
    assert got == {"nodeName": node, "label": {"key": KEY, "value": "a"}}
    clash = api.call("admin", "POST", f"/nodes/{node}/labels", json={"key": KEY, "value": "b"})
    assert clash.status_code == 409 and clash.json()["error"] == "LabelConflict"
    # the REST API's own hint (the request body's `overwrite`), never the CLI's flag
    assert clash.json()["message"] == (
        f"node/{node}: {KEY} already has the value 'a' (conflict, 409); "
        'send "overwrite": true to replace it'
    )
    assert clash.json()["field"] == "overwrite"
    batch = {"nodeNames": [node], "key": KEY, "value": "b"}
    failed = api.call("admin", "POST", "/nodes/labels/batch", json=batch).json()["failed"]
    assert failed[0]["field"] == "overwrite" and "--overwrite" not in failed[0]["message"]
    assert _label(api, node) == "a"
    body = {"key": KEY, "value": "b", "overwrite": True}
    assert api.call("admin", "POST", f"/nodes/{node}/labels", json=body).status_code == 200
    assert _label(api, node) == "b"
    gone = api.call("admin", "DELETE", f"/nodes/{node}/labels/{KEY}")
    assert gone.json() == {
        "nodeName": node,
        "labelKey": KEY,
        "message": f"node/{node} unlabeled",
    }
    assert _label(api, node) is None
    again = api.call("admin", "DELETE", f"/nodes/{node}/labels/{KEY}")
    assert again.status_code == 404 and again.json()["error"] == "LabelNotFound"
    read = api.call("admin", "GET", f"/nodes/{node}/labels/{KEY}")
    assert read.status_code == 404 and read.json()["error"] == "LabelNotFound"


def test_only_g8s_host_keys_are_written(cluster_api: ClusterApi, own_nodes: dict[str, str]) -> None:
    api, node = cluster_api, own_nodes["a100-0"]
    body = {"key": "company.com/gpu-model", "value": "a100"}
    answer = api.call("admin", "POST", f"/nodes/{node}/labels", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"] == "InvalidLabel"
    assert "must start with g8s.host/" in answer.json()["message"]
    assert _label(api, node, "company.com/gpu-model") is None
    protected = api.call("admin", "DELETE", f"/nodes/{node}/labels/kubernetes.io/hostname")
    assert protected.status_code == 400
    assert _label(api, node, "kubernetes.io/hostname") == node


def test_batch_labels_each_node_and_reports_missing_ones(
    cluster_api: ClusterApi, own_nodes: dict[str, str]
) -> None:
    api, a100, t4 = cluster_api, own_nodes["a100-1"], own_nodes["t4-0"]
    body = {"nodeNames": [a100, "node-x", t4], "key": KEY, "value": "v1"}
    answer = api.call("admin", "POST", "/nodes/labels/batch", json=body)
    assert answer.status_code == 200
    assert answer.json() == {
        "success": [a100, t4],
        "failed": [
            {"nodeName": "node-x", "error": "NodeNotFound", "message": "node/node-x not found"}
        ],
        "message": "some nodes failed: see `failed`",
    }
    assert _label(api, t4) == "v1"


def test_a_label_query_finds_the_nodes_with_the_key(
    cluster_api: ClusterApi, own_nodes: dict[str, str]
) -> None:
    api, a100, t4 = cluster_api, own_nodes["a100-1"], own_nodes["t4-0"]
    key = f"g8s.host/query-{api.tail}"  # a key of the test's own: the query is the cluster's
    body = {"nodeNames": [a100, t4], "key": key, "value": "v1"}
    assert api.call("admin", "POST", "/nodes/labels/batch", json=body).status_code == 200
    by_key = api.call("admin", "GET", f"/nodes/labels?key={key}").json()
    assert by_key == {
        "total": 2,
        "items": [
            {"nodeName": a100, "labelKey": key, "labelValue": "v1"},
            {"nodeName": t4, "labelKey": key, "labelValue": "v1"},
        ],
    }
    missing_key = api.call("admin", "GET", "/nodes/labels")
    assert missing_key.status_code == 400 and missing_key.json()["field"] == "query.key"
