"""Which Kueue API version gpuctl speaks is read from the cluster's API discovery, once a
connection: v1beta2 where served (Kueue v0.15+), else v1beta1; a cluster serving neither has
no Kueue for gpuctl. On the sandbox, with Kueue's three CRDs serving the versions each test
chooses: a pool's ResourceFlavor and ClusterQueue, a namespace's LocalQueue and their deletion
all go through the version chosen."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuctl import constants as c
from gpuctl.cluster.fake import FakeCluster
from gpuctl.cluster.resources import kueue_version
from gpuctl.inventory.kueue import served_kueue_version
from tests.conftest import run_gpuctl
from tests.support.sandbox import SandboxCluster

POOL = """kind: pool
version: v0.1
metadata: {name: queued}
max-gpus: 8
nodes:
  gpu-a100-0: {}
"""

TRAINING = """kind: training
version: v0.1
job: {name: q1}
environment: {image: busybox:1.36, command: ["sh", "-c", "sleep 60"]}
resources: {pool: queued, gpu: 1, cpu: 1, memory: 1Gi}
"""

KINDS = {"ResourceFlavor": "Cluster", "ClusterQueue": "Cluster", "LocalQueue": "Namespaced"}


def kueue_crds(versions: tuple[str, ...]) -> dict[str, Any]:
    """Kueue's CRDs for the kinds gpuctl writes, serving `versions` (the first stored)."""
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    items = [
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{kind.lower()}s.{c.KUEUE_GROUP}"},
            "spec": {
                "group": c.KUEUE_GROUP,
                "scope": scope,
                "names": {"plural": f"{kind.lower()}s", "singular": kind.lower(), "kind": kind},
                "versions": [
                    {"name": v, "served": True, "storage": v == versions[0], "schema": schema}
                    for v in versions
                ],
            },
        }
        for kind, scope in KINDS.items()
    ]
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _at(sandbox: SandboxCluster, version: str, kind: str, name: str) -> dict[str, Any] | None:
    resource = f"{kind.lower()}s.{version}.{c.KUEUE_GROUP}"
    done = sandbox.kubectl("get", resource, name, "-o", "json", check=False)
    return json.loads(done.stdout) if done.returncode == 0 else None


def _discovery(sandbox: SandboxCluster) -> int:
    return sum(1 for r in sandbox.requests if r.path == f"/apis/{c.KUEUE_GROUP}")


@pytest.mark.parametrize(
    ("served", "used"),
    [(("v1beta2",), "v1beta2"), (("v1beta2", "v1beta1"), "v1beta2"), (("v1beta1",), "v1beta1")],
)
def test_kueue_objects_go_through_the_version_the_cluster_prefers(
    sandbox: SandboxCluster, served: tuple[str, ...], used: str
) -> None:
    sandbox.kubectl("create", "--validate=false", "-f", "-", input=json.dumps(kueue_crds(served)))
    before = _discovery(sandbox)
    made = run_gpuctl(sandbox, "create", "-f", "-", stdin=POOL)
    assert made.returncode == 0, made.stderr
    assert _discovery(sandbox) - before == 1  # one discovery request a command
    assert "clusterqueue.kueue.x-k8s.io/queued created" in made.stdout
    queue = _at(sandbox, used, "ClusterQueue", "queued")
    assert queue is not None and queue["apiVersion"] == f"{c.KUEUE_GROUP}/{used}"
    quotas = queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {"name": "nvidia.com/gpu", "nominalQuota": "8"} in quotas
    flavor = _at(sandbox, used, "ResourceFlavor", c.KUEUE_FLAVOR_PREFIX + "queued")
    assert flavor is not None and flavor["spec"]["nodeLabels"] == {c.Labels.POOL: "queued"}

    job = run_gpuctl(sandbox, "create", "-f", "-", stdin=TRAINING)
    assert job.returncode == 0, job.stderr
    assert "localqueue.kueue.x-k8s.io/queued created" in job.stdout
    local = _at(sandbox, used, "LocalQueue", "queued")
    assert local is not None and local["spec"] == {"clusterQueue": "queued"}

    gone = run_gpuctl(sandbox, "delete", "-f", "-", stdin=POOL)
    assert gone.returncode == 0, gone.stderr
    assert "localqueue.kueue.x-k8s.io/queued deleted" in gone.stdout
    assert _at(sandbox, used, "ClusterQueue", "queued") is None
    assert _at(sandbox, used, "LocalQueue", "queued") is None


def test_a_cluster_serving_no_supported_kueue_version_has_no_kueue(
    sandbox: SandboxCluster,
) -> None:
    sandbox.kubectl(
        "create", "--validate=false", "-f", "-", input=json.dumps(kueue_crds(("v1alpha9",)))
    )
    made = run_gpuctl(sandbox, "create", "-f", "-", stdin=POOL)
    assert made.returncode == 0, made.stderr
    assert "kueue" not in made.stdout


def test_the_preferred_version_is_the_first_supported_one_served() -> None:
    assert kueue_version(["v1beta1", "v1beta2"]) == "v1beta2"
    assert kueue_version(["v1beta1"]) == "v1beta1"
    assert kueue_version(["v1alpha1"]) is None
    assert kueue_version([]) is None
    cluster = FakeCluster()
    cluster.served[c.KUEUE_GROUP] = ("v1beta2",)
    assert served_kueue_version(cluster) == "v1beta2"
    cluster.served[c.KUEUE_GROUP] = ()
    assert served_kueue_version(cluster) is None
