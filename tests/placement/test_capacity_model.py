"""The capacity model over generated clusters (nodes of several vendors, types and pools,
isolated or shared, Ready or not; pods with whole GPUs and shares): `controller plan` names
the node `controller run` picks; a job is refused as infeasible exactly when no node of the
empty cluster could hold it; the pool views' sums are the model's."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuctl import constants as c
from gpuctl.cluster.fake import FakeCluster
from gpuctl.controller import view
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.reconcile import Reconciler
from gpuctl.controller.workload import Workload
from gpuctl.inventory.pools import Inventory
from gpuctl.placement.affinity import may_run_on, one_pod_per_node
from gpuctl.placement.capacity import node_gpus, node_total_gpus
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs.preflight import check_placement
from gpuctl.workloads import pod_spec_of
from tests.controller.conftest import workload

VENDORS = {
    "nvidia.com/gpu": ("A100-80G", "H100"),
    "amd.com/gpu": ("MI300X",),
    "huawei.com/Ascend910": ("Ascend910B",),
}
POOLS = (None, "a", "b")
STRATEGIES = ("leastLoaded", "binpack", "costOptimized", "random")


@st.composite
def nodes(draw: st.DrawFn) -> list[dict[str, Any]]:
    made = []
    for index in range(draw(st.integers(1, 6))):
        name = f"n{index}"
        resource = draw(st.sampled_from(sorted(VENDORS)))
        gpus = draw(st.integers(0, 8))
        labels = {
            c.Labels.HOSTNAME: name,
            c.Labels.GPU_TYPE_USER: draw(st.sampled_from(VENDORS[resource])),
        }
        if draw(st.booleans()):
            labels[c.Labels.CHEAP_NODE] = "true"
        pool = draw(st.sampled_from(POOLS))
        taints = []
        if pool:
            labels[c.Labels.POOL] = pool
            if draw(st.booleans()):  # an isolated pool's node carries its taint
                taints.append({"key": c.POOL_TAINT_KEY, "value": pool, "effect": "NoSchedule"})
        capacity = {"cpu": "64", "memory": "512Gi", resource: str(gpus)}
        if resource == "nvidia.com/gpu" and gpus and draw(st.booleans()):
            capacity[c.GPU_SHARE_RESOURCE] = str(16 * gpus)
        ready = draw(st.booleans()) or index == 0
        made.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "spec": {"taints": taints},
                "status": {
                    "capacity": capacity,
                    "allocatable": capacity,
                    "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                },
            }
        )
    return made


@st.composite
def pods(draw: st.DrawFn, on: list[dict[str, Any]]) -> list[dict[str, Any]]:
    made = []
    for index in range(draw(st.integers(0, 6))):
        node = draw(st.sampled_from(on))
        capacity = node["status"]["capacity"]
        resource = next(name for name in VENDORS if name in capacity)
        if c.GPU_SHARE_RESOURCE in capacity and draw(st.booleans()):
            limits = {c.GPU_SHARE_RESOURCE: str(draw(st.integers(1, 16)))}
        else:
            limits = {resource: str(draw(st.integers(0, 4)))}
        labels = {}
        if node["metadata"]["labels"].get(c.Labels.POOL):
            labels[c.Labels.POOL] = node["metadata"]["labels"][c.Labels.POOL]
        made.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"p{index}", "namespace": "other", "labels": labels},
                "spec": {
                    "nodeName": node["metadata"]["name"],
                    "containers": [{"name": "c", "resources": {"limits": limits}}],
                },
                "status": {"phase": "Running"},
            }
        )
    return made


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    made = draw(nodes())
    return made, draw(pods(made))


def fake_with(objects: list[dict[str, Any]]) -> FakeCluster:
    fake = FakeCluster()
    fake.add(*objects)
    return fake


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cluster=clusters(),
    asks=st.lists(
        st.tuples(st.integers(1, 8), st.sampled_from(STRATEGIES)), min_size=1, max_size=3
    ),
    seed=st.integers(0, 1000),
)
def test_plan_names_the_node_run_picks(
    cluster: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    asks: list[tuple[int, str]],
    seed: int,
) -> None:
    node_objects, pod_objects = cluster
    fake = fake_with([*node_objects, *pod_objects])
    objects = [workload(f"w{i}", gpus, strategy) for i, (gpus, strategy) in enumerate(asks)]
    gpus = view.read_cluster(fake, None)
    planned = view.plan(gpus, [Workload.of(obj) for obj in objects], random.Random(seed))
    run = Reconciler(fake, Metrics(), rng=random.Random(seed), snapshot_seconds=0)
    for obj, placement in zip(objects, planned, strict=True):
        obj["metadata"]["generation"] = 1
        run.reconcile(fake.create(obj))
        status = fake.get(obj["kind"], obj["metadata"]["name"], "default").get("status") or {}
        chosen = placement.chosen.name if placement.chosen else None
        assert status.get("assignedNode") == chosen


TRAINING = """kind: training
version: v0.1
job: {{name: ft, namespace: team}}
environment: {{image: python:3.11, command: [python, t.py]}}
resources:
  cpu: 1
  memory: 1Gi
  gpu: {gpus}
  node_count: {count}
{extra}"""


def _fits_on_empty(node_objects: list[dict[str, Any]], manifest: engine.Manifest) -> bool:
    """The oracle: could the empty cluster hold every pod of the job (the nodes its pod
    template may use, each with its devices of the job's resource, one pod per node when the
    template says so)?"""
    pod_spec = pod_spec_of(manifest.obj)
    resource = next(
        iter(pod_spec["containers"][0]["resources"]["limits"].keys() - {"cpu", "memory"})
    )
    wanted = int(pod_spec["containers"][0]["resources"]["limits"][resource])
    pods = manifest.obj["spec"].get("parallelism") or 1
    room = [
        node_total_gpus(node, resource)[0] // wanted
        for node in node_objects
        if may_run_on(pod_spec, node)
    ]
    if one_pod_per_node(pod_spec):
        return sum(1 for places in room if places >= 1) >= pods
    return sum(room) >= pods


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cluster=clusters(),
    gpus=st.integers(1, 10),
    count=st.integers(1, 3),
    pool=st.sampled_from(POOLS),
    gpu_type=st.sampled_from((None, "A100-80G", "H100", "MI300X", "Ascend910B", "B200")),
)
def test_a_job_is_refused_exactly_when_the_empty_cluster_could_not_hold_it(
    cluster: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    gpus: int,
    count: int,
    pool: str | None,
    gpu_type: str | None,
) -> None:
    node_objects, pod_objects = cluster
    extra = (f"  pool: {pool}\n" if pool else "") + (
        f"  gpu-type: {gpu_type}\n" if gpu_type else ""
    )
    text = TRAINING.format(gpus=gpus, count=count, extra=extra)
    manifests = engine.render_documents(load_text("spec.yaml", text), Options())
    job = next(m for m in manifests if m.kind == "Job")
    placement = check_placement(fake_with([*node_objects, *pod_objects]), manifests)
    assert (not placement.infeasible) == _fits_on_empty(node_objects, job), placement.infeasible


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster=clusters())
def test_the_pool_views_sum_the_models_usage(
    cluster: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    node_objects, pod_objects = cluster
    inventory = Inventory.read(fake_with([*node_objects, *pod_objects]))
    model = {n.name: n for n in node_gpus(node_objects, pod_objects)}
    for pool in inventory.pools():
        total, used = inventory.gpus(pool)
        assert total == sum(model[name].gpus for name in pool.members)
        assert used == sum(model[name].used for name in pool.members)
        summary = inventory.summary(pool)
        assert (summary["gpuTotal"], summary["gpuUsed"]) == (total, used)
