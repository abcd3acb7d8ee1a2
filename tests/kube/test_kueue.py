"""`resources.queue` with the real Kueue (tests/kube/kueue.py) on the local control plane: a
job the queue has no room for stays Queued with its GPUs untouched, and starts once the job
holding the quota is gone. The jobs run in a pool of one 8-GPU node of the test's own, so the
GPUs Kueue lets them use are never held by another test's pods."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from tests.apply.test_scenarios import gpuctl
from tests.conftest import GPUCTL
from tests.support.nodes import nodes_made, pool_name, pool_node
from tests.support.sandbox import Cluster

pytestmark = pytest.mark.kube

SPEC = """kind: training
version: v0.1
job:
  name: {name}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 600"]
resources:
  pool: {pool}
  gpu: {gpu}
  cpu: 1
  memory: 1Gi
  queue: team
"""


def _queues(namespace: str) -> list[dict[str, Any]]:
    """A flavor, a ClusterQueue of 8 GPUs for this test's namespace only, its LocalQueue."""
    flavor, cluster_queue = f"flavor-{namespace}", f"gpus-{namespace}"
    group = "kueue.x-k8s.io/v1beta1"
    return [
        {"apiVersion": group, "kind": "ResourceFlavor", "metadata": {"name": flavor}},
        {
            "apiVersion": group,
            "kind": "ClusterQueue",
            "metadata": {"name": cluster_queue},
            "spec": {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                        "flavors": [
                            {
                                "name": flavor,
                                "resources": [
                                    {"name": "cpu", "nominalQuota": "16"},
                                    {"name": "memory", "nominalQuota": "64Gi"},
                                    {"name": "nvidia.com/gpu", "nominalQuota": "8"},
                                ],
                            }
                        ],
                    }
                ],
            },
        },
        {
            "apiVersion": group,
            "kind": "LocalQueue",
            "metadata": {"name": "team", "namespace": namespace},
            "spec": {"clusterQueue": cluster_queue},
        },
    ]


@pytest.fixture
def queued(kueue_local: Cluster) -> Iterator[Cluster]:
    local = kueue_local
    pool = pool_name(local, "kueue")
    with nodes_made(local, [pool_node(f"{pool}-0", pool, 8)]):
        made = _queues(local.namespace)
        local.kubectl(
            "apply",
            "-f",
            "-",
            input=json.dumps({"kind": "List", "apiVersion": "v1", "items": made}),
        )
        yield local
        for obj in made[:2]:
            local.kubectl(
                "delete", obj["kind"], obj["metadata"]["name"], "--wait=false", check=False
            )


def _wait(predicate: Callable[[], Any], what: str, timeout: float = 180) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def _status(cluster: Cluster, name: str) -> str:
    rows = gpuctl(cluster, "get", "jobs", "--no-headers").stdout.splitlines()
    return next((row.split()[3] for row in rows if row.split()[0] == name), "")


def _holding_the_quota(cluster: Cluster) -> None:
    """Job `first`, as gpuctl renders it, with its pod kept Running by kwok (which otherwise
    ends a Job's pod after 5-15 s), so that it holds the queue's 8 GPUs until deleted."""
    rendered = subprocess.run(
        [str(GPUCTL), "render", "-f", "-"],
        input=SPEC.format(name="first", gpu=8, pool=_pool(cluster)),
        capture_output=True,
        text=True,
        check=True,
    )
    # the PriorityClasses render prints first are installed on the plane already
    objects = [o for o in yaml.safe_load_all(rendered.stdout) if o["kind"] != "PriorityClass"]
    for obj in objects:
        obj["metadata"]["namespace"] = cluster.namespace
    job = next(obj for obj in objects if obj["kind"] == "Job")
    keep = {f"pod-complete.stage.kwok.x-k8s.io/{key}": "1h" for key in ("delay", "jitter-delay")}
    job["spec"]["template"]["metadata"].setdefault("annotations", {}).update(keep)
    listed = {"apiVersion": "v1", "kind": "List", "items": objects}
    cluster.kubectl("create", "-f", "-", input=json.dumps(listed))


def test_kueue_starts_a_queued_job_once_the_quota_has_room(queued: Cluster) -> None:
    _holding_the_quota(queued)
    _wait(lambda: _status(queued, "first") == "Running", "Kueue to admit first")

    second = gpuctl(
        queued, "create", "-f", "-", stdin=SPEC.format(name="second", gpu=4, pool=_pool(queued))
    )
    assert second.returncode == 0, second.stderr
    _wait(lambda: _workload(queued, "second"), "Kueue's Workload of second")
    # Kueue tried and found no room (8 + 4 > 8). Its event says so for good; the Workload's
    # QuotaReserved condition can be cleared again when Kueue updates the Workload to match
    # the suspended Job, and is then not set until the queue changes.
    _wait(lambda: _quota_refused(queued), "Kueue to try second")
    assert _conditions(queued, "second").get("Admitted") != "True"
    assert _status(queued, "second") == "Queued"
    described = gpuctl(queued, "describe", "job", "second").stdout
    assert "waiting for Kueue to admit it from queue team" in described
    pods = queued.kubectl("get", "pods", "-l", "job-name=second", "-o", "name").stdout
    assert pods == ""  # suspended: no pod holds a GPU

    gone = gpuctl(queued, "delete", "job", "first", "--wait")
    assert gone.returncode == 0, gone.stderr
    _wait(lambda: _conditions(queued, "second").get("Admitted") == "True", "Kueue to admit second")
    # its pod runs (and, on a kwok node, ends 5-15 s later: a slow poll may see it Succeeded)
    _wait(lambda: _status(queued, "second") in ("Running", "Succeeded"), "second to run")


def _pool(cluster: Cluster) -> str:
    return pool_name(cluster, "kueue")


def _quota_refused(cluster: Cluster) -> bool:
    """Kueue's Pending event on a Workload: no room in the queue's quota."""
    found = cluster.kubectl(
        "get",
        "events",
        "--field-selector",
        "reason=Pending,involvedObject.kind=Workload",
        "-o",
        "json",
    )
    events = json.loads(found.stdout)["items"]
    return any("insufficient unused quota" in event.get("message", "") for event in events)


def _workload(cluster: Cluster, job: str) -> dict[str, Any] | None:
    listed = json.loads(cluster.kubectl("get", "workloads", "-o", "json").stdout)["items"]
    owned = [
        w
        for w in listed
        if any(o.get("name") == job for o in w["metadata"].get("ownerReferences") or [])
    ]
    return owned[0] if owned else None


def _conditions(cluster: Cluster, job: str) -> dict[str, str]:
    found = _workload(cluster, job) or {}
    return {c["type"]: c["status"] for c in (found.get("status") or {}).get("conditions") or []}
