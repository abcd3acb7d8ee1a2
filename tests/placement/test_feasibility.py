"""Feasibility, pure: each reason a request could never run, at its field, with its fix."""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl.placement.feasibility import NodeFacts, PoolFacts, Request, refusals


def node(name: str, gpus: int, gpu_type: str = "A100-80G", pool: str = "", **extra: str) -> Any:
    labels = {c.Labels.GPU_TYPE_USER: gpu_type, **({c.Labels.POOL: pool} if pool else {})}
    capacity = {"nvidia.com/gpu": str(gpus), **extra}
    return {"metadata": {"name": name, "labels": labels}, "status": {"allocatable": capacity}}


def ask(**fields: Any) -> Request:
    base: dict[str, Any] = {
        "pool": c.DEFAULT_POOL,
        "gpu_type": None,
        "resource": "nvidia.com/gpu",
        "gpus": 1,
        "share_gib": 0,
        "pods": 1,
        "distinct": False,
        "namespace": "alice",
    }
    return Request(**(base | fields))


NODES = NodeFacts([node("a", 8), node("b", 4, "T4", "infer"), node("c", 8, "H100", "train")])


def words(found: list[Any]) -> list[tuple[str, str, str]]:
    return [(".".join(r.field), r.message, r.hint) for r in found]


def test_what_fits_on_the_empty_cluster_is_never_refused() -> None:
    assert refusals(ask(gpus=8), NODES, None) == []
    assert (
        refusals(ask(pool="train", gpus=8, gpu_type="H100"), NODES, PoolFacts("train", True)) == []
    )


def test_a_pool_that_does_not_exist_suggests_the_nearest() -> None:
    (found,) = words(refusals(ask(pool="trian"), NODES, PoolFacts("trian", False)))
    assert found == (
        "resources.pool",
        "pool trian does not exist (pools: infer, train; default is the nodes in no pool)",
        "did you mean train?",
    )


def test_a_type_of_another_pool_names_that_pool() -> None:
    (found,) = words(refusals(ask(gpu_type="H100"), NODES, None))
    assert found[0] == "resources.gpu-type"
    assert found[1] == (
        "no node in default-pool (the nodes in no pool) has GPU type 'H100' (types there: A100-80G)"
    )
    assert found[2].startswith("nodes of that type are in pool train")


def test_too_many_distinct_nodes_is_refused_at_node_count() -> None:
    (found,) = words(refusals(ask(gpus=4, pods=3, distinct=True), NODES, None))
    assert found[0] == "resources.node_count"
    assert "3 pods need a node each with 4 nvidia.com/gpu" in found[1]


def test_a_cap_or_a_quota_below_the_request() -> None:
    capped = refusals(ask(pool="train", gpus=8, pods=1), NODES, PoolFacts("train", True, cap=4))
    assert "more than pool train's cap of 4 (max-gpus)" in capped[0].message
    quota = {"requests.nvidia.com/gpu": "4"}
    (found,) = words(refusals(ask(gpus=4, pods=2), NODES, None, quota))
    assert found[:2] == (
        "resources.gpu",
        "namespace alice's quota allows 4 nvidia.com/gpu in all, and the job asks for 8",
    )
    assert refusals(ask(gpus=4), NODES, None, quota) == []


def test_a_share_must_fit_one_gpu_of_a_sharing_node() -> None:
    sharing = NodeFacts([node("s", 4, **{c.GPU_SHARE_RESOURCE: "64"}), node("w", 8)])
    assert refusals(ask(gpus=0, share_gib=16, resource=None), sharing, None) == []
    (found,) = words(refusals(ask(gpus=0, share_gib=20, resource=None), sharing, None))
    assert found[0] == "resources.gpu-share"
    assert "share at most 16Gi each (s)" in found[1]
    (none,) = words(refusals(ask(gpus=0, share_gib=1, resource=None), NODES, None))
    assert "offers shared GPU memory" in none[1]
