"""The rules of gpuctl.inventory.explain on hand-made pods and events (no cluster): which
explanation comes first, and the words of each."""

from __future__ import annotations

from typing import Any

from gpuctl.inventory import explain


def pod(*statuses: dict[str, Any], phase: str = "Running", memory: str = "4Gi") -> dict[str, Any]:
    return {
        "metadata": {"name": "p-1", "uid": "u1"},
        "spec": {
            "nodeName": "node1",
            "containers": [
                {"name": s["name"], "resources": {"limits": {"memory": memory}}} for s in statuses
            ],
        },
        "status": {"phase": phase, "containerStatuses": list(statuses)},
    }


def event(reason: str, message: str, count: int = 1, container: str = "") -> dict[str, Any]:
    involved = {"kind": "Pod", "name": "p-1", "uid": "u1"}
    if container:
        involved["fieldPath"] = f"spec.containers{{{container}}}"
    return {"reason": reason, "message": message, "count": count, "involvedObject": involved}


LOOP = {
    "name": "trainer",
    "restartCount": 4,
    "ready": False,
    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
    "lastState": {"terminated": {"exitCode": 3, "reason": "Error"}},
}


def texts(found: list[explain.Explanation]) -> list[str]:
    return [e.text for e in found]


def test_a_crash_loop_names_the_code_the_restarts_and_the_previous_lines() -> None:
    logs = {("p-1", "trainer"): ["loading", "", "shard 7 is \x1b[31mcorrupt", "x" * 300]}
    assert explain.log_requests(pod(LOOP)) == [("trainer", True)]
    assert texts(explain.explain_pods([pod(LOOP)], [], logs)) == [
        "container `trainer` of pod p-1 keeps crashing (CrashLoopBackOff): exited with code 3, "
        "restarted 4 times; last log lines: loading | shard 7 is \\x1b[31mcorrupt | "
        + "x" * 199
        + "…"
    ]


def test_a_crash_loop_seen_between_two_back_offs_is_still_a_crash_loop() -> None:
    between = {
        **LOOP,
        "state": {"terminated": {"exitCode": 3, "reason": "Error"}},
        "lastState": {"terminated": {"exitCode": 3, "reason": "Error"}},
    }
    logs = {("p-1", "trainer"): ["shard 7 is corrupt"]}
    assert explain.log_requests(pod(between)) == [("trainer", False)]  # the instance that ended
    found = explain.explain_pods([pod(between)], [], logs)
    assert found[0].final and texts(found) == [
        "container `trainer` of pod p-1 keeps crashing (Error): exited with code 3, restarted 4 "
        "times; last log lines: shard 7 is corrupt"
    ]
    first = {**between, "restartCount": 0}  # its first end: not a loop yet
    assert texts(explain.explain_pods([pod(first)], [])) == [
        "container `trainer` of pod p-1 exited with code 3"
    ]
    never = pod(between)
    never["spec"]["restartPolicy"] = "Never"  # nothing restarts it
    assert texts(explain.explain_pods([never], [])) == [
        "container `trainer` of pod p-1 exited with code 3"
    ]


def test_an_oom_kill_names_the_memory_limit() -> None:
    oom = {**LOOP, "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}
    assert texts(explain.explain_pods([pod(oom)], [])) == [
        "container `trainer` of pod p-1 keeps crashing (CrashLoopBackOff): ran out of memory: "
        "killed for using more memory than its limit (4Gi), restarted 4 times"
    ]
    ended = {"name": "trainer", "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}
    found = explain.explain_pods([pod(ended, phase="Failed", memory="128Mi")], [])
    assert found[0].final and found[0].text == (
        "container `trainer` of pod p-1 ran out of memory: killed for using more memory than its "
        "limit (128Mi)"
    )


def test_a_liveness_restart_says_so() -> None:
    running = {
        "name": "server",
        "restartCount": 1,
        "ready": True,
        "state": {"running": {}},
        "lastState": {"terminated": {"exitCode": 137, "reason": "Error"}},
    }
    liveness = event("Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500")
    found = explain.explain_pods([pod(running)], [liveness])
    assert texts(found) == [
        "container `server` of pod p-1 restarted once, last exited with code 137 after failing "
        "its liveness probe: HTTP probe failed with statuscode: 500 (once)"
    ]
    assert not found[0].final


def test_a_readiness_probe_counts_the_failures_of_its_own_container() -> None:
    unready = {"name": "server", "ready": False, "state": {"running": {}}}
    other = {"name": "sidecar", "ready": True, "state": {"running": {}}}
    failing = "Readiness probe failed: HTTP probe failed with statuscode: 500"
    events = [
        event("Unhealthy", failing, 3, "server"),
        event("Unhealthy", "Readiness probe failed: timeout", 9, "sidecar"),
        event("Unhealthy", failing, 2, "server"),
    ]
    assert texts(explain.explain_pods([pod(unready, other)], events)) == [
        f"container `server` of pod p-1 is not ready: {failing} (5 times)"
    ]


def test_a_failing_startup_probe_is_named_and_counted_apart_from_an_older_readiness_one() -> None:
    unready = {"name": "server", "ready": False, "state": {"running": {}}}
    startup = "Startup probe failed: HTTP probe failed with statuscode: 500"
    events = [
        event("Unhealthy", "Readiness probe failed: refused", 4, "server"),
        event("Unhealthy", startup, 2, "server"),
        event("Unhealthy", startup, 1, "server"),
    ]
    assert texts(explain.explain_pods([pod(unready)], events)) == [
        f"container `server` of pod p-1 is not ready: {startup} (3 times)"
    ]


def test_a_failed_mount_names_the_volume_the_path_and_the_node() -> None:
    creating = {"name": "trainer", "state": {"waiting": {"reason": "ContainerCreating"}}}
    mount = event(
        "FailedMount",
        'MountVolume.SetUp failed for volume "workdir-0" : hostPath type check failed: '
        "/datasets/x.json is not a file",
    )
    assert texts(explain.explain_pods([pod(creating, phase="Pending")], [mount])) == [
        "pod p-1: volume `workdir-0` cannot be mounted: /datasets/x.json is not a file on node "
        "node1"
    ]


def test_an_image_pull_keeps_the_runtime_words_through_the_back_off() -> None:
    backing_off = {
        "name": "trainer",
        "image": "reg/x:1",
        "state": {
            "waiting": {"reason": "ImagePullBackOff", "message": 'Back-off pulling "reg/x:1"'}
        },
    }
    failed = event("Failed", 'Failed to pull image "reg/x:1": rpc error: not found')
    assert texts(explain.explain_pods([pod(backing_off, phase="Pending")], [failed])) == [
        "container `trainer` of pod p-1 cannot pull image reg/x:1 (ImagePullBackOff): rpc error: "
        "not found"
    ]


def test_the_worst_comes_first_and_a_leaving_pod_only_when_nothing_else_explains() -> None:
    unready = {"name": "server", "ready": False, "state": {"running": {}}}
    probe = event("Unhealthy", "Readiness probe failed: no", container="server")
    crashing = pod(LOOP)
    crashing["metadata"] = {"name": "p-2", "uid": "u2"}
    found = explain.explain_pods([pod(unready), crashing], [probe])
    assert [e.kind for e in found] == ["crash-loop", "probe"]
    leaving = pod(LOOP)
    leaving["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert [e.kind for e in explain.explain_pods([leaving, pod(unready)], [probe])] == ["probe"]
    assert [e.kind for e in explain.explain_pods([leaving], [])] == ["crash-loop"]


def test_a_job_failure_says_what_the_job_controller_decided() -> None:
    def failed(reason: str) -> dict[str, Any]:
        condition = {"type": "Failed", "status": "True", "reason": reason, "message": "m"}
        spec = {"backoffLimit": 2, "activeDeadlineSeconds": 60}
        return {"kind": "Job", "spec": spec, "status": {"conditions": [condition]}}

    assert explain.job_failure(failed("BackoffLimitExceeded")) == (
        "job failed (BackoffLimitExceeded): its pods failed more often than its backoffLimit (2) "
        "allows, so the Job gave up"
    )
    assert explain.job_failure(failed("DeadlineExceeded")) == (
        "job failed (DeadlineExceeded): it ran longer than its 60s deadline"
    )
    assert explain.job_failure(failed("PodFailurePolicy")) == "job failed: PodFailurePolicy m"
    assert explain.job_failure({"kind": "Deployment"}) == ""
