"""The PriorityClasses at create and apply time, against the in-process FakeCluster: a
missing class is installed when the caller may, else left out of the pod template with a
warning; a live workload created without a class keeps none."""

from __future__ import annotations

from typing import Any

from gpuctl.cluster.errors import Forbidden
from gpuctl.cluster.fake import FakeCluster
from gpuctl.render import engine
from gpuctl.render.engine import Manifest
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.common import LIST_AT, DryRun, read_live
from gpuctl.verbs.create import Create
from gpuctl.verbs.diff import Diff

TRAINING = """kind: training
version: v0.1
job:
  name: ft
  priority: {priority}
environment:
  image: busybox:1.36
resources:
  gpu: 1
  cpu: 1
  memory: 1Gi
"""


def render(priority: str = "high", options: Options | None = None) -> list[Manifest]:
    text = TRAINING.format(priority=priority)
    return engine.render_documents(load_text("spec.yaml", text), options or Options())


def pod_class(cluster: FakeCluster, name: str = "ft") -> Any:
    job = cluster.get("Job", name, "default")
    return job["spec"]["template"]["spec"].get("priorityClassName")


class NoClusterScope(FakeCluster):
    """A user whose RBAC covers only their namespace: cluster-scoped classes are out of
    reach (`readable`: they may still list them)."""

    def __init__(self, readable: bool) -> None:
        super().__init__()
        self.readable = readable

    def list(self, kind: str, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if kind == "PriorityClass" and not self.readable:
            raise Forbidden('cannot list resource "priorityclasses"')
        return super().list(kind, *args, **kwargs)

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        if obj["kind"] == "PriorityClass":
            raise Forbidden('cannot create resource "priorityclasses"')
        return super().create(obj, dry_run=dry_run)


def test_create_installs_the_missing_class_and_the_pods_name_it() -> None:
    cluster = FakeCluster()
    result = Create(cluster).run(render("low"))
    assert result.ok, result.errors
    assert result.lines()[0] == "priorityclass.scheduling.k8s.io/gpuctl-low created"
    assert pod_class(cluster) == "gpuctl-low"
    made = cluster.get("PriorityClass", "gpuctl-low")
    assert (made["value"], made["preemptionPolicy"]) == (100, "Never")
    assert not result.warnings


def test_a_class_that_exists_is_not_created_again() -> None:
    cluster = FakeCluster()
    for manifest in engine.render_priority_classes():
        cluster.add(manifest.obj)
    result = Create(cluster).run(render("high"))
    assert not any("priorityclass" in line for line in result.lines())
    assert pod_class(cluster) == "gpuctl-high"


def test_a_user_who_may_not_create_classes_gets_the_job_without_one() -> None:
    cluster = NoClusterScope(readable=True)
    result = Create(cluster).run(render("high"))
    assert result.ok, result.errors
    assert pod_class(cluster) is None
    assert result.warnings == [
        "job/ft: its pods run without priorityClassName gpuctl-high (it does not exist and "
        "you may not create it); its priority takes effect once the classes are installed: an "
        "administrator installs them with `gpuctl priority-classes install`"
    ]


def test_classes_that_cannot_be_read_are_left_out() -> None:
    cluster = NoClusterScope(readable=False)
    result = Apply(cluster).run(render("medium"))
    assert result.ok, result.errors
    assert pod_class(cluster) is None
    assert "you may not read PriorityClasses" in result.warnings[0]


def test_a_dry_run_creates_no_class() -> None:
    cluster = FakeCluster()
    result = Apply(cluster, DryRun.CLIENT).run(render("high"))
    assert cluster.find("PriorityClass", "gpuctl-high") is None
    assert "a dry run creates nothing" in result.warnings[0]


def test_apply_keeps_a_live_job_without_a_class_as_it_is() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render("high", Options(priority_classes=False)))
    assert pod_class(cluster) is None
    result = Apply(cluster).run(render("high"))
    assert "job.batch/ft unchanged" in result.lines()
    assert pod_class(cluster) is None


def test_diff_agrees_with_apply_on_a_live_job_without_a_class() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render("high", Options(priority_classes=False)))
    assert not Diff(cluster).run(render("high")).differs


def many(count: int, options: Options | None = None) -> list[Manifest]:
    text = "---\n".join(
        TRAINING.format(priority="high").replace("ft", f"ft-{i}") for i in range(count)
    )
    return engine.render_documents(load_text("spec.yaml", text), options or Options())


def test_a_re_apply_of_many_jobs_reads_them_by_kind_with_lists() -> None:
    """Past LIST_AT objects of one kind in one namespace, the live objects are listed, not
    read one by one (an unchanged re-apply of 1,000 jobs made 2,000 reads before)."""
    count = LIST_AT + 8
    cluster = FakeCluster()
    Apply(cluster).run(many(count - 1))
    Apply(cluster).run(many(1, Options(priority_classes=False))[:1])  # ft-0 without a class
    cluster.calls.clear()
    result = Apply(cluster).run(many(count))
    jobs_read = [call for call in cluster.calls if call[1] == "Job" and call[0] == "get"]
    assert jobs_read == [], jobs_read
    assert sum(1 for call in cluster.calls if call[:2] == ("list", "Job")) >= 1
    assert f"job.batch/ft-{count - 1} created" in result.lines()
    assert "job.batch/ft-1 unchanged" in result.lines()
    assert pod_class(cluster, "ft-0") is None  # its live Job has none, and keeps none
    assert pod_class(cluster, "ft-1") == "gpuctl-high"


class NoJobLists(FakeCluster):
    """A user who may get Jobs but not list them."""

    def list(self, kind: str, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if kind == "Job":
            raise Forbidden('cannot list resource "jobs"')
        return super().list(kind, *args, **kwargs)


def test_a_caller_who_may_not_list_reads_the_jobs_one_by_one() -> None:
    count = LIST_AT + 1
    cluster = NoJobLists()
    manifests = [m for m in many(count) if m.kind == "Job"]
    cluster.add(*(m.obj for m in manifests))
    live = read_live(cluster, manifests)
    assert all(live[m.identity] is not None for m in manifests)
    assert sum(1 for call in cluster.calls if call[:2] == ("get", "Job")) == count
