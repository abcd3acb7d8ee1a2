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
from tests.support.sandbox import Cluster

from .test_cluster_scenarios import pods, training, wait
from .test_scenarios import gpuctl

NODE = "gpu-t4-0"  # the one T4 node of both clusters
POOL_FILE = f"""kind: pool
version: v0.1
metadata: {{name: iso-pool}}
nodes:
  {NODE}: {{}}
"""
POOL_TAINT = {"key": c.POOL_TAINT_KEY, "value": "iso-pool", "effect": "NoSchedule"}


def in_pool(name: str) -> str:
    return training(name, 1, "T4-16G").replace("resources:\n", "resources:\n  pool: iso-pool\n")


def plain_pod(name: str) -> str:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "nodeSelector": {c.Labels.HOSTNAME: NODE},
            "containers": [{"name": "main", "image": "busybox:1.36", "command": ["sleep", "600"]}],
        },
    }
    return yaml.safe_dump(pod)


def node(cluster: Cluster) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(
        cluster.kubectl("get", "node", NODE, "-o", "json", namespaced=False).stdout
    )
    return found


def pool_taints(cluster: Cluster) -> list[dict[str, Any]]:
    taints = node(cluster)["spec"].get("taints") or []
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
    # a node labelled by a gpuctl that did not taint yet: the next apply taints it
    cluster.kubectl("label", "node", NODE, f"{c.Labels.POOL}=iso-pool", namespaced=False)
    applied = gpuctl(cluster, "apply", "-f", "-", stdin=POOL_FILE)
    assert applied.returncode == 0, applied.stderr
    assert f"node/{NODE} tainted" in applied.stdout.splitlines(), applied.stdout
    assert pool_taints(cluster) == [POOL_TAINT]
    try:
        outside = gpuctl(cluster, "create", "-f", "-", stdin=training("no-pool-t4", 1, "T4-16G"))
        assert outside.returncode == 0, outside.stderr
        cluster.kubectl("apply", "-f", "-", input=plain_pod("plain-on-pool"))
        inside = gpuctl(cluster, "create", "-f", "-", stdin=in_pool("pool-t4"))
        assert inside.returncode == 0, inside.stderr

        placed = wait(
            lambda: [p for p in pods(cluster, "pool-t4") if p["spec"].get("nodeName")],
            90,
            "the pool's job scheduled",
        )
        assert {p["spec"]["nodeName"] for p in placed} == {NODE}
        waiting = wait(
            lambda: [p for p in pods(cluster, "no-pool-t4") if unschedulable(p)],
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
        gone = gpuctl(cluster, "delete", "-f", "-", stdin=POOL_FILE)
        assert gone.returncode == 0, gone.stderr
    assert pool_taints(cluster) == []
    assert c.Labels.POOL not in node(cluster)["metadata"].get("labels", {})


def test_a_shared_pool_leaves_its_nodes_untainted(cluster: Cluster) -> None:
    shared = POOL_FILE + "isolation: shared\n"
    created = gpuctl(cluster, "create", "-f", "-", stdin=shared)
    assert created.returncode == 0, created.stderr
    try:
        assert pool_taints(cluster) == []
        isolated = gpuctl(cluster, "apply", "-f", "-", stdin=POOL_FILE)
        assert isolated.returncode == 0, isolated.stderr
        assert f"node/{NODE} tainted" in isolated.stdout.splitlines(), isolated.stdout
        assert pool_taints(cluster) == [POOL_TAINT]
        again = gpuctl(cluster, "apply", "-f", "-", stdin=shared)
        assert f"node/{NODE} untainted" in again.stdout.splitlines(), again.stdout
        assert pool_taints(cluster) == []
        added = run_gpuctl(cluster, "remove", "node", NODE, "--pool", "iso-pool", namespaced=False)
        assert added.returncode == 0, added.stderr
    finally:
        gpuctl(cluster, "delete", "-f", "-", stdin=shared)
    assert pool_taints(cluster) == []
