"""The users' node and pool queries against the sandbox: `query pools`, `get gpu-type --all`,
`get node-labels` (and `get label`), `get nodes --label`, `get nodes --gpu-type PREFIX/VALUE`."""

from __future__ import annotations

import json

from gpuctl.inventory import nodes

from .test_nodes import NodeEnv, busy, env

__all__ = ["env"]  # the fixture, shared with test_nodes

POOL = """kind: pool
version: v0.1
metadata:
  name: training
nodes:
  gpu-a100-0: {}
  gpu-a100-1: {}
"""


def rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_query_pools_shows_gpu_occupancy(env: NodeEnv) -> None:
    assert env.gpuctl("create", "-f", "-", stdin=POOL).returncode == 0
    busy(env)  # 4 + 2 GPUs on gpu-a100-0 (and a finished pod that does not count)
    done = env.gpuctl("query", "pools")
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout) == [
        ["NAME", "NODES", "GPU-TOTAL", "GPU-USED", "GPU-FREE", "OCCUPANCY", "GPU-TYPES"],
        ["training", "2", "16", "6", "10", "38%", "A100-80G:16"],
        ["default", "2", "4", "1", "3", "25%", "T4-16G:4"],  # the nodes in no pool come last
    ]
    item, default = json.loads(env.gpuctl("query", "pools", "-o", "json").stdout)["items"]
    assert (item["gpuTotal"], item["gpuUsed"], item["gpuFree"]) == (16, 6, 10)
    assert (default["name"], default["gpuTotal"], default["gpuUsed"]) == ("default", 4, 1)


def test_get_gpu_type_all_lists_gpu_labels_and_pool(env: NodeEnv) -> None:
    env.set_labels("gpu-t4-0", {"g8s.host/gpu-type": "t4", "nvidia.com/gpu.product": "Tesla-T4"})
    assert env.gpuctl("create", "-f", "-", stdin=POOL).returncode == 0
    done = env.gpuctl("get", "gpu-type", "--all")
    assert done.returncode == 0, done.stderr
    table = {row[0]: row[1:] for row in rows(done.stdout)[1:]}
    assert table["gpu-a100-0"] == ["runwhere.ai/gpu-type=A100-80G", "training"]
    assert table["gpu-t4-0"][0].split(",") == [
        "g8s.host/gpu-type=t4",
        "nvidia.com/gpu.product=Tesla-T4",
        "runwhere.ai/gpu-type=T4-16G",
    ]
    assert table["gpu-t4-0"][1] == "<none>"
    assert table["cpu-0"] == ["<none>", "<none>"]
    same = env.gpuctl("get", "node-labels", "--all")
    assert same.stdout == done.stdout
    items = json.loads(env.gpuctl("get", "gpu-type", "--all", "-o", "json").stdout)["items"]
    first = next(i for i in items if i["nodeName"] == "gpu-a100-0")
    assert first == {
        "nodeName": "gpu-a100-0",
        "gpuLabels": [{"key": "runwhere.ai/gpu-type", "value": "A100-80G"}],
        "boundPools": ["training"],
    }


def test_node_labels_is_get_label_by_another_name(env: NodeEnv) -> None:
    env.set_labels("gpu-a100-0", {"g8s.host/gpu-type": "a100-80g"})
    for spelling in ("label", "node-labels"):
        done = env.gpuctl("get", spelling, "gpu-a100-0", "--key=g8s.host/gpu-type")
        assert done.returncode == 0, done.stderr
        assert rows(done.stdout)[1] == ["gpu-a100-0", "g8s.host/gpu-type", "a100-80g"]
    missing = env.gpuctl("get", "node-labels", "gpu-a100-1", "--key", "g8s.host/gpu-type")
    assert missing.returncode == 1
    assert "node/gpu-a100-1 has no label g8s.host/gpu-type" in missing.stderr
    no_key = env.gpuctl("get", "node-labels", "gpu-a100-0")
    assert no_key.returncode == 2 and "--key" in no_key.stderr


def test_get_nodes_label_lists_the_key_on_every_node(env: NodeEnv) -> None:
    env.set_labels("gpu-a100-1", {"g8s.host/rack": "r7"})
    done = env.gpuctl("get", "nodes", "--label", "g8s.host/rack")
    assert done.returncode == 0, done.stderr
    table = {row[0]: row[1:] for row in rows(done.stdout)[1:]}
    assert table["gpu-a100-1"] == ["g8s.host/rack", "r7"]
    assert table["gpu-a100-0"] == ["g8s.host/rack", "<none>"]
    items = json.loads(env.gpuctl("get", "nodes", "--label", "g8s.host/rack", "-o", "json").stdout)
    assert {"nodeName": "gpu-a100-1", "labelKey": "g8s.host/rack", "labelValue": "r7"} in items[
        "items"
    ]


def test_gpu_type_accepts_the_key_prefixed_form(env: NodeEnv) -> None:
    env.set_labels("gpu-a100-1", {"g8s.host/gpu-type": "a100-80g"})
    for spelling in ("a100-80g", "g8s.host/a100-80g"):
        done = env.gpuctl("get", "nodes", "--gpu-type", spelling)
        assert done.returncode == 0, done.stderr
        # gpu-a100-0 has runwhere.ai/gpu-type=A100-80G: the same model in other letters
        assert [row[0] for row in rows(done.stdout)[1:]] == ["gpu-a100-0", "gpu-a100-1"], spelling
    prefixed = env.gpuctl("get", "nodes", "--gpu-type", "runwhere.ai/A100-80G")
    assert [row[0] for row in rows(prefixed.stdout)[1:]] == ["gpu-a100-0", "gpu-a100-1"]


def test_gpu_type_matches_in_any_letter_case(env: NodeEnv) -> None:
    """The users' own example, `--gpu-type g8s.host/a100-80g`, finds nodes labelled A100-80G."""
    for spelling in ("g8s.host/a100-80g", "a100-80G", "runwhere.ai/A100-80g"):
        done = env.gpuctl("get", "nodes", "--gpu-type", spelling)
        assert done.returncode == 0, done.stderr
        assert [row[0] for row in rows(done.stdout)[1:]] == ["gpu-a100-0", "gpu-a100-1"], spelling
    assert nodes.same_gpu_type("t4-16g", "T4-16G") and not nodes.same_gpu_type("T4", "T4-16G")
    assert not nodes.same_gpu_type("", "")


def not_ready(env: NodeEnv, node: str) -> None:
    condition = {"type": "Ready", "status": "False", "reason": "KubeletNotReady"}
    env.cluster.patch(
        "Node", node, None, {"status": {"conditions": [condition]}}, subresource="status"
    )


def test_get_nodes_by_status(env: NodeEnv) -> None:
    not_ready(env, "gpu-t4-0")
    env.cluster.patch("Node", "cpu-0", None, {"spec": {"unschedulable": True}})
    expected = {
        "NotReady": ["gpu-t4-0"],
        "notready": ["gpu-t4-0"],
        "Ready": ["cpu-0", "gpu-a100-0", "gpu-a100-1"],  # cordoned is still Ready, as kubectl
        "SchedulingDisabled": ["cpu-0"],
        "active": ["gpu-a100-0", "gpu-a100-1"],
        "maintaining": ["cpu-0"],
        "faulty": ["gpu-t4-0"],
    }
    for status, names in expected.items():
        done = env.gpuctl("get", "nodes", "--status", status, "-o", "name")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [f"node/{name}" for name in names], status
    wrong = env.gpuctl("get", "nodes", "--status", "Broken")
    assert wrong.returncode == 2 and "'Broken' is not one of" in wrong.stderr


def test_gpu_type_naming_the_key_lists_that_label(env: NodeEnv) -> None:
    env.set_labels("gpu-a100-1", {"g8s.host/gpu-type": "a100-80g"})
    done = env.gpuctl("get", "nodes", "--gpu-type", "g8s.host/gpu-type")
    assert done.returncode == 0, done.stderr
    table = {row[0]: row[1:] for row in rows(done.stdout)[1:]}
    assert table["gpu-a100-1"] == ["g8s.host/gpu-type", "a100-80g"]
    assert table["gpu-a100-0"] == ["g8s.host/gpu-type", "<none>"]
    wrong = env.gpuctl("get", "nodes", "--gpu-type", "example.com/x")
    assert wrong.returncode == 2 and "GPU-type label key" in wrong.stderr


def test_gpu_type_query_parsing() -> None:
    parse = nodes.GpuTypeQuery.parse
    assert parse("a100-80g") == nodes.GpuTypeQuery(value="a100-80g")
    assert parse("g8s.host/a100-80g") == nodes.GpuTypeQuery(value="a100-80g")
    assert parse("g8s.host/gpu-type") == nodes.GpuTypeQuery(key="g8s.host/gpu-type")
    assert parse("runwhere.ai/gpu-type") == nodes.GpuTypeQuery(key="runwhere.ai/gpu-type")
    assert parse("nvidia.com/gpu.product") == nodes.GpuTypeQuery(key="nvidia.com/gpu.product")
