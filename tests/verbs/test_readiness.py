"""The readiness rules of gpuctl.inventory.status, on hand-made objects (no cluster)."""

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


def test_pod_trouble_is_final_for_crashes_and_bad_exits_not_for_scheduling() -> None:
    crash = pod(False, state={"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}})
    trouble, final = status.pod_trouble(crash)
    assert final and "CrashLoopBackOff: back-off" in trouble
    exited = pod(False, phase="Failed", state={"terminated": {"exitCode": 3, "reason": "Error"}})
    assert status.pod_trouble(exited) == ("container main exited with code 3 (Error)", True)
    done = pod(False, phase="Succeeded", state={"terminated": {"exitCode": 0}})
    assert status.pod_trouble(done) == ("", False)
    waiting = {
        "status": {
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    "message": "0/2 nodes are available",
                }
            ]
        }
    }
    assert status.pod_trouble(waiting) == ("unschedulable: 0/2 nodes are available", False)


def test_a_restart_is_explained_by_the_last_exit() -> None:
    restarted = pod(True, lastState={"terminated": {"exitCode": 137, "reason": "OOMKilled"}})
    assert status.last_exit(restarted) == (
        "container main restarted after exiting with code 137 (OOMKilled)"
    )
    assert (
        status.workload_failure(
            {
                "kind": "Job",
                "status": {
                    "conditions": [
                        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}
                    ]
                },
            }
        )
        == "job failed: BackoffLimitExceeded"
    )
