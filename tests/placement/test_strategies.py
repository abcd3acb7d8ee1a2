"""Placement: node GPUs (allocatable, capacity, label, none), free GPUs, and each strategy's
choice and explanation."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from gpuctl.constants import GPU_RESOURCE
from gpuctl.inventory import nodes as nodes_inventory
from gpuctl.placement import capacity as accounting
from gpuctl.placement import strategies as s
from gpuctl.spec.resources import schemas_dir


def node(
    name: str,
    gpus: int | None = None,
    *,
    capacity: int | None = None,
    label: str | None = None,
    ready: bool = True,
    cheap: bool = False,
    unschedulable: bool = False,
    taints: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    labels = {}
    if label is not None:
        labels[accounting.GPU_COUNT_LABEL] = label
    if cheap:
        labels[accounting.CHEAP_NODE_LABEL] = "true"
    status: dict[str, Any] = {
        "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        "allocatable": {"cpu": "8"},
        "capacity": {"cpu": "8"},
    }
    if gpus is not None:
        status["allocatable"][GPU_RESOURCE] = str(gpus)
    if capacity is not None:
        status["capacity"][GPU_RESOURCE] = str(capacity)
    spec: dict[str, Any] = {"unschedulable": unschedulable}
    if taints:
        spec["taints"] = taints
    return {"metadata": {"name": name, "labels": labels}, "spec": spec, "status": status}


def pod(node_name: str, gpus: int, phase: str = "Running") -> dict[str, Any]:
    return {
        "metadata": {"name": f"p-{node_name}-{gpus}"},
        "spec": {
            "nodeName": node_name,
            "containers": [{"name": "c", "resources": {"limits": {GPU_RESOURCE: str(gpus)}}}],
        },
        "status": {"phase": phase},
    }


def test_gpus_come_from_allocatable_then_capacity_then_label_then_nothing() -> None:
    raw = [
        node("a", 8, capacity=16, label="32"),
        node("b", capacity=4, label="32"),
        node("c", label="2"),
        node("d"),
    ]
    nodes = accounting.node_gpus(raw, [])
    assert [(n.name, n.gpus, n.source) for n in nodes] == [
        ("a", 8, "allocatable"),
        ("b", 4, "capacity"),
        ("c", 2, f"label {accounting.GPU_COUNT_LABEL}"),
        ("d", 0, "none"),
    ]
    # get nodes and get pools show the same count
    assert [nodes_inventory.node_gpus(n) for n in raw] == [8, 4, 2, 0]


def test_free_gpus_subtract_unfinished_pods_and_promised_placements() -> None:
    pods = [pod("a", 2), pod("a", 1, "Pending"), pod("a", 4, "Succeeded"), pod("b", 3, "Failed")]
    nodes = {n.name: n for n in accounting.node_gpus([node("a", 8), node("b", 8)], pods, {"b": 5})}
    assert (nodes["a"].used, nodes["a"].free) == (3, 5)
    assert (nodes["b"].used, nodes["b"].free) == (5, 3)


def pinned_pod(nodes: list[str], gpus: int, phase: str = "Pending") -> dict[str, Any]:
    """A pod not yet bound whose required node affinity allows only `nodes`."""
    made = pod("", gpus, phase)
    made["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": accounting.HOSTNAME_LABEL, "operator": "In", "values": nodes}
                        ]
                    }
                ]
            }
        }
    }
    return made


def test_an_unbound_pod_pinned_to_one_node_counts_there() -> None:
    pods = [
        pinned_pod(["a"], 3),  # waiting for the scheduler: its GPUs are a's
        pinned_pod(["a", "b"], 2),  # may go to either: counted nowhere yet
        pinned_pod(["b"], 4, "Failed"),  # finished before it was bound
    ]
    nodes = {n.name: n for n in accounting.node_gpus([node("a", 8), node("b", 8)], pods)}
    assert (nodes["a"].used, nodes["b"].used) == (3, 0)


def test_only_ready_schedulable_untainted_nodes_are_suitable() -> None:
    raw = [
        node("notready", 8, ready=False),
        node("cordoned", 8, unschedulable=True),
        node("tainted", 8, taints=[{"key": "gpu", "value": "x", "effect": "NoSchedule"}]),
        node("soft", 8, taints=[{"key": "gpu", "effect": "PreferNoSchedule"}]),
        node("cpu"),
    ]
    placement = s.LeastLoaded().place(accounting.node_gpus(raw, []), 1)
    verdicts = {cand.node.name: (cand.suitable, cand.reason) for cand in placement.candidates}
    assert placement.chosen is not None and placement.chosen.name == "soft"
    assert verdicts["notready"] == (False, "NotReady")
    assert verdicts["cordoned"] == (False, "cordoned (unschedulable)")
    assert verdicts["tainted"] == (False, "tainted gpu=x:NoSchedule")
    assert verdicts["cpu"] == (False, "no GPUs")


def cluster() -> list[accounting.NodeGpus]:
    """free GPUs: big 6, mid 4 (cheap), small 2 (cheap), full 0."""
    raw = [
        node("big", 8),
        node("mid", 8, cheap=True),
        node("small", 4, cheap=True),
        node("full", 2),
    ]
    pods = [pod("big", 2), pod("mid", 4), pod("small", 2), pod("full", 2)]
    return accounting.node_gpus(raw, pods)


def ranking(placement: s.Placement) -> list[str]:
    return [cand.node.name for cand in placement.candidates if cand.suitable]


def test_least_loaded_picks_the_most_free_gpus() -> None:
    placement = s.strategy("leastLoaded").place(cluster(), 2)
    assert ranking(placement) == ["big", "mid", "small"]
    assert placement.candidates[0].reason == "6 of 8 GPUs free"
    assert placement.candidates[-1].reason == "only 0 of 2 GPUs free, 2 needed"


def test_binpack_picks_the_fewest_free_gpus_that_fit() -> None:
    assert ranking(s.strategy("binpack").place(cluster(), 2)) == ["small", "mid", "big"]
    placement = s.strategy("binpack").place(cluster(), 3)
    assert ranking(placement) == ["mid", "big"]
    assert placement.candidates[0].reason == "4 of 8 GPUs free, 1 left after placing"


def test_cost_optimized_prefers_cheap_nodes_then_least_loaded() -> None:
    assert ranking(s.strategy("costOptimized").place(cluster(), 2)) == ["mid", "small", "big"]
    # no cheap node fits 5 GPUs: it falls back to the least-loaded node
    placement = s.strategy("costOptimized").place(cluster(), 5)
    assert ranking(placement) == ["big"]
    assert placement.candidates[0].reason == "not a cheap node, 6 of 8 GPUs free"


def test_random_draws_among_suitable_nodes_with_the_given_seed() -> None:
    picks = [
        s.strategy("random", random.Random(seed)).place(cluster(), 2).chosen for seed in range(40)
    ]
    names = [pick.name for pick in picks if pick is not None]
    assert len(names) == 40
    assert set(names) == {"big", "mid", "small"}
    again = [
        s.strategy("random", random.Random(seed)).place(cluster(), 2).chosen for seed in range(40)
    ]
    assert [pick.name for pick in again if pick is not None] == names
    assert "full" not in names


def test_no_suitable_node_says_why() -> None:
    placement = s.strategy("leastLoaded").place(cluster(), 7)
    assert placement.chosen is None
    assert placement.reason == (
        "no Ready, schedulable node has 7 free GPU(s) (the most free on one node: 6)"
    )
    assert all(not cand.suitable and cand.rank == 0 for cand in placement.candidates)


def test_unknown_strategy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown scheduling strategy 'fastest'"):
        s.strategy("fastest")


def test_fragmentation_counts_free_gpus_too_few_for_the_largest_request() -> None:
    nodes = cluster()  # free: big 6, mid 4, small 2, full 0
    assert s.fragmentation(nodes, 5) == 6  # mid 4 + small 2
    assert s.fragmentation(nodes, 1) == 0
    assert s.fragmentation(nodes, 0) == 0


def test_the_spec_field_offers_exactly_the_strategies() -> None:
    common = json.loads((schemas_dir() / "common.json").read_text())
    assert common["$defs"]["placement"]["enum"] == list(s.STRATEGY_NAMES)
    for name in s.STRATEGY_NAMES:
        assert s.strategy(name).name == name


def test_each_strategy_is_one_class_in_the_name_table() -> None:
    assert tuple(s.STRATEGIES) == s.STRATEGY_NAMES
    for name, cls in s.STRATEGIES.items():
        assert issubclass(cls, s.Strategy) and cls.name == name
        assert type(s.strategy(name)) is cls
    seeded = [s.strategy("random", random.Random(3)).place(cluster(), 2) for _ in (1, 2)]
    assert seeded[0].chosen == seeded[1].chosen  # the table hands `random` the caller's rng
