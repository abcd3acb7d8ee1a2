"""Nodes and labels through HTTP against the sandbox."""

from __future__ import annotations

import yaml

from tests.support.sandbox import wait_for

from .conftest import Api, inference

KEY = "g8s.host/gpu-type"


def _label(api: Api, node: str, key: str = KEY) -> str | None:
    labels = api.env.cluster.get("Node", node)["metadata"].get("labels") or {}
    value: str | None = labels.get(key)
    return value


def test_list_nodes_with_gpus_filters_pages_and_yaml(api: Api) -> None:
    api.call("admin", "POST", "/jobs", json={"yamlContent": inference("t", replicas=1, gpu=2)})
    body = wait_for(
        lambda: (
            (b := api.call("admin", "GET", "/nodes").json())
            and sum(item["gpuUsed"] for item in b["items"]) == 2
            and b
        ),
        what="the job's pod on a node",
    )
    assert body["total"] == 4
    a100 = body["items"][1]
    assert set(a100) == {
        "nodeName",
        "status",
        "gpuTotal",
        "gpuUsed",
        "gpuFree",
        "boundPools",
        "cpu",
        "memory",
        "gpuType",
        "vendor",
        "createdAt",
    }
    assert (a100["nodeName"], a100["status"], a100["gpuTotal"]) == ("gpu-a100-0", "active", 8)
    t4 = api.call("admin", "GET", "/nodes?gpuType=T4-16G").json()
    assert [item["nodeName"] for item in t4["items"]] == ["gpu-t4-0"]
    page = api.call("admin", "GET", "/nodes?page=2&pageSize=3").json()
    assert [item["nodeName"] for item in page["items"]] == ["gpu-t4-0"]
    assert api.call("admin", "GET", "/nodes?status=faulty").json()["total"] == 0
    as_yaml = api.call("admin", "GET", "/nodes", headers={"Accept": "application/yaml"})
    assert as_yaml.headers["content-type"].startswith("application/yaml")
    assert yaml.safe_load(as_yaml.text) == api.call("admin", "GET", "/nodes").json()


def test_the_accept_parameter_asks_for_yaml_as_the_header_does(api: Api) -> None:
    as_json = api.call("admin", "GET", "/nodes").json()
    by_query = api.call("admin", "GET", "/nodes?accept=application/yaml")
    assert by_query.headers["content-type"].startswith("application/yaml")
    assert yaml.safe_load(by_query.text) == as_json
    node = api.call("admin", "GET", "/nodes/cpu-0?accept=application/yaml")
    assert yaml.safe_load(node.text) == api.call("admin", "GET", "/nodes/cpu-0").json()
    # the parameter wins over the header, either way
    header = {"Accept": "application/yaml"}
    chosen = api.call("admin", "GET", "/nodes?accept=application/json", headers=header)
    assert chosen.json() == as_json
    wrong = api.call("admin", "GET", "/nodes?accept=text/html")
    assert (wrong.status_code, wrong.json()["field"]) == (400, "query.accept")


def test_cordoned_node_is_maintaining(api: Api) -> None:
    api.env.cluster.patch("Node", "cpu-0", None, {"spec": {"unschedulable": True}})
    body = api.call("admin", "GET", "/nodes?status=maintaining").json()
    assert [item["nodeName"] for item in body["items"]] == ["cpu-0"]


def test_filters_by_status_in_either_vocabulary_and_gpu_type_in_any_case(api: Api) -> None:
    api.env.cluster.patch("Node", "cpu-0", None, {"spec": {"unschedulable": True}})
    condition = {"type": "Ready", "status": "False", "reason": "KubeletNotReady"}
    api.env.cluster.patch(
        "Node", "gpu-t4-0", None, {"status": {"conditions": [condition]}}, subresource="status"
    )

    def names(query: str) -> list[str]:
        answer = api.call("admin", "GET", f"/nodes?{query}")
        assert answer.status_code == 200, answer.text
        return [item["nodeName"] for item in answer.json()["items"]]

    assert names("status=NotReady") == names("status=faulty") == ["gpu-t4-0"]
    assert names("status=Ready") == ["cpu-0", "gpu-a100-0", "gpu-a100-1"]
    assert names("gpuType=a100-80g") == ["gpu-a100-0", "gpu-a100-1"]
    assert names("gpuType=a100-80g&status=active") == ["gpu-a100-0", "gpu-a100-1"]
    assert names("gpuType=t4-16g&status=Ready") == []


def test_node_details(api: Api) -> None:
    body = api.call("admin", "GET", "/nodes/gpu-t4-0").json()
    assert body["resources"]["gpuTotal"] == 4
    assert body["resources"]["cpuTotal"] == "32"
    assert {"key": "runwhere.ai/gpu-type", "value": "T4-16G"} in body["labels"]
    assert body["gpuType"] == "T4-16G"
    assert body["vendor"] == "NVIDIA"  # by the nvidia.com/gpu it advertises, as get nodes
    listed = api.call("admin", "GET", "/nodes").json()["items"]
    assert {item["nodeName"]: item["vendor"] for item in listed}["cpu-0"] is None
    missing = api.call("admin", "GET", "/nodes/nope")
    assert missing.status_code == 404
    assert missing.json() == {"error": "NodeNotFound", "message": "node nope not found"}


def test_set_read_conflict_overwrite_and_delete_a_label(api: Api) -> None:
    made = api.call("admin", "POST", "/nodes/gpu-a100-0/labels", json={"key": KEY, "value": "a"})
    assert made.status_code == 200
    assert made.json() == {
        "nodeName": "gpu-a100-0",
        "label": {"key": KEY, "value": "a"},
        "message": "node/gpu-a100-0 labeled",
    }
    got = api.call("admin", "GET", f"/nodes/gpu-a100-0/labels/{KEY}").json()
    assert got == {"nodeName": "gpu-a100-0", "label": {"key": KEY, "value": "a"}}
    clash = api.call("admin", "POST", "/nodes/gpu-a100-0/labels", json={"key": KEY, "value": "b"})
    assert clash.status_code == 409 and clash.json()["error"] == "LabelConflict"
    # the REST API's own hint (the request body's `overwrite`), never the CLI's flag
    assert clash.json()["message"] == (
        f"node/gpu-a100-0: {KEY} already has the value 'a' (conflict, 409); "
        'send "overwrite": true to replace it'
    )
    assert clash.json()["field"] == "overwrite"
    batch = {"nodeNames": ["gpu-a100-0"], "key": KEY, "value": "b"}
    failed = api.call("admin", "POST", "/nodes/labels/batch", json=batch).json()["failed"]
    assert failed[0]["field"] == "overwrite" and "--overwrite" not in failed[0]["message"]
    assert _label(api, "gpu-a100-0") == "a"
    body = {"key": KEY, "value": "b", "overwrite": True}
    assert api.call("admin", "POST", "/nodes/gpu-a100-0/labels", json=body).status_code == 200
    assert _label(api, "gpu-a100-0") == "b"
    gone = api.call("admin", "DELETE", f"/nodes/gpu-a100-0/labels/{KEY}")
    assert gone.json() == {
        "nodeName": "gpu-a100-0",
        "labelKey": KEY,
        "message": "node/gpu-a100-0 unlabeled",
    }
    assert _label(api, "gpu-a100-0") is None
    again = api.call("admin", "DELETE", f"/nodes/gpu-a100-0/labels/{KEY}")
    assert again.status_code == 404 and again.json()["error"] == "LabelNotFound"
    read = api.call("admin", "GET", f"/nodes/gpu-a100-0/labels/{KEY}")
    assert read.status_code == 404 and read.json()["error"] == "LabelNotFound"


def test_only_g8s_host_keys_are_written(api: Api) -> None:
    body = {"key": "company.com/gpu-model", "value": "a100"}
    answer = api.call("admin", "POST", "/nodes/gpu-a100-0/labels", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"] == "InvalidLabel"
    assert "must start with g8s.host/" in answer.json()["message"]
    assert _label(api, "gpu-a100-0", "company.com/gpu-model") is None
    protected = api.call("admin", "DELETE", "/nodes/gpu-a100-0/labels/kubernetes.io/hostname")
    assert protected.status_code == 400
    assert _label(api, "gpu-a100-0", "kubernetes.io/hostname") == "gpu-a100-0"


def test_batch_labels_each_node_and_reports_missing_ones(api: Api) -> None:
    body = {"nodeNames": ["gpu-a100-1", "node-x", "gpu-t4-0"], "key": KEY, "value": "v1"}
    answer = api.call("admin", "POST", "/nodes/labels/batch", json=body)
    assert answer.status_code == 200
    assert answer.json() == {
        "success": ["gpu-a100-1", "gpu-t4-0"],
        "failed": [
            {"nodeName": "node-x", "error": "NodeNotFound", "message": "node/node-x not found"}
        ],
        "message": "some nodes failed: see `failed`",
    }
    assert _label(api, "gpu-t4-0") == "v1"


def test_label_queries(api: Api) -> None:
    body = {"nodeNames": ["gpu-a100-1", "gpu-t4-0"], "key": KEY, "value": "v1"}
    api.call("admin", "POST", "/nodes/labels/batch", json=body)
    by_key = api.call("admin", "GET", f"/nodes/labels?key={KEY}").json()
    assert by_key == {
        "total": 2,
        "items": [
            {"nodeName": "gpu-a100-1", "labelKey": KEY, "labelValue": "v1"},
            {"nodeName": "gpu-t4-0", "labelKey": KEY, "labelValue": "v1"},
        ],
    }
    everything = api.call("admin", "GET", "/nodes/labels/all?pageSize=2&page=2").json()
    assert everything["total"] == 4
    assert everything["items"][1] == {
        "nodeName": "gpu-t4-0",
        "gpuLabels": [
            {"key": KEY, "value": "v1"},
            {"key": "runwhere.ai/gpu-type", "value": "T4-16G"},
        ],
        "boundPools": [],
    }
    missing_key = api.call("admin", "GET", "/nodes/labels")
    assert missing_key.status_code == 400 and missing_key.json()["field"] == "query.key"
