"""What render makes of pools and their jobs where the cluster has Kueue (Options.kueue_pools
not None): a pool's ResourceFlavor and ClusterQueue (pinned by reviewed YAML snapshots), and
the queue label on the training jobs of a pool that is a ClusterQueue."""

from __future__ import annotations

from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options

from .conftest import EXAMPLES
from .test_examples import snapshot_yaml  # noqa: F401  (the fixture)

CAPPED_POOL = """kind: pool
version: v0.1
metadata: {name: capped, description: "8 GPUs at most"}
gpu-types: [A100, MI300X]
max-gpus: 8
isolation: shared
nodes:
  node1: {}
"""


def _render(text: str, options: Options) -> list[engine.Manifest]:
    return engine.render_documents(load_text("test.yaml", text), options)


def _kinds(manifests: list[engine.Manifest]) -> list[str]:
    return [m.kind for m in manifests]


def test_a_pool_renders_its_kueue_objects_only_where_kueue_is(snapshot_yaml: Any) -> None:  # noqa: F811
    text = (EXAMPLES / "pool.yaml").read_text()
    without = _render(text, Options())
    assert "ClusterQueue" not in _kinds(without)
    with_kueue = _render(text, Options(kueue="v1beta1"))
    assert _kinds(with_kueue) == ["Namespace", "ResourceFlavor", "ClusterQueue", "ConfigMap"]
    records = [m.obj["data"] for m in (*without, *with_kueue) if m.kind == "ConfigMap"]
    assert [record.get(c.POOL_KUEUE_KEY) for record in records] == [None, "true"]
    assert engine.to_yaml(with_kueue) == snapshot_yaml


def test_a_capped_pools_gpu_quota_is_its_cap_for_its_types_resources() -> None:
    manifests = _render(CAPPED_POOL, Options(kueue="v1beta1"))
    flavor = next(m.obj for m in manifests if m.kind == "ResourceFlavor")
    assert flavor["spec"] == {"nodeLabels": {c.Labels.POOL: "capped"}}  # shared: no toleration
    queue = next(m.obj for m in manifests if m.kind == "ClusterQueue")
    (group,) = queue["spec"]["resourceGroups"]
    covered = ["cpu", "memory", "amd.com/gpu", "nvidia.com/gpu", c.GPU_SHARE_RESOURCE]
    assert group["coveredResources"] == covered
    quotas = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert quotas["nvidia.com/gpu"] == quotas["amd.com/gpu"] == "8"
    # a gpu-share job is admitted: its GPU memory is covered, not capped
    assert quotas[c.GPU_SHARE_RESOURCE] == c.KUEUE_UNBOUNDED_QUOTA["gpu"]
    assert quotas["cpu"] == c.KUEUE_UNBOUNDED_QUOTA["cpu"]


def _job_labels(options: Options) -> dict[str, str]:
    text = (EXAMPLES / "training.yaml").read_text()
    job = next(m.obj for m in _render(text, options) if m.kind == "Job")
    labels: dict[str, str] = job["metadata"]["labels"]
    assert job["spec"].get("suspend") is (True if c.KUEUE_QUEUE_LABEL in labels else None)
    return labels


def test_a_job_queues_to_its_pool_only_when_the_pool_is_a_cluster_queue() -> None:
    assert c.KUEUE_QUEUE_LABEL not in _job_labels(Options())
    assert c.KUEUE_QUEUE_LABEL not in _job_labels(Options(kueue_pools=frozenset({"other"})))
    queued = _job_labels(Options(kueue_pools=frozenset({"training-pool"})))
    assert queued[c.KUEUE_QUEUE_LABEL] == "training-pool"


def test_resources_queue_wins_over_the_pools_queue() -> None:
    text = (EXAMPLES / "training.yaml").read_text()
    spec = yaml.safe_load(text)
    spec["resources"]["queue"] = "team"
    manifests = _render(yaml.safe_dump(spec), Options(kueue_pools=frozenset({"training-pool"})))
    job = next(m.obj for m in manifests if m.kind == "Job")
    assert job["metadata"]["labels"][c.KUEUE_QUEUE_LABEL] == "team"


def test_the_local_queue_points_at_the_pools_cluster_queue() -> None:
    queue = engine.render_local_queue("training-pool", "alice", "v1beta2").obj
    assert (queue["kind"], queue["metadata"]["namespace"]) == ("LocalQueue", "alice")
    assert queue["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    assert queue["spec"] == {"clusterQueue": "training-pool"}


def test_a_queued_multi_node_job_has_no_start_barrier(snapshot_yaml: Any) -> None:  # noqa: F811
    text = (EXAMPLES / "training-distributed.yaml").read_text()

    def pod_spec(options: Options) -> dict[str, Any]:
        job = next(m for m in _render(text, options) if m.kind == "Job")
        spec: dict[str, Any] = job.obj["spec"]["template"]["spec"]
        return spec

    barrier = [i["name"] for i in pod_spec(Options()).get("initContainers", [])]
    assert barrier == [c.START_BARRIER_CONTAINER]
    queued = Options(kueue_pools=frozenset({"training-pool"}))
    assert "initContainers" not in pod_spec(queued)
    assert engine.to_yaml(_render(text, queued)) == snapshot_yaml
