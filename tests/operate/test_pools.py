"""Pools against the sandbox: create/apply/delete -f pool.yaml label and unlabel the nodes
(checked before any write), pools sharing nodes, `get pools`, `describe pool`, `add node`,
`remove node`."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.cli.views import pools as pool_views
from gpuctl.inventory import pools

from .test_nodes import NodeEnv, busy, env, without_age

__all__ = ["env"]  # the fixture, shared with test_nodes

TRAIN = """kind: pool
version: v0.1
metadata:
  name: training
  description: big training runs
nodes:
  gpu-a100-0:
    gpu-type: A100-80G
  gpu-a100-1: {}
"""

INFER = """kind: resource
version: v0.1
pool:
  name: inference
nodes:
  gpu-a100-1: {}
  gpu-t4-0:
    gpu-type: T4-16G
"""

POOL = c.Labels.POOL


def pool_labels(env: NodeEnv) -> dict[str, str]:
    return {
        name: labels[POOL]
        for name in ("cpu-0", "gpu-a100-0", "gpu-a100-1", "gpu-t4-0")
        if POOL in (labels := env.labels(name))
    }


def record(env: NodeEnv, pool: str) -> dict[str, Any] | None:
    """The pool's record as gpuctl sees it: one being deleted counts as gone."""
    return pools.read_record(env.cluster, pool)


def record_nodes(env: NodeEnv, pool: str) -> dict[str, Any]:
    found = record(env, pool)
    assert found is not None
    nodes: dict[str, Any] = json.loads(found["data"]["nodes"])
    return nodes


# ------------------------------------------------------------------- create and delete -f


def test_create_records_the_pool_and_labels_its_nodes(env: NodeEnv) -> None:
    done = env.gpuctl("create", "-f", "-", stdin=TRAIN)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "namespace/gpuctl-system created",
        "configmap/pool-training created",
        "node/gpu-a100-0 labeled",
        "node/gpu-a100-1 labeled",
    ]
    assert pool_labels(env) == {"gpu-a100-0": "training", "gpu-a100-1": "training"}
    assert env.labels("gpu-a100-0")[c.Labels.GPU_TYPE] == "A100-80G"
    assert record_nodes(env, "training") == {"gpu-a100-0": "A100-80G", "gpu-a100-1": None}
    again = env.gpuctl("create", "-f", "-", stdin=TRAIN)
    assert again.returncode == 1 and "configmap/pool-training: already exists" in again.stderr


def test_a_second_pool_cannot_take_a_node_without_overwrite(env: NodeEnv) -> None:
    env.gpuctl("create", "-f", "-", stdin=TRAIN)
    env.sandbox.requests.clear()
    refused = env.gpuctl("create", "-f", "-", stdin=INFER)
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr == (
        "error: nothing was changed: node gpu-a100-1 is in pool training; pool inference "
        "(<stdin>) may take it only with --overwrite\n"
    )
    assert env.sandbox.requests.only_reads()
    assert record(env, "inference") is None
    taken = env.gpuctl("create", "-f", "-", "--overwrite", stdin=INFER)
    assert taken.returncode == 0, taken.stderr
    assert "node/gpu-a100-1 labeled (moved from pool training)" in taken.stdout.splitlines()
    assert pool_labels(env) == {
        "gpu-a100-0": "training",
        "gpu-a100-1": "inference",
        "gpu-t4-0": "inference",
    }
    # the first pool's record no longer lists the node it lost
    assert record_nodes(env, "training") == {"gpu-a100-0": "A100-80G"}
    listed = env.gpuctl("get", "pools", "--no-headers")
    assert [row[:3] for row in without_age(listed.stdout)] == [
        ["inference", "2", "12/0/12"],
        ["training", "1", "8/0/8"],
        ["default", "1", "0/0/0"],  # the nodes in no pool: cpu-0
    ]
    # deleting the first pool leaves the node the second one took
    deleted = env.gpuctl("delete", "-f", "-", stdin=TRAIN)
    assert deleted.stdout.splitlines() == [
        "configmap/pool-training deleted",
        "node/gpu-a100-0 unlabeled",
    ]
    assert pool_labels(env) == {"gpu-a100-1": "inference", "gpu-t4-0": "inference"}
    assert record(env, "training") is None
    listed = env.gpuctl("get", "pools", "--no-headers")
    assert [row[0] for row in without_age(listed.stdout)] == ["inference", "default"]


def test_a_pool_whose_record_is_being_deleted_is_gone(env: NodeEnv) -> None:
    env.gpuctl("create", "-f", "-", stdin=TRAIN)
    hold = {"metadata": {"finalizers": ["example.com/hold"]}}
    env.cluster.patch("ConfigMap", "pool-training", c.SYSTEM_NAMESPACE, hold)
    deleted = env.gpuctl("delete", "-f", "-", stdin=TRAIN)
    assert deleted.returncode == 0, deleted.stderr
    held = env.cluster.find("ConfigMap", "pool-training", c.SYSTEM_NAMESPACE)
    assert held is not None and held["metadata"]["deletionTimestamp"]
    assert record(env, "training") is None
    listed = env.gpuctl("get", "pools", "--no-headers").stdout
    assert [row[:2] for row in without_age(listed)] == [["default", "4"]]  # every node
    added = env.gpuctl("add", "node", "gpu-t4-0", "--pool", "training")
    assert added.returncode == 1 and "pool training not found" in added.stderr
    env.cluster.patch(
        "ConfigMap", "pool-training", c.SYSTEM_NAMESPACE, {"metadata": {"finalizers": None}}
    )


def test_a_missing_node_or_a_node_in_two_files_is_refused_before_any_write(
    env: NodeEnv,
) -> None:
    env.sandbox.requests.clear()
    missing = env.gpuctl("create", "-f", "-", stdin=TRAIN.replace("gpu-a100-1", "gpu-h100-9"))
    assert missing.returncode == 1
    assert missing.stderr == (
        "error: nothing was changed: node gpu-h100-9 (pool training, <stdin>) does not exist\n"
    )
    both = env.gpuctl("apply", "-f", "-", stdin=TRAIN + "---\n" + INFER)
    assert both.returncode == 1
    assert "nodes.gpu-a100-1: node gpu-a100-1 of pool inference is also in pool training (" in (
        both.stderr
    )
    assert env.sandbox.requests.only_reads()
    assert pool_labels(env) == {}


def test_dry_run_labels_nothing(env: NodeEnv) -> None:
    done = env.gpuctl("create", "-f", "-", "--dry-run=client", stdin=TRAIN)
    assert done.returncode == 0, done.stderr
    assert "node/gpu-a100-0 labeled (dry run)" in done.stdout.splitlines()
    assert pool_labels(env) == {}


# ------------------------------------------------------------------------------- apply -f


def test_apply_labels_unchanged_then_drops_removed_nodes(env: NodeEnv) -> None:
    first = env.gpuctl("apply", "-f", "-", stdin=TRAIN)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-2:] == ["node/gpu-a100-0 labeled", "node/gpu-a100-1 labeled"]
    env.sandbox.requests.clear()
    second = env.gpuctl("apply", "-f", "-", stdin=TRAIN)
    assert second.stdout.splitlines() == [
        "namespace/gpuctl-system unchanged",
        "configmap/pool-training unchanged",
        "node/gpu-a100-0 unchanged",
        "node/gpu-a100-1 unchanged",
    ]
    assert env.sandbox.requests.only_reads(), env.sandbox.requests.writes()
    smaller = TRAIN.replace("  gpu-a100-1: {}\n", "")
    third = env.gpuctl("apply", "-f", "-", stdin=smaller)
    assert third.returncode == 0, third.stderr
    assert third.stdout.splitlines()[-2:] == [
        "node/gpu-a100-0 unchanged",
        "node/gpu-a100-1 unlabeled",
    ]
    assert pool_labels(env) == {"gpu-a100-0": "training"}
    assert record_nodes(env, "training") == {"gpu-a100-0": "A100-80G"}


def test_apply_resets_the_record_to_the_file(env: NodeEnv) -> None:
    env.gpuctl("apply", "-f", "-", stdin=TRAIN)
    added = env.gpuctl("add", "node", "gpu-t4-0", "--pool", "training")
    assert added.stdout == "node/gpu-t4-0 added to pool training\n", added.stderr
    assert set(record_nodes(env, "training")) == {"gpu-a100-0", "gpu-a100-1", "gpu-t4-0"}
    done = env.gpuctl("apply", "-f", "-", stdin=TRAIN)
    assert "node/gpu-t4-0 unlabeled" in done.stdout.splitlines()
    assert set(record_nodes(env, "training")) == {"gpu-a100-0", "gpu-a100-1"}
    assert "gpu-t4-0" not in pool_labels(env)


# ------------------------------------------------------------------- get and describe


def test_get_pools_snapshot_and_formats(env: NodeEnv, snapshot_text: Any) -> None:
    busy(env)
    env.gpuctl("create", "-f", "-", stdin=TRAIN)
    env.set_labels("cpu-0", {POOL: "cpu"})  # a pool only a node label names
    inventory = pools.Inventory.read(env.cluster)
    stamp = record(env, "training")
    assert stamp is not None
    at = table.parse_time(stamp["metadata"]["creationTimestamp"])
    assert at is not None
    found = inventory.pools()
    text = table.table(
        pool_views.POOL_HEADERS, pool_views.pool_rows(inventory, found, at=at + timedelta(days=3))
    )
    wide = table.table(
        pool_views.POOL_WIDE_HEADERS,
        pool_views.pool_rows(inventory, found, wide=True, at=at + timedelta(days=3)),
    )
    assert text + "\n" + wide == snapshot_text
    names = env.gpuctl("get", "pools", "-o", "name")
    assert names.stdout == "pool/cpu\npool/training\npool/default\n"  # the nodes in no pool last
    listed = yaml.safe_load(env.gpuctl("get", "pools", "-o", "yaml").stdout)
    training = listed["items"][1]
    assert training["gpuTotal"] == 16 and training["gpuUsed"] == 6 and training["gpuFree"] == 10
    assert training["gpuType"] == {"A100-80G": 16}
    as_json = json.loads(env.gpuctl("get", "pools", "-o", "json").stdout)
    assert [item["name"] for item in as_json["items"]] == ["cpu", "training", "default"]


def test_a_labelled_node_counts_even_if_the_record_lacks_it(env: NodeEnv) -> None:
    env.gpuctl("create", "-f", "-", stdin=TRAIN)
    env.set_labels("gpu-t4-0", {POOL: "training"})
    row = without_age(env.gpuctl("get", "pools", "--no-headers").stdout)[0]
    assert row == ["training", "3", "20/0/20", "<none>", "A100-80G,T4-16G", "big training runs"]
    nodes = env.gpuctl("get", "nodes", "--pool", "training", "-o", "name")
    assert nodes.stdout.splitlines() == ["node/gpu-a100-0", "node/gpu-a100-1", "node/gpu-t4-0"]


def test_describe_pool(env: NodeEnv, snapshot_text: Any) -> None:
    busy(env)
    env.gpuctl("create", "-f", "-", stdin=TRAIN)
    env.pod("train-1", "gpu-a100-1", 4, labels={"job-name": "train"})  # a job over two nodes
    env.sandbox.settle()
    done = env.gpuctl("describe", "pool", "training")
    assert done.returncode == 0, done.stderr
    text = re.sub(r"\(created \S+ ago\)", "(created <age> ago)", done.stdout)
    assert text == snapshot_text
    assert re.search(r"GPU:\s+16 total, 10 used, 6 free", text)
    assert re.search(r"default\s+train\s+2\s+8\s+gpu-a100-0,gpu-a100-1", text)


def test_missing_pools_are_one_line(env: NodeEnv) -> None:
    empty = env.gpuctl("get", "pools", "--no-headers")  # no pool: every node is the default's
    assert (empty.returncode, empty.stderr) == (0, "")
    assert [row[:2] for row in without_age(empty.stdout)] == [["default", "4"]]
    for name in ("default", "default-pool"):
        described = env.gpuctl("describe", "pool", name)
        assert described.returncode == 0 and "the nodes in no pool" in described.stdout
    missing = env.gpuctl("describe", "pool", "nope")
    assert (missing.returncode, missing.stderr) == (1, "error: pool nope not found\n")
    add = env.gpuctl("add", "node", "gpu-a100-0", "--pool", "nope")
    assert add.returncode == 1
    assert add.stderr == (
        "error: pool nope not found (create it first: gpuctl create -f POOL.yaml)\n"
    )
    remove = env.gpuctl("remove", "node", "gpu-a100-0", "--pool", "nope")
    assert (remove.returncode, remove.stderr) == (1, "error: pool nope not found\n")


# ---------------------------------------------------------------------- add and remove


def test_add_and_remove_nodes(env: NodeEnv) -> None:
    env.gpuctl("create", "-f", "-", stdin=TRAIN)
    env.gpuctl("create", "-f", "-", stdin=INFER.replace("  gpu-a100-1: {}\n", ""))
    env.sandbox.requests.clear()
    refused = env.gpuctl("add", "node", "cpu-0", "nope", "gpu-t4-0", "--pool", "training")
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        "error: node/nope not found",
        "error: node/gpu-t4-0 is in pool inference; add --overwrite to move it to pool training",
        "error: nothing was changed in pool training",
    ]
    assert env.sandbox.requests.only_reads()
    added = env.gpuctl("add", "node", "cpu-0", "gpu-a100-0", "--pool", "training")
    assert added.stdout.splitlines() == [
        "node/cpu-0 added to pool training",
        "node/gpu-a100-0 already in pool training",
    ]
    moved = env.gpuctl("add", "node", "gpu-t4-0", "--pool", "training", "--overwrite")
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout == "node/gpu-t4-0 moved from pool inference to pool training\n"
    assert record_nodes(env, "inference") == {}  # both records follow the move
    assert pool_labels(env) == {
        "cpu-0": "training",
        "gpu-a100-0": "training",
        "gpu-a100-1": "training",
        "gpu-t4-0": "training",
    }
    assert record_nodes(env, "training") == {
        "cpu-0": None,
        "gpu-a100-0": "A100-80G",
        "gpu-a100-1": None,
        "gpu-t4-0": "T4-16G",
    }
    wrong = env.gpuctl("remove", "node", "gpu-a100-0", "--pool", "inference")
    assert wrong.returncode == 1
    assert wrong.stderr.splitlines()[0] == (
        "error: node/gpu-a100-0 is not in pool inference (it is in pool training)"
    )
    removed = env.gpuctl("remove", "node", "cpu-0", "gpu-a100-1", "--pool", "training")
    assert removed.stdout.splitlines() == [
        "node/cpu-0 removed from pool training",
        "node/gpu-a100-1 removed from pool training",
    ]
    assert pool_labels(env) == {"gpu-a100-0": "training", "gpu-t4-0": "training"}
    assert set(record_nodes(env, "training")) == {"gpu-a100-0", "gpu-t4-0"}
    usage = env.gpuctl("add", "pod", "x", "--pool", "training")
    assert usage.returncode == 2


def test_every_view_agrees_on_pool_membership(env: NodeEnv) -> None:
    """One rule (inventory.pools.pools_of) for get pools, describe pool, get nodes and
    describe node: the pool label decides; a node without it counts for the records that list
    it."""
    env.gpuctl("create", "-f", "-", stdin=TRAIN)
    env.gpuctl("create", "-f", "-", stdin=INFER.replace("  gpu-a100-1: {}\n", ""))
    moved = env.gpuctl("add", "node", "gpu-a100-1", "--pool", "inference", "--overwrite")
    assert moved.stdout == "node/gpu-a100-1 moved from pool training to pool inference\n"
    env.set_labels("gpu-a100-0", {POOL: None})  # a record still lists it, no label says so

    def views() -> dict[str, dict[str, str]]:
        as_json = json.loads(env.gpuctl("get", "pools", "-o", "json").stdout)
        by_pools = {  # the default pool is the nodes in no pool, not a membership
            node: item["name"]
            for item in as_json["items"]
            if item["name"] != c.DEFAULT_POOL
            for node in item["nodes"]
        }
        got_nodes = without_age(env.gpuctl("get", "nodes", "--no-headers").stdout)
        by_nodes = {row[0]: row[5] for row in got_nodes if row[5] != "<none>"}
        described = {}
        for node in ("cpu-0", "gpu-a100-0", "gpu-a100-1", "gpu-t4-0"):
            text = env.gpuctl("describe", "node", node).stdout
            pools_line = next(line for line in text.splitlines() if line.startswith("Pools:"))
            if pools_line.split()[1] != "<none>":
                described[node] = pools_line.split()[1]
        by_describe_pool = {}
        for pool in ("training", "inference"):
            text = env.gpuctl("describe", "pool", pool).stdout
            for node in ("cpu-0", "gpu-a100-0", "gpu-a100-1", "gpu-t4-0"):
                if re.search(rf"^\s+{node}\s", text, re.MULTILINE):
                    by_describe_pool[node] = pool
        return {
            "get pools": by_pools,
            "get nodes": by_nodes,
            "describe node": described,
            "describe pool": by_describe_pool,
        }

    expected = {"gpu-a100-0": "training", "gpu-a100-1": "inference", "gpu-t4-0": "inference"}
    assert views() == dict.fromkeys(
        ("get pools", "get nodes", "describe node", "describe pool"), expected
    )


def test_a_pool_file_deletes_only_the_gpu_type_labels_it_wrote(env: NodeEnv) -> None:
    spec = (
        "kind: pool\nversion: v0.1\nmetadata: {name: mixed}\nnodes:\n"
        "  cpu-0: {gpu-type: X1}\n"  # no GPU-type label before: the pool writes it
        "  gpu-t4-0: {gpu-type: T4-32G}\n"  # had T4-16G: the admin's statement replaces it
        "  gpu-a100-0: {gpu-type: A100-80G}\n"  # already so: nothing written
    )
    assert env.gpuctl("create", "-f", "-", stdin=spec).returncode == 0
    assert [env.labels(n).get(c.Labels.GPU_TYPE) for n in ("cpu-0", "gpu-t4-0")] == [
        "X1",
        "T4-32G",
    ]
    found = record(env, "mixed")
    assert found is not None and json.loads(found["data"]["wroteGpuType"]) == ["cpu-0"]
    again = env.gpuctl("apply", "-f", "-", stdin=spec)  # an apply keeps what was written
    assert again.returncode == 0, again.stderr
    found = record(env, "mixed")
    assert found is not None and json.loads(found["data"]["wroteGpuType"]) == ["cpu-0"]
    deleted = env.gpuctl("delete", "-f", "-", stdin=spec)
    assert deleted.returncode == 0, deleted.stderr
    assert c.Labels.GPU_TYPE not in env.labels("cpu-0")
    assert env.labels("gpu-t4-0")[c.Labels.GPU_TYPE] == "T4-32G"
    assert env.labels("gpu-a100-0")[c.Labels.GPU_TYPE] == "A100-80G"
    assert pool_labels(env) == {}


def test_a_pool_file_refuses_nodes_of_a_model_it_does_not_allow(env: NodeEnv) -> None:
    spec = (
        "kind: pool\nversion: v0.1\nmetadata: {name: a100s}\ngpu-types: [a100-80g]\n"
        "nodes:\n  gpu-a100-0: {}\n  gpu-t4-0: {}\n"
    )
    refused = env.gpuctl("create", "-f", "-", stdin=spec)
    assert refused.returncode == 1
    assert "node gpu-t4-0 has GPU type T4-16G, but pool a100s allows only a100-80g" in (
        refused.stderr
    )
    assert record(env, "a100s") is None and pool_labels(env) == {}
    made = env.gpuctl("create", "-f", "-", stdin=spec.replace("  gpu-t4-0: {}\n", ""))
    assert made.returncode == 0, made.stderr
    assert pool_labels(env) == {"gpu-a100-0": "a100s"}


def test_add_node_refuses_a_node_of_a_model_the_pool_does_not_allow(env: NodeEnv) -> None:
    spec = (
        "kind: pool\nversion: v0.1\nmetadata: {name: a100s}\ngpu-types: [a100-80g]\n"
        "nodes:\n  gpu-a100-0: {}\n"
    )
    assert env.gpuctl("create", "-f", "-", stdin=spec).returncode == 0
    refused = env.gpuctl("add", "node", "gpu-t4-0", "--pool", "a100s")
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        "error: node/gpu-t4-0 has GPU type T4-16G, but pool a100s allows only a100-80g "
        "(compared without letter case)",
        "error: nothing was changed in pool a100s",
    ]
    assert pool_labels(env) == {"gpu-a100-0": "a100s"}
    assert "taints" not in (env.cluster.get("Node", "gpu-t4-0").get("spec") or {})
    added = env.gpuctl("add", "node", "gpu-a100-1", "--pool", "a100s")
    assert added.returncode == 0, added.stderr
    taints = env.cluster.get("Node", "gpu-a100-1")["spec"]["taints"]
    assert taints == [{"key": POOL, "value": "a100s", "effect": "NoSchedule"}]
