"""Nodes a test makes for itself: a pool of its own, so that what it waits for on the
scheduler never depends on the pods of the tests running beside it on the same cluster (the
local control plane is shared by every xdist worker).

A pool node carries the pool label and the pool's isolation taint, as `gpuctl add node`
leaves it: only the pool's jobs (which tolerate the taint) land there, and no other test's
pod is on it when it is deleted."""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterator
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.client import Cluster as GpuctlCluster
from gpuctl.cluster.errors import KubeError
from tests.support.sandbox import Cluster, wait_for

READY_TIMEOUT = 60.0  # seconds for kwok (or the sandbox) to report a new node Ready


def pool_name(cluster: Cluster, prefix: str) -> str:
    """A pool name no other test uses: the prefix and the test namespace's tail."""
    return f"{prefix}-" + cluster.namespace[-8:].strip("-").lower()


def pool_node(
    name: str,
    pool: str | None,
    gpus: int,
    *,
    resource: str = "nvidia.com/gpu",
    labels: dict[str, str] | None = None,
    cpu: str = "2",
    memory: str = "4Gi",
) -> dict[str, Any]:
    """A Node of `pool` (None: of no pool, untainted) with `gpus` devices of `resource` (none
    when 0), Ready from the start (the sandbox has no kubelet to report it; kwok does on the
    local control plane)."""
    capacity = {"cpu": cpu, "memory": memory, "pods": "20"} | (
        {resource: str(gpus)} if gpus else {}
    )
    pool_label = {c.Labels.POOL: pool} if pool else {}
    taint = {"key": c.POOL_TAINT_KEY, "value": pool, "effect": c.POOL_TAINT_EFFECT}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, **pool_label, **(labels or {})},
        },
        "spec": {"taints": [taint] if pool else []},
        "status": {
            "capacity": capacity,
            "allocatable": capacity,
            "conditions": [{"type": "Ready", "status": "True"}],
            # an address from TEST-NET-1 (RFC 5737): shown, never contacted
            "addresses": [
                {"type": "InternalIP", "address": f"192.0.2.{zlib.crc32(name.encode()) % 254 + 1}"}
            ],
        },
    }


def ready(node: dict[str, Any]) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(cond["type"] == "Ready" and cond["status"] == "True" for cond in conditions)


@contextlib.contextmanager
def nodes_made(cluster: Cluster, nodes: list[dict[str, Any]]) -> Iterator[list[str]]:
    """Create `nodes`, wait until each is Ready, yield their names; afterwards delete the
    test's Jobs (so no pod is left on a node that is going) and the nodes."""
    client = GpuctlCluster.connect(str(cluster.kubeconfig))
    names = [node["metadata"]["name"] for node in nodes]
    try:
        for node in nodes:
            client.create(node)
        for name in names:
            wait_for(
                lambda n=name: ready(client.get("Node", n)),  # type: ignore[misc]
                timeout=READY_TIMEOUT,
                interval=0.2,
                what=f"node {name} Ready",
            )
        yield names
    finally:
        cluster.kubectl("delete", "job", "--all", "--wait=false", check=False)
        for name in names:
            with contextlib.suppress(KubeError):
                client.delete("Node", name)
