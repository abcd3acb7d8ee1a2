"""`why` of GET /jobs/{jobId}: the same plain words as `describe job` (gpuctl.inventory.explain),
naming the caller's own pods, and nothing of another tenant's job. On the sandbox only: these
answers come from containers that run their commands (exit codes, log lines, running out of
memory, a failing probe), which the sandbox plays and kwok's nodes do not (the real kubelet's
words for the same are pinned with real pods: tests/realpods)."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.support.sandbox import wait_for

from .conftest import QUOTA, Api

CRASH = "print('loading shards')\nprint('shard 7 is corrupt')\nraise SystemExit(3)\n"


def spec(kind: str, name: str, command: list[str] | None = None, **extra: Any) -> str:
    body: dict[str, Any] = {
        "kind": kind,
        "version": "v0.1",
        "job": {"name": name},
        "environment": {"image": "python:3.12", **({"command": command} if command else {})},
        "resources": {"cpu": 1, "memory": "256Mi"},
        **extra,
    }
    if kind == "inference":
        body.setdefault("service", {"replicas": 1, "port": 8000})
    return yaml.safe_dump(body)


def _why(api: Api, who: str, job_id: str) -> str:
    answer = api.call(who, "GET", f"/jobs/{job_id}")
    assert answer.status_code == 200, answer.text
    return str(answer.json()["why"])


def _create(api: Api, who: str, text: str) -> str:
    made = api.call(who, "POST", "/jobs", json={"yamlContent": text})
    assert made.status_code == 201, made.text
    return str(made.json()["jobId"])


def test_why_gives_the_exit_code_and_the_last_lines_of_a_failed_job(api: Api) -> None:
    job_id = _create(api, "admin", spec("training", "crash", ["python3", "-c", CRASH]))
    wait_for(lambda: "exited with code 3" in _why(api, "admin", job_id), 30, 0.2, "the exit")
    assert re.fullmatch(
        r"container `crash` of pod crash-\w+ exited with code 3; "
        r"last log lines: loading shards \| shard 7 is corrupt",
        _why(api, "admin", job_id),
    )


def test_why_explains_a_crash_loop_to_its_owner_only(api: Api) -> None:
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    hog = ["sh", "-c", "echo warming up; tail /dev/zero"]
    job_id = _create(api, "alice", spec("inference", "hungry", hog))
    # the answer seen while the kubelet backs off (between two back-offs the container runs
    # again and the answer is `restarted N times, last ran out of memory`)
    said = wait_for(
        lambda: why if "CrashLoopBackOff" in (why := _why(api, "alice", job_id)) else "",
        30,
        0.2,
        "the loop",
    )
    assert re.fullmatch(
        r"container `hungry` of pod hungry-\w+-\w+ keeps crashing \(CrashLoopBackOff\): ran "
        r"out of memory: killed for using more memory than its limit \(256Mi\), restarted "
        r"(once|\d+ times); last log lines: warming up",
        said,
    )
    other = api.call("bob", "GET", f"/jobs/{job_id}")
    assert other.status_code in (403, 404), other.text
    assert "hungry-" not in other.text


def test_why_names_a_failing_startup_probe(api: Api) -> None:
    service = {"replicas": 1, "port": 8000, "health_check": "/unhealthy"}
    job_id = _create(api, "admin", spec("inference", "sick", service=service))
    wait_for(lambda: "probe" in _why(api, "admin", job_id), 30, 0.2, "the probe")
    assert re.fullmatch(
        r"container `sick` of pod sick-\w+-\w+ is not ready: Startup probe failed: HTTP probe "
        r"failed with statuscode: 500 \((once|\d+ times)\)",
        _why(api, "admin", job_id),
    )
