"""The LocalQueues create and apply make for jobs queued to their pool's ClusterQueue: one per
(pool, namespace), only when missing, and a warning (not an error: the job exists) when one
cannot be made."""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.errors import Forbidden
from gpuctl.cluster.fake import FakeCluster
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs import kueue_queues
from gpuctl.verbs.common import DryRun

TRAINING = """kind: training
version: v0.1
job: {{name: {name}}}
environment: {{image: busybox:1.36}}
resources: {{pool: {pool}, gpu: 1, cpu: 1, memory: 1Gi}}
"""


def _jobs(*specs: tuple[str, str], namespace: str = "alice") -> list[engine.Manifest]:
    text = "---\n".join(TRAINING.format(name=name, pool=pool) for name, pool in specs)
    options = Options(namespace=namespace, kueue_pools=frozenset({"train"}))
    return engine.render_documents(load_text("jobs.yaml", text), options)


def test_one_local_queue_per_pool_and_namespace_only_when_missing() -> None:
    cluster = FakeCluster()
    manifests = _jobs(("a", "train"), ("b", "train"), ("c", "other"))
    made = kueue_queues.ensure(cluster, manifests, DryRun.NONE)
    assert made.lines() == ["localqueue.kueue.x-k8s.io/train created"]
    queue = cluster.get("LocalQueue", "train", "alice")
    assert queue["spec"] == {"clusterQueue": "train"}
    assert queue["metadata"]["labels"][c.Labels.POOL] == "train"
    again = kueue_queues.ensure(cluster, manifests, DryRun.NONE)
    assert again.lines() == [] and again.ok


class NoLocalQueues(FakeCluster):
    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        if obj["kind"] == "LocalQueue":
            raise Forbidden("localqueues is forbidden", status=403)
        return super().create(obj, dry_run=dry_run)


def test_a_local_queue_that_cannot_be_made_is_a_warning_naming_what_follows() -> None:
    result = kueue_queues.ensure(NoLocalQueues(), _jobs(("a", "train")), DryRun.NONE)
    assert result.ok and result.lines() == []
    assert result.warnings == [
        "localqueue.kueue.x-k8s.io/train in namespace alice could not be created (localqueues "
        "is forbidden): the jobs of pool train in alice stay Queued until an administrator "
        "creates it"
    ]
