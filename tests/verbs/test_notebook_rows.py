"""`get notebook`'s row on the in-process FakeCluster: the GPU count is the live pod's (not the
StatefulSet template's, which a scale may have changed before the pod was replaced) and the
address goes through the node the pod is on (not another node's)."""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl.cli.views import notebooks
from gpuctl.cluster.fake import FakeCluster

LABELS = {
    c.Labels.JOB_TYPE: "notebook",
    c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE,
    c.Labels.APP: "nb",
}


def node(name: str, address: str) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"addresses": [{"type": "InternalIP", "address": address}]},
    }


def with_gpus(gpus: int) -> dict[str, Any]:
    amounts = {c.GPU_RESOURCE: str(gpus)}
    return {"name": "nb", "image": "jupyter", "resources": {"requests": amounts, "limits": amounts}}


def test_a_notebook_row_shows_the_live_pods_gpus_and_the_address_of_its_node() -> None:
    fake = FakeCluster()
    statefulset = {
        "kind": "StatefulSet",
        "metadata": {"name": "nb", "namespace": "default", "labels": LABELS},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [with_gpus(2)]}}},
        "status": {"replicas": 1, "readyReplicas": 1},
    }
    pod = {
        "kind": "Pod",
        "metadata": {"name": "nb-0", "namespace": "default", "labels": LABELS},
        "spec": {"nodeName": "node-b", "containers": [with_gpus(1)]},
        "status": {"phase": "Running"},
    }
    service = {
        "kind": "Service",
        "metadata": {"name": c.SERVICE_PREFIX + "nb", "namespace": "default", "labels": LABELS},
        "spec": {"type": "NodePort", "ports": [{"port": 8888, "nodePort": 31000}]},
    }
    fake.add(node("node-a", "10.0.0.1"), node("node-b", "10.0.0.2"), statefulset, pod, service)
    [row] = notebooks.rows(fake, fake.list("StatefulSet", "default"))
    assert row[0] == "nb"
    assert row[2:4] == ["1", "http://10.0.0.2:31000"]
