"""Each workload adapter on hand-made objects (no cluster): pods, GPUs, status in gpuctl's
words, up, finished, pause and resume patches, how its pods are found; and the table."""

from __future__ import annotations

from typing import Any

import pytest

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cluster.resources import clean, resource
from gpuctl.workloads import JOB, STATEFUL_SET, WorkloadAdapter
from gpuctl.workloads.replicated import DeploymentAdapter


def template(gpus: int) -> dict[str, Any]:
    limits = {c.GPU_RESOURCE: str(gpus)} if gpus else {}
    containers = [{"name": "main", "resources": {"limits": limits}}, {"name": "side"}]
    return {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": containers}}


def job(spec: dict[str, Any] | None = None, **status: Any) -> dict[str, Any]:
    return {
        "kind": "Job",
        "metadata": {"name": "train", "labels": {}},
        "spec": {"parallelism": 2, "completions": 2, "template": template(4), **(spec or {})},
        "status": status,
    }


def replicated(
    kind: str, replicas: int | None, ready: int = 0, annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {"template": template(1)}
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "kind": kind,
        "metadata": {"name": "svc", "annotations": annotations or {}},
        "spec": spec,
        "status": {"readyReplicas": ready},
    }


def pod(ready: bool, phase: str = "Running") -> dict[str, Any]:
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {"metadata": {"name": "p"}, "status": {"phase": phase, "conditions": [condition]}}


def test_the_table_holds_one_adapter_per_kind_and_answers_none_for_others() -> None:
    assert workloads.WORKLOAD_KINDS == ("Job", "Deployment", "StatefulSet")
    for kind, adapter in workloads.ADAPTERS.items():
        assert adapter.kind == kind
        assert isinstance(adapter, WorkloadAdapter)
        assert workloads.adapter_of({"kind": kind}) is adapter
        assert resource(kind).plural == adapter.plural
    assert workloads.adapter("Service") is None
    assert workloads.adapter_of({}) is None
    assert {"Deployment", "StatefulSet"} == workloads.SCALED_KINDS


def test_a_job_counts_its_parallelism_and_gpus_per_pod() -> None:
    assert JOB.pods(job()) == 2
    assert JOB.pods(job({"parallelism": None})) == 0
    assert JOB.pods({"kind": "Job", "spec": {}}) == 1
    assert JOB.gpus_per_pod(job()) == 4
    assert JOB.gpus(job()) == 8
    assert JOB.pod_spec(job())["containers"][1] == {"name": "side"}
    assert JOB.pod_selector("train") == f"{c.Labels.JOB_NAME}=train"


@pytest.mark.parametrize(
    ("spec", "status", "labels", "word"),
    [
        ({}, {"succeeded": 1, "failed": 1}, {}, c.Status.SUCCEEDED),
        ({}, {"failed": 1, "active": 1}, {}, c.Status.FAILED),
        ({}, {"active": 2, "ready": 1}, {}, c.Status.RUNNING),
        ({}, {"active": 2}, {}, c.Status.RUNNING),  # a server that does not report `ready`
        ({}, {"active": 2, "ready": 0}, {}, c.Status.PENDING),  # pods waiting for a node
        ({"suspend": True}, {}, {}, c.Status.PAUSED),
        ({"suspend": True}, {}, {c.KUEUE_QUEUE_LABEL: "q"}, c.Status.QUEUED),
        ({}, {}, {}, c.Status.PENDING),
    ],
)
def test_a_jobs_status_in_words(
    spec: dict[str, Any], status: dict[str, Any], labels: dict[str, str], word: str
) -> None:
    obj = job(spec, **status)
    obj["metadata"]["labels"] = labels
    assert JOB.status(obj) == word


def test_a_job_is_ready_up_and_finished_by_its_own_rules() -> None:
    assert JOB.ready(job(active=2, ready=1)) == "1/2"
    assert JOB.ready(job(active=2)) == "2/2"
    assert JOB.up(job(active=2), [pod(True), pod(True)])
    assert not JOB.up(job(active=2), [pod(True), pod(False)])
    assert not JOB.up(job(active=2), [pod(True)])
    assert JOB.up(job(succeeded=2), [])
    assert JOB.up(job(conditions=[{"type": "Complete", "status": "True"}]), [])
    assert JOB.up(job(succeeded=1, active=1), [pod(True), pod(True, phase="Succeeded")])
    assert JOB.finished(job(succeeded=1)) and JOB.finished(job(failed=1))
    assert not JOB.finished(job(active=2))


def test_a_job_pauses_by_suspending_and_says_when_there_is_nothing_to_do() -> None:
    assert JOB.pause(job()).body == {"spec": {"suspend": True}}
    assert JOB.pause(job({"suspend": True})).body is None
    assert JOB.resume(job({"suspend": True})).body == {"spec": {"suspend": False}}
    assert JOB.resume(job()).body is None
    assert JOB.paused(job({"suspend": True})) and not JOB.paused(job())


def test_a_new_job_forgets_the_old_ones_controller_uid() -> None:
    old = job()
    old["spec"]["selector"] = {"matchLabels": {"controller-uid": "u1"}}
    old["spec"]["template"]["metadata"]["labels"].update(
        {"controller-uid": "u1", "batch.kubernetes.io/controller-uid": "u1"}
    )
    again = clean(old)
    assert "selector" not in again["spec"]
    assert again["spec"]["template"]["metadata"]["labels"] == {"app": "x"}
    kept = clean(replicated("Deployment", 1) | {"spec": {"selector": {"matchLabels": {}}}})
    assert "selector" in kept["spec"]  # a Deployment's selector is the user's


@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet"])
def test_a_replicated_workload_counts_and_words_its_replicas(kind: str) -> None:
    adapter = workloads.ADAPTERS[kind]
    assert adapter.pods(replicated(kind, 3)) == 3
    assert adapter.pods(replicated(kind, None)) == 1
    assert adapter.gpus(replicated(kind, 3)) == 3
    assert adapter.pod_selector("svc") == f"{c.Labels.APP}=svc"
    assert adapter.status(replicated(kind, 2, ready=2)) == c.Status.RUNNING
    assert adapter.status(replicated(kind, 2, ready=1)) == c.Status.PARTIALLY_RUNNING
    assert adapter.status(replicated(kind, 0)) == c.Status.PAUSED
    assert adapter.status(replicated(kind, 2)) == c.Status.PENDING
    assert adapter.ready(replicated(kind, 2, ready=1)) == "1/2"
    assert adapter.up(replicated(kind, 2, ready=2), [pod(True), pod(True)])
    assert not adapter.up(replicated(kind, 2, ready=2), [pod(True), pod(False)])
    assert adapter.up(replicated(kind, 0), [])
    assert not adapter.finished(replicated(kind, 0))  # it serves until deleted


@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet"])
def test_a_replicated_workload_pauses_to_zero_and_resumes_to_what_it_had(kind: str) -> None:
    adapter = workloads.ADAPTERS[kind]
    paused = adapter.pause(replicated(kind, 3))
    assert paused.body == {
        "metadata": {"annotations": {c.PAUSED_REPLICAS_ANNOTATION: "3"}},
        "spec": {"replicas": 0},
    }
    assert paused.detail == "(scaled from 3 to 0)"
    assert adapter.pause(replicated(kind, 0)).body is None
    remembered = {c.PAUSED_REPLICAS_ANNOTATION: "3"}
    resumed = adapter.resume(replicated(kind, 0, annotations=remembered))
    assert resumed.body == {
        "metadata": {"annotations": {c.PAUSED_REPLICAS_ANNOTATION: None}},
        "spec": {"replicas": 3},
    }
    assert resumed.detail == "(scaled to 3)"
    assert adapter.resume(replicated(kind, 0)).detail == "(scaled to 1)"  # none remembered
    assert adapter.resume(replicated(kind, 2)).body is None


def test_only_a_deployment_has_pods_owned_through_another_kind() -> None:
    assert DeploymentAdapter.pod_owner_kind == "ReplicaSet"
    assert STATEFUL_SET.pod_owner_kind == "" and JOB.pod_owner_kind == ""
    assert JOB.replace_only and not STATEFUL_SET.replace_only
    assert JOB.runs_to_completion and not STATEFUL_SET.runs_to_completion


def test_the_pod_spec_of_a_workload_or_a_pod_is_read_in_one_place() -> None:
    """A workload's spec.template.spec, a Pod's own spec (the hostPath check and the sandbox's
    tables read both), {} for none; the dict itself, so a writer changes the object."""
    obj = job()
    assert workloads.pod_spec_of(obj) is obj["spec"]["template"]["spec"]
    assert JOB.pod_spec(obj) is obj["spec"]["template"]["spec"]
    pod = {"kind": "Pod", "spec": {"containers": [{"name": "main"}]}}
    assert workloads.pod_spec_of(pod) is pod["spec"]
    assert workloads.pod_spec_of({"kind": "Job", "spec": {}}) == {}
    assert workloads.pod_spec_of({"kind": "Pod"}) == {}
