"""The watched caches on the sandbox: listed once, then kept current by watch events; nodes
and pods slimmed to what placement reads."""

from __future__ import annotations

from gpuctl.cluster.cache import Informer, Watched
from gpuctl.cluster.client import Cluster
from gpuctl.controller.cache import slim_node, slim_pod
from gpuctl.controller.view import view_of
from gpuctl.controller.workload import WORKLOAD_LABEL
from gpuctl.placement.capacity import node_gpus
from tests.controller.conftest import workload
from tests.placement.test_strategies import node, pinned_pod
from tests.support.sandbox import SandboxCluster, wait_for


def names(informer: Informer) -> set[str]:
    return {obj["metadata"]["name"] for obj in informer.objects()}


def test_an_informer_lists_then_follows_adds_changes_and_deletes(sandbox: SandboxCluster) -> None:
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    informer = Informer(cluster, Watched("ConfigMap", "default", "team=a"))
    cluster.create(_config_map("before", "a"))
    try:
        informer.start()
        assert informer.synced.wait(10)
        wait_for(lambda: names(informer) == {"before"}, what="the listed object")
        cluster.create(_config_map("after", "a"))
        cluster.create(_config_map("other-team", "b"))  # outside the label selector
        wait_for(lambda: names(informer) == {"before", "after"}, what="the added object")
        cluster.patch("ConfigMap", "after", "default", {"data": {"k": "v2"}})
        wait_for(
            lambda: (informer.get("default", "after") or {}).get("data") == {"k": "v2"},
            what="the change",
        )
        cluster.delete("ConfigMap", "before", "default")
        wait_for(lambda: names(informer) == {"after"}, what="the deletion")
    finally:
        informer.stop()


def test_a_kind_the_server_does_not_serve_is_held_empty(sandbox: SandboxCluster) -> None:
    """GPUWorkloads before their CRD is installed: synced, holding nothing (no thread dies)."""
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    informer = Informer(cluster, Watched("GPUWorkload", "default"))
    try:
        informer.start()
        assert informer.synced.wait(10)
        assert informer.objects() == []
    finally:
        informer.stop()


def _config_map(name: str, team: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default", "labels": {"team": team}},
        "data": {"k": "v1"},
    }


def test_slim_nodes_and_pods_give_placement_the_same_gpus(sandbox: SandboxCluster) -> None:
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    cluster.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {
                "nodeName": "big",
                "containers": [
                    {
                        "name": "main",
                        "image": "busybox:1.36",
                        "resources": {"limits": {"nvidia.com/gpu": "3"}},
                    }
                ],
            },
        }
    )
    nodes, pods = cluster.list("Node"), cluster.list("Pod", None)
    full = node_gpus(nodes, pods)
    slim = node_gpus([slim_node(n) for n in nodes], [slim_pod(p) for p in pods])
    assert slim == full
    assert {entry.name: entry.used for entry in slim}["big"] == 3


def test_a_placed_workload_counts_once_whether_its_pod_exists_or_not() -> None:
    """Scheduled on a with no pod yet: promised; its pod made but not bound: counted through
    the pod's pin; bound: through nodeName. Four GPUs used on a at every step, and none once
    the pod has finished (the workload stays Scheduled)."""
    placed = workload("w", 4)
    placed["status"] = {"phase": "Scheduled", "assignedNode": "a"}
    pod = pinned_pod(["a"], 4)
    pod["metadata"] = {"name": "w-x", "namespace": "default", "labels": {WORKLOAD_LABEL: "w"}}
    bound = {**pod, "spec": {**pod["spec"], "nodeName": "a"}, "status": {"phase": "Running"}}
    for pods in ([], [pod], [bound]):
        view = view_of([node("a", 8)], [slim_pod(p) for p in pods], [placed])
        assert [(n.name, n.used) for n in view.capacity.nodes] == [("a", 4)], pods
    finished = {**bound, "status": {"phase": "Succeeded"}}
    view = view_of([node("a", 8)], [slim_pod(finished)], [placed])
    assert [(n.name, n.used) for n in view.capacity.nodes] == [("a", 0)]


def test_an_informer_tells_its_handlers_each_change(sandbox: SandboxCluster) -> None:
    """What feeds the controller's work queue: the list's objects, then each watch event; a
    list again tells DELETED for what it no longer holds."""
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    informer = Informer(cluster, Watched("ConfigMap", "default", "team=a"))
    told: list[tuple[str, str]] = []
    informer.handlers.append(lambda event, obj: told.append((event, obj["metadata"]["name"])))
    cluster.create(_config_map("before", "a"))
    try:
        informer.start()
        wait_for(lambda: told == [("ADDED", "before")], what="the listed object")
        cluster.create(_config_map("after", "a"))
        cluster.create(_config_map("other-team", "b"))  # outside the label selector
        cluster.patch("ConfigMap", "after", "default", {"data": {"k": "v2"}})
        cluster.delete("ConfigMap", "before", "default", propagation="Background")
        wait_for(lambda: len(told) == 4, what="three more changes")
        assert told[1:] == [("ADDED", "after"), ("MODIFIED", "after"), ("DELETED", "before")]
    finally:
        informer.stop()
    informer.replace_all([])  # as a list again that finds nothing would
    assert told[4:] == [("DELETED", "after")]
