"""The capacity model's claims of placements whose pods do not exist yet: recorded ones
(unmade), remembered ones (RecentPlacements), and the open capacity successive placements
take from."""

from __future__ import annotations

import random

from gpuctl.placement.capacity import NodeGpus
from gpuctl.placement.claims import (
    Assignment,
    OpenCapacity,
    RecentPlacements,
    add_claims,
    unmade,
)


def test_an_assignment_claims_its_gpus_until_its_pod_exists() -> None:
    placed = [
        Assignment(("team", "a"), "node-1", 4),
        Assignment(("team", "b"), "node-1", 2),
        Assignment(("team", "c"), "node-2", 8),
    ]
    assert unmade(placed, made=set()) == {"node-1": 6, "node-2": 8}
    assert unmade(placed, made={("team", "a"), ("team", "c")}) == {"node-1": 2}
    # the same name in another namespace is another object
    assert unmade(placed, made={("other", "b")}) == {"node-1": 6, "node-2": 8}


def test_claims_add_up_per_node() -> None:
    assert add_claims({"a": 1, "b": 2}, {"a": 3}, {}) == {"a": 4, "b": 2}


def test_a_remembered_placement_counts_until_a_read_shows_it_on_its_node() -> None:
    recent = RecentPlacements(memory_seconds=30)
    recent.add(("team", "a"), "node-1", 4, now=100.0)
    recent.add(("team", "b"), "node-2", 2, now=100.0)
    assert recent.unseen({}, now=101.0) == {"node-1": 4, "node-2": 2}
    # a read that shows `a` elsewhere does not show this placement: it still counts
    assert recent.unseen({("team", "a"): "node-9"}, now=102.0) == {"node-1": 4, "node-2": 2}
    # shown on its node: the pod's own claim counts from now on, the memory forgets it
    assert recent.unseen({("team", "a"): "node-1"}, now=103.0) == {"node-2": 2}
    assert recent.unseen({}, now=104.0) == {"node-2": 2}
    # older than the memory: any read shows it by then
    assert recent.unseen({}, now=131.0) == {}


def test_a_dropped_placement_claims_nothing() -> None:
    recent = RecentPlacements()
    recent.add(("team", "a"), "node-1", 4, now=0.0)
    recent.drop(("team", "a"))
    recent.drop(("team", "never"))
    assert recent.unseen({}, now=1.0) == {}


def _node(name: str, gpus: int, used: int = 0, isolated: bool = False) -> NodeGpus:
    return NodeGpus(name, {}, gpus, "allocatable", used, isolated=isolated)


def test_successive_placements_each_see_the_gpus_the_previous_took() -> None:
    capacity = OpenCapacity([_node("a", 8, used=4), _node("b", 8, used=2)])
    rng = random.Random(0)
    first = capacity.place("leastLoaded", 4, rng)
    second = capacity.place("leastLoaded", 4, rng)
    third = capacity.place("leastLoaded", 4, rng)
    assert [p.chosen.name if p.chosen else None for p in (first, second, third)] == [
        "b",
        "a",
        None,
    ]
    assert [(n.name, n.used) for n in capacity.nodes] == [("a", 8), ("b", 6)]
    capacity.take("b", -4)  # a placement undone gives its GPUs back
    assert [(n.name, n.free) for n in capacity.nodes] == [("a", 0), ("b", 6)]


def test_a_pool_that_isolates_its_nodes_is_not_open_capacity() -> None:
    capacity = OpenCapacity([_node("kept", 8, isolated=True), _node("open", 2)])
    placement = capacity.place("leastLoaded", 1, random.Random(0))
    assert placement.chosen is not None and placement.chosen.name == "open"
    assert capacity.place("leastLoaded", 4, random.Random(0)).chosen is None
    assert capacity.fragmented(4) == 1  # open's one free GPU is too few for 4


def test_asks_in_a_pool_fill_its_cap_in_order_and_a_refused_one_claims_nothing() -> None:
    from gpuctl.placement.capacity import beyond_cap

    # 6 of 10 used: 2 fits (8), 4 would make 12 (refused at 8), 2 still fits (10), 1 refused
    assert beyond_cap(6, 10, [2, 4, 2, 1]) == [None, 8, None, 10]
    assert beyond_cap(0, 0, [0, 1]) == [None, 0]


def test_the_pods_of_a_workload_each_take_their_node_or_distinct_nodes() -> None:
    from gpuctl.placement.claims import fill_pinned, place_pods

    nodes = [_node("a", 8, used=2), _node("b", 4)]
    made, failed = place_pods("binpack", 3, 2, False, nodes, random.Random(0))
    assert failed is None
    assert [p.chosen.name for p in made if p.chosen] == ["b", "b", "a"]
    made, failed = place_pods("leastLoaded", 3, 2, True, nodes, random.Random(0))
    assert [p.chosen.name for p in made if p.chosen] == ["a", "b"]
    assert failed is not None and failed.chosen is None
    assert fill_pinned(4, 2, False, ["b", "a"], nodes) == {"b": 4, "a": 4}
    assert fill_pinned(2, 2, True, ["b", "a"], nodes) == {"b": 2, "a": 2}
    assert fill_pinned(3, 2, True, ["b", "a"], nodes) is None
    assert fill_pinned(1, 2, False, ["gone"], nodes) is None
