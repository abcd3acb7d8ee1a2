"""The readiness rules of gpuctl.inventory.status, on hand-made objects (no cluster); what
keeps a pod from coming up is gpuctl.inventory.explain's (tests/operate/test_explain.py)."""

from __future__ import annotations

from typing import Any

from gpuctl.inventory import status


def pod(ready: bool, phase: str = "Running", **container: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "p"},
        "status": {
            "phase": phase,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
            "containerStatuses": [{"name": "main", "restartCount": 0, **container}],
        },
    }


def job(**status_: Any) -> dict[str, Any]:
    return {"kind": "Job", "spec": {"parallelism": 2, "completions": 2}, "status": status_}


def test_a_job_is_up_when_every_running_pod_is_ready_or_it_succeeded() -> None:
    assert status.workload_up(job(active=2), [pod(True), pod(True)])
    assert not status.workload_up(job(active=2), [pod(True), pod(False)])
    assert not status.workload_up(job(active=2), [pod(True)])  # the second pod is missing
    assert status.workload_up(job(succeeded=2), [])
    assert status.workload_up(job(succeeded=1, active=1), [pod(True)])


def test_a_deployment_is_up_when_its_replicas_are_ready() -> None:
    deployment = {"kind": "Deployment", "spec": {"replicas": 2}, "status": {"readyReplicas": 2}}
    assert status.workload_up(deployment, [pod(True), pod(True)])
    assert not status.workload_up(deployment, [pod(True), pod(False)])
    assert status.workload_up({"kind": "Deployment", "spec": {"replicas": 0}, "status": {}}, [])
