"""resources.placement at create/apply time, on the in-process FakeCluster: the pool and GPU
type narrow the nodes, the strategy picks, the pod template is pinned by required node
affinity, several pods get several nodes, a refusal writes nothing, apply keeps a pin that
still fits, and a pool file of the same run counts."""

from __future__ import annotations

import random
from typing import Any

import pytest

from gpuctl import constants as c
from gpuctl.cluster.fake import FakeCluster
from gpuctl.errors import SpecError
from gpuctl.placement.affinity import may_run_on
from gpuctl.placement.capacity import HOSTNAME_LABEL, pinned_nodes
from gpuctl.render import engine
from gpuctl.render.engine import Manifest
from gpuctl.spec.check import check_documents
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.common import DryRun
from gpuctl.verbs.create import Create
from gpuctl.verbs.diff import Diff
from gpuctl.verbs.errors import ApplyFailed, Unschedulable

TRAINING = """kind: training
version: v0.1
job: {{name: ft}}
environment: {{image: busybox:1.36}}
resources:
  gpu: {gpus}
  cpu: 1
  memory: 1Gi
  placement: {strategy}
{extra}"""


def render(text: str) -> list[Manifest]:
    return engine.render_documents(load_text("spec.yaml", text), Options())


def training(gpus: int, strategy: str, extra: str = "") -> list[Manifest]:
    return render(TRAINING.format(gpus=gpus, strategy=strategy, extra=extra))


def node(name: str, gpus: int, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {HOSTNAME_LABEL: name, **labels}},
        "spec": {},
        "status": {
            "allocatable": {c.GPU_RESOURCE: str(gpus)},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod(name: str, node_name: str, gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "other"},
        "spec": {
            "nodeName": node_name,
            "containers": [{"name": "c", "resources": {"limits": {c.GPU_RESOURCE: str(gpus)}}}],
        },
        "status": {"phase": "Running"},
    }


def cluster() -> FakeCluster:
    """Free GPUs: big 8 of 8, mid 4 of 8 (cheap), small 2 of 4 (cheap)."""
    fake = FakeCluster()
    fake.add(
        node("big", 8),
        node("mid", 8, **{"gpu-orchestrator/cheap-node": "true"}),
        node("small", 4, **{"gpu-orchestrator/cheap-node": "true"}),
        pod("p1", "mid", 4),
        pod("p2", "small", 2),
    )
    return fake


def job_in(fake: FakeCluster, name: str = "ft") -> dict[str, Any]:
    return fake.get("Job", name, "default")


def pins(job: dict[str, Any]) -> list[str]:
    return pinned_nodes(job["spec"]["template"]["spec"])


@pytest.mark.parametrize(
    ("strategy", "gpus", "expected"),
    [
        ("leastLoaded", 2, "big"),
        ("binpack", 2, "small"),
        ("binpack", 3, "mid"),
        ("costOptimized", 2, "mid"),
        ("costOptimized", 5, "big"),
        ("random", 6, "big"),
    ],
)
def test_create_pins_the_job_to_the_node_its_strategy_picks(
    strategy: str, gpus: int, expected: str
) -> None:
    fake = cluster()
    result = Create(fake).run(training(gpus, strategy))
    job = job_in(fake)
    assert pins(job) == [expected]
    assert "nodeName" not in job["spec"]["template"]["spec"]
    assert job["metadata"]["annotations"][c.PLACEMENT_ANNOTATION] == strategy
    (line,) = [line for line in result.lines() if line.startswith("job.batch/ft")]
    assert line.startswith(f"job.batch/ft created on node {expected} ({strategy}: ")


def test_random_draws_with_the_given_seed_among_nodes_that_fit() -> None:
    drawn = set()
    for seed in range(20):
        fake = cluster()
        Create(fake, rng=random.Random(seed)).run(training(2, "random"))
        drawn.add(pins(job_in(fake))[0])
    assert drawn == {"big", "mid", "small"}
    again = [cluster(), cluster()]
    for fake in again:
        Create(fake, rng=random.Random(7)).run(training(2, "random"))
    assert pins(job_in(again[0])) == pins(job_in(again[1]))


def test_the_pin_is_added_to_every_gpu_type_term() -> None:
    fake = cluster()
    fake.add(node("typed", 2, **{c.Labels.GPU_TYPE: "A100"}))
    Create(fake).run(training(2, "leastLoaded", "  gpu-type: A100\n"))
    terms = job_in(fake)["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    pinned = {"key": HOSTNAME_LABEL, "operator": "In", "values": ["typed"]}
    in_no_pool = {"key": c.Labels.POOL, "operator": "DoesNotExist"}  # a job without a pool
    assert [term["matchExpressions"] for term in terms] == [
        [{"key": key, "operator": "In", "values": ["A100"]}, in_no_pool, pinned]
        for key in c.GPU_TYPE_NODE_LABELS
    ]


TEAM_A100 = "  pool: team\n  gpu-type: A100\n"


def test_only_nodes_of_the_pool_and_gpu_type_are_candidates() -> None:
    fake = cluster()
    fake.add(node("typed", 2, **{c.Labels.POOL: "team", c.Labels.GPU_TYPE_USER: "A100"}))
    fake.add(node("other", 8, **{c.Labels.POOL: "team", c.Labels.GPU_TYPE_USER: "T4"}))
    Create(fake).run(training(1, "leastLoaded", TEAM_A100))
    assert pins(job_in(fake)) == ["typed"]
    another = TRAINING.replace("{{name: ft}}", "{{name: ft-2}}")  # ft exists: create refuses it
    bigger = render(another.format(gpus=3, strategy="leastLoaded", extra=TEAM_A100))
    with pytest.raises(Unschedulable) as refused:  # the 8-GPU node is a T4: not a candidate
        Create(fake).run(bigger)
    assert "more than any node in pool team with GPU type A100 has: the largest, typed, has 2" in (
        str(refused.value)
    )
    fake.add(node("busy", 4, **{c.Labels.POOL: "team", c.Labels.GPU_TYPE_USER: "A100"}))
    fake.add(pod("p3", "busy", 3))
    with pytest.raises(ApplyFailed) as busy:  # possible, but not now: the strategy says why
        Create(fake).run(bigger)
    assert "found no node for 1 pod of 3 GPU(s) in pool team with GPU type A100: " in str(
        busy.value
    )


def test_may_run_on_follows_the_schedulers_node_affinity_rules() -> None:
    spec = {
        "nodeSelector": {"pool": "a"},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "t", "operator": "In", "values": ["x"]}]},
                        {"matchExpressions": [{"key": "u", "operator": "Exists"}]},
                    ]
                }
            }
        },
    }
    assert may_run_on(spec, node("n", 1, pool="a", t="x"))
    assert may_run_on(spec, node("n", 1, pool="a", u="1"))
    assert not may_run_on(spec, node("n", 1, pool="a", t="y"))
    assert not may_run_on(spec, node("n", 1, pool="b", t="x"))


def test_no_node_fits_refuses_and_writes_nothing() -> None:
    fake = cluster()
    fake.add(pod("p3", "big", 4))  # possible on the empty cluster, not on this busy one
    with pytest.raises(ApplyFailed) as refused:
        Create(fake).run(training(5, "binpack"))
    assert str(refused.value) == (
        "nothing was created: job.batch/ft: binpack found no node for 1 pod of 5 GPU(s) in the "
        "cluster: no Ready, schedulable node has 5 free GPU(s) (the most free on one node: 4); "
        "its GPU nodes: big (4 of 8 GPUs free), mid (4 of 8 GPUs free), small (2 of 4 GPUs free)"
    )
    assert fake.writes() == []


def test_a_pod_larger_than_every_node_is_unschedulable_and_writes_nothing() -> None:
    fake = cluster()
    with pytest.raises(Unschedulable) as refused:
        Create(fake).run(training(9, "binpack"))
    assert str(refused.value) == (
        "spec.yaml:6:8: resources.gpu: a pod asks for 9 nvidia.com/gpu, more than any node in "
        "default-pool (the nodes in no pool) has: the largest, big, has 8 (split it over "
        "nodes: node_count: 2 with gpu: 8)\n"
        "nothing was created: no node could ever run this as asked"
    )
    assert fake.writes() == []
    Create(fake, allow_pending=False).run(training(8, "binpack"))  # the largest node holds 8


def test_a_multi_node_run_gets_distinct_nodes() -> None:
    fake = cluster()
    Create(fake).run(training(4, "leastLoaded", "  node_count: 2\n"))
    assert pins(job_in(fake)) == ["big", "mid"]
    with pytest.raises(ApplyFailed, match="after placing 2 of 3 pods"):
        Create(cluster()).run(training(4, "leastLoaded", "  node_count: 3\n"))


def test_replicas_may_share_a_node_with_room_for_both() -> None:
    text = """kind: inference
version: v0.1
job: {name: chat}
environment: {image: vllm/vllm-openai:v0.6.0}
service: {replicas: 2, port: 8000}
resources: {gpu: 2, cpu: 1, memory: 1Gi, placement: binpack}
"""
    fake = cluster()
    result = Create(fake).run(render(text))
    deployment = fake.get("Deployment", "chat", "default")
    assert pins(deployment) == ["small", "mid"]
    assert "deployment.apps/chat created on nodes small, mid (binpack: small: " in "\n".join(
        result.lines()
    )


def test_two_jobs_of_one_run_do_not_both_take_the_same_gpus() -> None:
    fake = cluster()
    specs = TRAINING.format(gpus=2, strategy="binpack", extra="")
    both = render(specs + "---\n" + specs.replace("ft}", "ft2}"))
    Create(fake).run(both)
    assert (pins(job_in(fake)), pins(job_in(fake, "ft2"))) == (["small"], ["mid"])


def test_a_pending_pod_pinned_to_a_node_holds_its_gpus() -> None:
    fake = cluster()
    Create(fake).run(training(2, "binpack"))
    pending = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "ft-x", "namespace": "default", "labels": {}},
        "spec": job_in(fake)["spec"]["template"]["spec"],  # pinned to small, not bound yet
        "status": {"phase": "Pending"},
    }
    fake.add(pending)
    second = TRAINING.format(gpus=2, strategy="binpack", extra="").replace("ft}", "ft2}")
    Create(fake).run(render(second))
    assert pins(job_in(fake, "ft2")) == ["mid"]


def test_apply_keeps_a_live_pin_that_still_fits_and_diff_shows_none() -> None:
    fake = cluster()
    Apply(fake).run(training(2, "leastLoaded"))
    assert pins(job_in(fake)) == ["big"]
    fake.add(pod("p3", "big", 5))  # big: 1 free besides ft's own 2; mid now has the most free
    again = Apply(fake).run(training(2, "leastLoaded"))
    assert again.lines() == [
        "job.batch/ft unchanged on node big (kept from the live Job: leastLoaded placed it "
        "there and it still fits)"
    ]
    assert not Diff(fake).run(training(2, "leastLoaded")).differs


def test_apply_places_again_when_the_pin_no_longer_fits_or_the_strategy_changed() -> None:
    fake = cluster()
    Apply(fake).run(training(2, "leastLoaded"))
    fake.add(pod("p3", "big", 7))  # big: 1 free, ft needs 2 (its own pod does not exist here)
    diff = Diff(fake).run(training(2, "leastLoaded")).text
    assert "-                - big\n+                - mid\n" in diff
    assert Apply(fake, dry_run=DryRun.SERVER).run(training(2, "leastLoaded")).lines() == [
        "job.batch/ft replaced (server dry run) on node mid (leastLoaded: 4 of 8 GPUs free)"
    ]
    assert pins(job_in(fake)) == ["big"]  # a dry run writes nothing
    Apply(fake).run(training(2, "binpack"))
    assert pins(job_in(fake)) == ["small"]


def test_a_pool_file_of_the_same_run_counts() -> None:
    fake = cluster()
    pool = "kind: pool\nversion: v0.1\nmetadata: {name: fresh}\nnodes:\n  mid: {gpu-type: A100}\n"
    job = TRAINING.format(gpus=1, strategy="leastLoaded", extra="  pool: fresh\n")
    work = load_text("spec.yaml", pool + "---\n" + job)
    specs = check_documents(work)
    manifests = engine.render_specs(specs, Options())
    diff = Diff(fake, engine.node_labels(specs)).run(manifests).text
    assert "+                - mid\n" in diff
    Create(fake, node_labels=engine.node_labels(specs)).run(manifests)
    assert pins(job_in(fake)) == ["mid"]  # big has more free GPUs, but is not in the pool


def test_placement_without_gpus_is_a_spec_error() -> None:
    with pytest.raises(SpecError, match=r"resources\.placement: placement picks a node"):
        training(0, "binpack")


def test_a_notebook_statefulset_is_pinned_too() -> None:
    text = """kind: notebook
version: v0.1
job: {name: nb}
environment: {image: jupyter/base-notebook:2024-01-01}
service: {port: 8888}
resources: {gpu: 1, cpu: 1, memory: 1Gi, placement: costOptimized}
"""
    fake = cluster()
    result = Create(fake).run(render(text))
    assert pins(fake.get("StatefulSet", "nb", "default")) == ["mid"]
    assert "statefulset.apps/nb created on node mid (costOptimized: cheap node, " in "\n".join(
        result.lines()
    )


def test_a_placement_made_holds_its_gpus_before_its_pods_exist() -> None:
    fake = cluster()  # no controller here: the Jobs never get pods
    Create(fake).run(training(8, "binpack"))
    assert pins(job_in(fake)) == ["big"]
    second = render(
        TRAINING.format(gpus=4, strategy="binpack", extra="").replace("name: ft", "name: ft2")
    )
    Create(fake).run(second)
    assert pins(job_in(fake, "ft2")) == ["mid"]  # big's 8 are the first job's, pods or not
    with pytest.raises(ApplyFailed, match="found no node for 1 pod of 8 GPU"):
        third = TRAINING.format(gpus=8, strategy="binpack", extra="").replace(
            "name: ft", "name: ft3"
        )
        Create(fake).run(render(third))
