"""The verbs against the in-process FakeCluster: plan, prune, all-or-nothing create, delete
by identity label, locks, force, diff/apply agreement, pause of a finished job, preflight.
No HTTP: each test runs in milliseconds."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

from gpuctl import constants as c
from gpuctl.cluster.errors import AlreadyExists, Forbidden
from gpuctl.cluster.fake import FakeCluster
from gpuctl.cluster.lease import Lease
from gpuctl.inventory.jobs import JobNotFound
from gpuctl.render import engine
from gpuctl.render.engine import Manifest
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.times import micro_rfc3339
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.common import DryRun, VerbResult
from gpuctl.verbs.create import Create
from gpuctl.verbs.delete import Delete
from gpuctl.verbs.diff import Diff
from gpuctl.verbs.errors import ApplyFailed, LockTimeout, Unschedulable
from gpuctl.verbs.lease import LEASE_PREFIX, JobLocks
from gpuctl.verbs.pause import NotPausable, Pause, Resume
from gpuctl.verbs.plan import JOB_OBJECT_KINDS
from gpuctl.verbs.preflight import check_placement

INFERENCE = """kind: inference
version: v0.1
job:
  name: chat
environment:
  image: vllm/vllm-openai:v0.6.0
service:
  replicas: 1
  port: 8000
{autoscaling}resources:
  gpu: 1
  cpu: 8
  memory: 32Gi
"""
AUTOSCALING = """  autoscaling:
    min_replicas: 1
    max_replicas: 4
    gpu_utilization: 70
"""
TRAINING = """kind: training
version: v0.1
job:
  name: ft
environment:
  image: busybox:1.36
resources:
  gpu: 8
  cpu: 8
  memory: 32Gi
  node_count: {nodes}
{extra}"""


def render(text: str) -> list[Manifest]:
    """Without priorityClassName: these tests count the objects a run writes, and the
    PriorityClass a first run installs is tests/verbs/test_priorities.py's subject."""
    return engine.render_documents(load_text("spec.yaml", text), Options(priority_classes=False))


def kinds(cluster: FakeCluster) -> set[tuple[str, str]]:
    return {(kind, name) for kind, _, name in cluster.objects}


def test_dropping_autoscaling_prunes_the_hpa() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(INFERENCE.format(autoscaling=AUTOSCALING)))
    assert ("HorizontalPodAutoscaler", "chat") in kinds(cluster)
    result = Apply(cluster).run(render(INFERENCE.format(autoscaling="")))
    assert "horizontalpodautoscaler.autoscaling/chat pruned" in result.lines()
    assert ("HorizontalPodAutoscaler", "chat") not in kinds(cluster)
    assert ("Deployment", "chat") in kinds(cluster)


def test_two_nodes_to_one_prunes_the_headless_service() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(TRAINING.format(nodes=2, extra="")))
    assert ("Service", "ft") in kinds(cluster)
    result = Apply(cluster).run(render(TRAINING.format(nodes=1, extra="")))
    assert result.lines() == ["job.batch/ft replaced", "service/ft pruned"]
    assert kinds(cluster) == {("Job", "ft")}


def test_prune_leaves_other_jobs_and_unmanaged_objects_alone() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(TRAINING.format(nodes=2, extra="")))
    other = render(TRAINING.format(nodes=1, extra="").replace("name: ft", "name: other"))
    Apply(cluster).run(other)
    cluster.add(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "mine",
                "namespace": "default",
                "labels": {c.Labels.INSTANCE: "ft"},
            },
        }
    )
    Apply(cluster).run(render(TRAINING.format(nodes=1, extra="")))
    assert kinds(cluster) == {("Job", "ft"), ("Job", "other"), ("ConfigMap", "mine")}


def test_no_prune_keeps_what_the_render_dropped() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(TRAINING.format(nodes=2, extra="")))
    Apply(cluster, prune=False).run(render(TRAINING.format(nodes=1, extra="")))
    assert ("Service", "ft") in kinds(cluster)


def test_a_failed_prune_is_rolled_back() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(INFERENCE.format(autoscaling=AUTOSCALING)))
    before = {key: obj["metadata"]["annotations"] for key, obj in cluster.objects.items()}
    original_delete = cluster.delete

    def refuse_hpa(kind: str, name: str, namespace: str | None = None, **kw: Any) -> None:
        if kind == "HorizontalPodAutoscaler":
            from gpuctl.cluster.errors import Forbidden

            raise Forbidden("not allowed", status=403)
        original_delete(kind, name, namespace, **kw)

    cluster.delete = refuse_hpa  # type: ignore[method-assign]
    changed = INFERENCE.format(autoscaling="").replace("replicas: 1", "replicas: 2")
    with pytest.raises(ApplyFailed, match="rolled back"):
        Apply(cluster).run(render(changed))
    after = {key: obj["metadata"]["annotations"] for key, obj in cluster.objects.items()}
    assert after == before


def test_delete_job_finds_its_objects_by_the_identity_label() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(INFERENCE.format(autoscaling=AUTOSCALING)))
    result = Delete(cluster).job("chat", "default")
    assert result.lines() == [
        "horizontalpodautoscaler.autoscaling/chat deleted",
        "deployment.apps/chat deleted",
        "service/svc-chat deleted",
    ]
    assert cluster.objects == {}
    with pytest.raises(JobNotFound, match="no job named 'chat'"):
        Delete(cluster).job("chat", "default")


def test_create_is_all_or_nothing_across_documents() -> None:
    cluster = FakeCluster()
    foreign = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "ft"}, "spec": {}}
    cluster.create({**foreign, "metadata": {"name": "ft", "namespace": "default"}})
    both = render(INFERENCE.format(autoscaling="") + "---\n" + TRAINING.format(nodes=1, extra=""))
    result = Create(cluster).run(both)
    assert not result.ok and not result.objects
    assert "job.batch/ft: already exists (gpuctl apply replaces it)" in result.errors
    assert result.errors[-1].startswith("nothing was created (removed again: ")
    assert kinds(cluster) == {("Job", "ft")}


def test_create_refuses_a_job_that_exists_by_its_name_before_writing() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(TRAINING.format(nodes=1, extra="")))
    before = copy.deepcopy(cluster.objects)
    both = render(INFERENCE.format(autoscaling="") + "---\n" + TRAINING.format(nodes=1, extra=""))
    result = Create(cluster).run(both)
    assert result.errors == [
        "job ft already exists in namespace default: use apply to change it, or delete it first",
        "nothing was created",
    ]
    assert [type(cause) for cause in result.causes] == [AlreadyExists]  # REST: 409
    assert not result.objects and cluster.objects == before


def test_force_replaces_what_is_unchanged() -> None:
    cluster = FakeCluster()
    manifests = render(INFERENCE.format(autoscaling=""))
    Apply(cluster).run(manifests)
    uids = {key: obj["metadata"]["uid"] for key, obj in cluster.objects.items()}
    result = Apply(cluster, force=True).run(manifests)
    assert result.lines() == ["service/svc-chat replaced", "deployment.apps/chat replaced"]
    assert all(cluster.objects[key]["metadata"]["uid"] != uid for key, uid in uids.items())


def test_unchanged_apply_only_reads_and_takes_no_lock() -> None:
    cluster = FakeCluster()
    manifests = render(INFERENCE.format(autoscaling=AUTOSCALING))
    Apply(cluster).run(manifests)
    cluster.calls.clear()
    assert all(line.endswith("unchanged") for line in Apply(cluster).run(manifests).lines())
    assert cluster.writes() == []


def test_apply_takes_and_releases_the_jobs_lease() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(TRAINING.format(nodes=1, extra="")))
    assert ("create", "Lease", LEASE_PREFIX + "ft") in cluster.calls
    assert ("delete", "Lease", LEASE_PREFIX + "ft") in cluster.calls
    assert not any(kind == "Lease" for kind, _, _ in cluster.objects)


def _lease(holder: str, renewed: float | None, seconds: int = 60) -> dict[str, Any]:
    spec: dict[str, Any] = {"holderIdentity": holder, "leaseDurationSeconds": seconds}
    if renewed is not None:
        spec["renewTime"] = micro_rfc3339(renewed)
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": LEASE_PREFIX + "ft", "namespace": "default"},
        "spec": spec,
    }


def test_a_held_lease_makes_apply_wait_then_fail_naming_the_holder() -> None:
    cluster = FakeCluster()
    cluster.add(_lease("alice@laptop/1", time.time()))
    started = time.monotonic()
    with pytest.raises(LockTimeout, match=r"another gpuctl run \(alice@laptop/1\).*nothing was"):
        Apply(cluster, timeout=1.0).run(render(TRAINING.format(nodes=1, extra="")))
    assert time.monotonic() - started >= 1.0
    assert not any(kind == "Job" for kind, _, _ in cluster.objects)


def test_a_crashed_runs_lease_is_taken_over_after_its_duration_on_the_runs_own_clock() -> None:
    """Its renewTime, 10 minutes old, is not compared with this machine's clock (the two may
    disagree): the lease is taken once it went unchanged for its duration since first seen."""
    cluster = FakeCluster()
    cluster.add(_lease("gone@ci/1", time.time() - 600, seconds=1))
    locks = JobLocks(cluster, [("default", "ft")], time.monotonic() + 5)
    started = time.monotonic()
    with locks.held_for_run():
        assert time.monotonic() - started >= 1.0
        lease = cluster.get("Lease", LEASE_PREFIX + "ft", "default")
        assert lease["spec"]["holderIdentity"] == locks.holder
        assert lease["spec"]["leaseTransitions"] == 1


def test_a_run_longer_than_its_locks_duration_renews_it_and_deletes_it_at_the_end() -> None:
    cluster = FakeCluster()
    locks = JobLocks(cluster, [("default", "ft")], time.monotonic() + 1, lease_seconds=1)
    other = Lease(cluster, "default", LEASE_PREFIX + "ft", "other@ci/2", 1)
    with locks.held_for_run():
        until = time.monotonic() + 2.5  # two and a half durations
        while time.monotonic() < until:
            assert not other.try_acquire_or_renew(), "another run took a lock still in use"
            time.sleep(0.1)
    assert cluster.find("Lease", LEASE_PREFIX + "ft", "default") is None


def test_a_lease_without_a_renew_time_is_held_until_it_expires() -> None:
    """A Lease another tool wrote without a renewTime has a holder all the same."""
    cluster = FakeCluster()
    cluster.add(_lease("alice@laptop/1", None))
    locks = JobLocks(cluster, [("default", "ft")], time.monotonic() + 0.5)
    with pytest.raises(LockTimeout, match=r"alice@laptop/1"), locks.held_for_run():
        pass


def test_diff_and_apply_agree_on_kubectl_applied_render() -> None:
    """`gpuctl render | kubectl apply` leaves no fingerprint: same content is no change."""
    cluster = FakeCluster()
    manifests = render(INFERENCE.format(autoscaling=""))
    cluster.add(*[m.obj for m in manifests])
    assert not Diff(cluster).run(manifests).differs
    assert all(line.endswith("unchanged") for line in Apply(cluster).run(manifests).lines())


def test_diff_and_apply_agree_on_a_paused_deployment() -> None:
    cluster = FakeCluster()
    manifests = render(INFERENCE.format(autoscaling=""))
    Apply(cluster).run(manifests)
    Pause(cluster).run(cluster.get("Deployment", "chat", "default"))
    assert not Diff(cluster).run(manifests).differs
    assert Apply(cluster).run(manifests).lines()[-1] == "deployment.apps/chat unchanged"
    changed = render(INFERENCE.format(autoscaling="").replace("cpu: 8", "cpu: 4"))
    result = Diff(cluster).run(changed)
    assert result.differs and "-            cpu: '8'\n+            cpu: '4'" in result.text


def test_apply_keeps_annotations_it_did_not_write() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(INFERENCE.format(autoscaling="")))
    cluster.patch(
        "Deployment", "chat", "default", {"metadata": {"annotations": {"team/note": "keep me"}}}
    )
    Apply(cluster).run(render(INFERENCE.format(autoscaling="").replace("cpu: 8", "cpu: 4")))
    annotations = cluster.get("Deployment", "chat", "default")["metadata"]["annotations"]
    assert annotations["team/note"] == "keep me"


def test_diff_of_a_pruned_object_shows_it_going() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(render(TRAINING.format(nodes=2, extra="")))
    result = Diff(cluster).run(render(TRAINING.format(nodes=1, extra="")))
    assert "--- live/default/service/ft" in result.text
    assert "+++ rendered/default/service/ft" in result.text


def test_dry_runs_of_apply_write_nothing_not_even_a_lease() -> None:
    cluster = FakeCluster()
    Apply(cluster, dry_run=DryRun.SERVER).run(render(TRAINING.format(nodes=1, extra="")))
    assert cluster.writes() == []


def test_pause_and_resume_answer_a_verb_result_like_the_other_verbs() -> None:
    cluster = FakeCluster()
    Apply(cluster).run(
        render(INFERENCE.format(autoscaling="").replace("replicas: 1", "replicas: 2"))
    )
    paused = Pause(cluster).run(cluster.get("Deployment", "chat", "default"))
    assert isinstance(paused, VerbResult) and paused.ok
    assert paused.lines() == ["deployment.apps/chat paused (scaled from 2 to 0)"]
    again = Pause(cluster).run(cluster.get("Deployment", "chat", "default"))
    assert again.lines() == ["deployment.apps/chat is already paused"]
    resumed = Resume(cluster).run(cluster.get("Deployment", "chat", "default"))
    assert isinstance(resumed, VerbResult)
    assert resumed.lines() == ["deployment.apps/chat resumed (scaled to 2)"]
    assert cluster.get("Deployment", "chat", "default")["spec"]["replicas"] == 2


@pytest.mark.parametrize("state", ["succeeded", "failed"])
def test_a_finished_job_cannot_be_paused(state: str) -> None:
    job = render(TRAINING.format(nodes=1, extra=""))[0].obj | {"status": {state: 1}}
    with pytest.raises(NotPausable, match=f"has {state}"):
        Pause(FakeCluster()).run(job)


def _node(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def _infeasible(cluster: FakeCluster, manifests: list[Manifest]) -> list[str]:
    return [str(problem) for problem in check_placement(cluster, manifests).infeasible]


def test_preflight_refuses_what_no_node_could_hold_and_allow_pending_accepts_it() -> None:
    cluster = FakeCluster()
    cluster.add(_node("n1", {c.Labels.GPU_TYPE_USER: "a100-80g"}))
    pooled = render(TRAINING.format(nodes=1, extra="  pool: train\n"))
    assert _infeasible(cluster, pooled) == [
        "spec.yaml:12:9: resources.pool: pool train does not exist (pools: none; default is "
        "the nodes in no pool) (create it: a file with kind: pool, metadata.name: train and "
        "its nodes, then gpuctl create -f POOL.yaml)"
    ]
    empty_pool = render("kind: pool\nversion: v0.1\nmetadata: {name: train}\nnodes: {}\n")
    has_no_nodes = (
        "spec.yaml:12:9: resources.pool: pool train has no nodes (add one: gpuctl add node "
        "NODE --pool train)"
    )
    assert _infeasible(cluster, [*empty_pool, *pooled]) == [has_no_nodes]
    cluster.add(next(m.obj for m in empty_pool if m.kind == "ConfigMap"))
    assert _infeasible(cluster, pooled) == [has_no_nodes]
    accepted = check_placement(cluster, pooled, allow_pending=True)
    assert not accepted.infeasible and accepted.warnings == [
        f"{has_no_nodes} (accepted as pending was allowed: it stays Pending until this changes)"
    ]
    typed = render(TRAINING.format(nodes=1, extra="  gpu-type: A100-80G\n"))
    assert "'a100-80g' differs only in letter case" in _infeasible(cluster, typed)[0]
    with pytest.raises(Unschedulable, match="nothing was changed"):
        Apply(cluster).run(typed)
    assert not any(kind == "Job" for kind, _, _ in cluster.objects)
    unknown = render(TRAINING.format(nodes=1, extra="  gpu-type: H100\n"))
    assert (
        "no node has GPU type 'H100' (types that exist: a100-80g)"
        in (_infeasible(cluster, unknown)[0])
    )
    warnings = Apply(cluster, allow_pending=True).run(unknown).warnings
    assert "accepted as pending was allowed" in warnings[0]
    assert any(kind == "Job" for kind, _, _ in cluster.objects)


WORKDIR = "storage:\n  workdirs:\n    - path: /data\n"


def _namespace(name: str, level: str) -> dict[str, Any]:
    labels = {"pod-security.kubernetes.io/enforce": level}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


class NoNamespaces(FakeCluster):
    def find(self, kind: str, name: str, namespace: str | None = None) -> Any:
        if kind == "Namespace":
            raise Forbidden(f'namespaces "{name}" is forbidden', status=403)
        return super().find(kind, name, namespace)


def test_preflight_reads_the_pod_security_of_the_namespace_as_the_run_leaves_it() -> None:
    """The namespace a quota of the same run writes wins over the cluster's; one that does not
    exist enforces nothing; one that may not be read is a warning, not a refusal."""
    job = render(TRAINING.format(nodes=1, extra=WORKDIR))
    assert check_placement(FakeCluster(), job).forbidden == []  # no namespace yet
    cluster = FakeCluster()
    cluster.add(_namespace("default", "baseline"))
    (refused,) = check_placement(cluster, job).forbidden
    assert refused.path == "storage.workdirs"
    assert 'violates PodSecurity "baseline:latest": hostPath volumes' in refused.message
    with pytest.raises(Unschedulable) as raised:
        Apply(cluster, allow_pending=True).run(job)  # waiting would not help
    assert not raised.value.pending_helps
    assert not any(kind == "Job" for kind, _, _ in cluster.objects)
    lifted = render(
        "kind: quota\nversion: v0.1\nmetadata: {name: team}\npod_security: privileged\n"
        "users:\n  default: {gpu: 8}\n"
    )
    assert check_placement(cluster, [*lifted, *job]).forbidden == []
    unread = check_placement(NoNamespaces(), job)
    assert unread.forbidden == []
    assert "Pod Security not checked: you may not read namespace default" in unread.warnings


def test_prune_lists_each_kind_once_per_namespace_whatever_the_number_of_jobs() -> None:
    cluster = FakeCluster()
    specs = "---\n".join(
        TRAINING.format(nodes=1, extra="").replace("name: ft", f"name: ft{i}") for i in range(5)
    )
    Apply(cluster).run(render(specs))
    cluster.calls.clear()
    Apply(cluster).run(render(specs))
    lists = [call for call in cluster.calls if call[0] == "list" and call[1] != "Node"]
    assert len(lists) == len(JOB_OBJECT_KINDS)  # one per kind, not five times that
