"""What the create verb reads of every node and every active pod comes from the controller's
watched cache while the cache is fresh; anything else, and everything once the cache is
stale, from the cluster."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from gpuctl.cluster.fake import FakeCluster
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.reads import CachedReads
from gpuctl.inventory.nodes import ACTIVE_PODS


@dataclass
class Held:
    items: list[dict[str, Any]]

    def objects(self) -> list[dict[str, Any]]:
        return self.items


@dataclass
class StubCache:
    nodes: Held
    pods: Held
    stale: str = ""
    workloads: Held = field(default_factory=lambda: Held([]))


def pod(name: str, phase: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "a"}, "status": {"phase": phase}}


def test_nodes_and_active_pods_come_from_the_fresh_cache_and_the_rest_from_the_cluster() -> None:
    cluster = FakeCluster()
    cluster.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "listed"}})
    cached_node = {"metadata": {"name": "cached"}}
    pods = [pod("running", "Running"), pod("done", "Succeeded"), pod("waiting", "Pending")]
    cache = StubCache(Held([cached_node]), Held(pods))
    reads = CachedReads(cluster, cast(ClusterCache, cache))

    assert reads.list("Node") == [cached_node]
    active = reads.list("Pod", None, field_selector=ACTIVE_PODS)
    assert [p["metadata"]["name"] for p in active] == ["running", "waiting"]
    assert cluster.calls == []
    assert [n["metadata"]["name"] for n in reads.list("Node", label_selector="x")] == []
    assert reads.list("Pod", "a") == []  # one namespace: the cluster's answer
    assert cluster.calls == [("list", "Node", ""), ("list", "Pod", "")]

    cache.stale = "the watch of Node is down"
    assert [n["metadata"]["name"] for n in reads.list("Node")] == ["listed"]
