"""Lists of every node of the cluster through HTTP, on the sandbox only: they count, page and
filter the whole cluster's nodes, which on the shared control plane other tests add, cordon,
label and fill. A node's details and labels, on nodes of the test's own, run on both clusters:
test_node_labels.py."""

from __future__ import annotations

import yaml

from tests.support.sandbox import wait_for

from .conftest import Api, inference

KEY = "g8s.host/gpu-type"


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


def test_every_nodes_gpu_labels_page_by_page(api: Api) -> None:
    body = {"nodeNames": ["gpu-a100-1", "gpu-t4-0"], "key": KEY, "value": "v1"}
    api.call("admin", "POST", "/nodes/labels/batch", json=body)
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
