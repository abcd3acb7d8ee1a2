"""Node labels and pool membership answer in the verbs' one shape, a VerbResult: one result a
node (kind Node, with kubectl's outcome), one error line a node that failed."""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.fake import FakeCluster
from gpuctl.verbs import node_labels, pool_labels
from gpuctl.verbs.common import VerbResult
from gpuctl.verbs.node_labels import LabelChange


def node(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def record(pool: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": c.POOL_CONFIGMAP_PREFIX + pool,
            "namespace": c.SYSTEM_NAMESPACE,
            "labels": {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE, c.Labels.POOL: pool},
        },
        "data": {"nodes": "{}"},
    }


def outcomes(result: VerbResult) -> list[tuple[str, str, str]]:
    return [(o.kind, o.name, o.outcome) for o in result.objects]


def test_label_nodes_gives_a_result_a_node_and_an_error_line_a_node() -> None:
    fake = FakeCluster()
    fake.add(node("a"), node("b", **{"g8s.host/rack": "r7"}))
    result = node_labels.label_nodes(
        fake, ["a", "b", "gone"], LabelChange("g8s.host/rack", "r7"), overwrite=False
    )
    assert isinstance(result, VerbResult)
    assert outcomes(result) == [("Node", "a", "labeled"), ("Node", "b", "not labeled")]
    assert result.lines() == ["node/a labeled", "node/b not labeled (already g8s.host/rack=r7)"]
    assert result.errors == ["node/gone not found"]
    assert fake.get("Node", "a")["metadata"]["labels"] == {"g8s.host/rack": "r7"}


def test_pool_membership_gives_a_result_a_node() -> None:
    fake = FakeCluster()
    fake.add(node("a"), node("b", **{c.Labels.POOL: "other"}), record("train"), record("other"))
    added = pool_labels.add_nodes(fake, "train", ["a", "b"], overwrite=True)
    assert isinstance(added, VerbResult) and added.ok
    assert added.lines() == [
        "node/a added to pool train",
        "node/b moved from pool other to pool train",
    ]
    removed = pool_labels.remove_nodes(fake, "train", ["a"])
    assert outcomes(removed) == [("Node", "a", "removed from pool train")]
    refused = pool_labels.remove_nodes(fake, "train", ["a"])
    assert refused.objects == []
    assert refused.errors == [
        "node/a is not in pool train (it is in no pool)",
        "nothing was changed in pool train",
    ]
