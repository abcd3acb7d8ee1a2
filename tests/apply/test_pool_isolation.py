"""Pool isolation on the `cluster` fixture (the sandbox, and the local real control plane with
kube-scheduler): an isolated pool's nodes carry the taint runwhere.ai/pool=<pool>:NoSchedule,
written with the pool label; only the pool's jobs (which tolerate it) land there; a job without
a pool runs on nodes in no pool; a plain Pod without the toleration stays off."""

from __future__ import annotations

import json
from typing import Any

import yaml

from gpuctl import constants as c
from tests.conftest import run_gpuctl
from tests.support.sandbox import Cluster, SandboxCluster

from .test_cluster_scenarios import pods, training, wait
from .test_scenarios import gpuctl


def pool_file(pool: str, node: str, isolation: str = "") -> str:
    extra = f"isolation: {isolation}\n" if isolation else ""
    return f"kind: pool\nversion: v0.1\nmetadata: {{name: {pool}}}\n{extra}nodes:\n  {node}: {{}}\n"


def gpu_node(cluster: Cluster, on_shared_cluster: str) -> tuple[str, str]:
    """(a GPU node, its GPU type) that no other test uses: each sandbox is the test's own; the
    local control plane is shared by the session's tests, and only examples/sandbox's nodes
    node4 and gpu-a10-0 are left to these."""
    name = "gpu-t4-0" if isinstance(cluster, SandboxCluster) else on_shared_cluster
    return name, node(cluster, name)["metadata"]["labels"][c.Labels.GPU_TYPE]


def taint_of(pool: str) -> dict[str, str]:
    return {"key": c.POOL_TAINT_KEY, "value": pool, "effect": "NoSchedule"}


def in_pool(name: str, pool: str, gpu_type: str) -> str:
    spec = training(name, 1, gpu_type)
    return spec.replace("resources:\n", f"resources:\n  pool: {pool}\n")


def plain_pod(name: str, node_name: str) -> str:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "nodeSelector": {c.Labels.HOSTNAME: node_name},
            "containers": [{"name": "main", "image": "busybox:1.36", "command": ["sleep", "600"]}],
        },
    }
    return yaml.safe_dump(pod)


def node(cluster: Cluster, name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(
        cluster.kubectl("get", "node", name, "-o", "json", namespaced=False).stdout
    )
    return found


def pool_taints(cluster: Cluster, name: str) -> list[dict[str, Any]]:
    taints = node(cluster, name)["spec"].get("taints") or []
    return [t for t in taints if t.get("key") == c.POOL_TAINT_KEY]


def unschedulable(pod: dict[str, Any]) -> str:
    """The scheduler's message for a pod it could not place; "" while it has said nothing."""
    for condition in pod.get("status", {}).get("conditions") or []:
        if condition["type"] == "PodScheduled" and condition["status"] == "False":
            return str(condition.get("message", ""))
    return ""


def the_pod(cluster: Cluster, name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(cluster.kubectl("get", "pod", name, "-o", "json").stdout)
    return found


def test_an_isolated_pool_takes_only_its_own_jobs(cluster: Cluster) -> None:
    name, gpu_type = gpu_node(cluster, "node4")
    spec = pool_file("iso-pool", name)
    # a node labelled by a gpuctl that did not taint yet: the next apply taints it
    cluster.kubectl("label", "node", name, f"{c.Labels.POOL}=iso-pool", namespaced=False)
    applied = gpuctl(cluster, "apply", "-f", "-", stdin=spec)
    assert applied.returncode == 0, applied.stderr
    assert f"node/{name} tainted" in applied.stdout.splitlines(), applied.stdout
    assert pool_taints(cluster, name) == [taint_of("iso-pool")]
    try:
        # no node outside the pool has its GPU type: create refuses the job that names no pool
        refused = gpuctl(cluster, "create", "-f", "-", stdin=training("no-pool", 1, gpu_type))
        assert refused.returncode == 1
        assert "resources.gpu-type: no node in default-pool" in refused.stderr.splitlines()[0]
        assert "nodes of that type are in pool iso-pool" in refused.stderr
        # --allow-pending accepts it, and the pool's taint keeps it off the pool's node
        outside = gpuctl(
            cluster, "create", "-f", "-", "--allow-pending", stdin=training("no-pool", 1, gpu_type)
        )
        assert outside.returncode == 0, outside.stderr
        cluster.kubectl("apply", "-f", "-", input=plain_pod("plain-on-pool", name))
        inside = gpuctl(cluster, "create", "-f", "-", stdin=in_pool("pooled", "iso-pool", gpu_type))
        assert inside.returncode == 0, inside.stderr

        placed = wait(
            lambda: [p for p in pods(cluster, "pooled") if p["spec"].get("nodeName")],
            90,
            "the pool's job scheduled",
        )
        assert {p["spec"]["nodeName"] for p in placed} == {name}
        waiting = wait(
            lambda: [p for p in pods(cluster, "no-pool") if unschedulable(p)],
            90,
            "the scheduler to give up on the job without a pool",
        )
        assert not waiting[0]["spec"].get("nodeName")
        message = wait(
            lambda: unschedulable(the_pod(cluster, "plain-on-pool")),
            90,
            "the scheduler to give up on the plain pod",
        )
        assert "untolerated taint {runwhere.ai/pool: iso-pool}" in message, message
        assert not the_pod(cluster, "plain-on-pool")["spec"].get("nodeName")
    finally:
        gone = gpuctl(cluster, "delete", "-f", "-", stdin=spec)
        assert gone.returncode == 0, gone.stderr
    assert pool_taints(cluster, name) == []
    assert c.Labels.POOL not in node(cluster, name)["metadata"].get("labels", {})


def test_a_shared_pool_leaves_its_nodes_untainted(cluster: Cluster) -> None:
    name, _ = gpu_node(cluster, "gpu-a10-0")
    shared, isolated = pool_file("shared-pool", name, "shared"), pool_file("shared-pool", name)
    created = gpuctl(cluster, "create", "-f", "-", stdin=shared)
    assert created.returncode == 0, created.stderr
    try:
        assert pool_taints(cluster, name) == []
        now_isolated = gpuctl(cluster, "apply", "-f", "-", stdin=isolated)
        assert now_isolated.returncode == 0, now_isolated.stderr
        assert f"node/{name} tainted" in now_isolated.stdout.splitlines(), now_isolated.stdout
        assert pool_taints(cluster, name) == [taint_of("shared-pool")]
        again = gpuctl(cluster, "apply", "-f", "-", stdin=shared)
        assert f"node/{name} untainted" in again.stdout.splitlines(), again.stdout
        assert pool_taints(cluster, name) == []
        now_isolated = gpuctl(cluster, "apply", "-f", "-", stdin=isolated)
        assert pool_taints(cluster, name) == [taint_of("shared-pool")]
        removed = run_gpuctl(
            cluster, "remove", "node", name, "--pool", "shared-pool", namespaced=False
        )
        assert removed.returncode == 0, removed.stderr
        assert pool_taints(cluster, name) == []  # the label and the taint go together
    finally:
        gpuctl(cluster, "delete", "-f", "-", stdin=shared)
    assert pool_taints(cluster, name) == []
