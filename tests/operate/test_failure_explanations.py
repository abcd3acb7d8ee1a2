"""Why a job's pods fail, in plain words, from the installed command on the sandbox: `create
--wait` fails with exit code 1 and the reason, and `describe job` says it under Why: a crash
loop, a container killed for its memory, a non-zero exit of a Job's pod, an image that does not
pull, a volume that cannot be mounted, a failing readiness probe and a missing Secret key. The
sandbox's kubelet produces each state with a real kubelet's fields, events and logs (see
tests/sandbox/test_kubelet_failures.py)."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import yaml

from tests.conftest import Env
from tests.support.sandbox import wait_for

CRASH = """print('loading shards', flush=True)
print('shard 7 is corrupt', flush=True)
raise SystemExit(3)
"""
HOG = "blocks = []\nwhile True: blocks.append(bytearray(16 * 2**20))\n"


def job_spec(
    kind: str,
    name: str,
    command: list[str] | None = None,
    *,
    image: str = "python:3.12",
    memory: str = "1Gi",
    **extra: Any,
) -> str:
    spec: dict[str, Any] = {
        "kind": kind,
        "version": "v0.1",
        "job": {"name": name},
        "environment": {"image": image, **({"command": command} if command else {})},
        "resources": {"cpu": 1, "memory": memory},
        **extra,
    }
    if kind == "inference":
        spec.setdefault("service", {"replicas": 1, "port": 8000})
    return yaml.safe_dump(spec)


def why(env: Env, name: str) -> list[str]:
    """The Why lines of `describe job` (the first is the most important)."""
    described = env.gpuctl("describe", "job", name)
    assert described.returncode == 0, described.stderr
    found = re.search(r"^Why:\s+(.*?)\n(?=\S)", described.stdout, re.M | re.S)
    return [line.strip() for line in found.group(1).splitlines()] if found else []


def created(env: Env, text: str, *wait: str) -> subprocess.CompletedProcess[str]:
    return env.gpuctl("create", "-f", "-", *wait, stdin=text)


def test_create_wait_fails_with_the_exit_code_and_the_last_lines(env: Env) -> None:
    done = created(env, job_spec("training", "crash", ["python3", "-c", CRASH]), "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert error == (
        "error: job.batch/crash: container `crash` of pod "
        + error.split(" of pod ")[1].split()[0]
        + " exited with code 3; last log lines: loading shards | shard 7 is corrupt; "
        "job failed (BackoffLimitExceeded): its pods failed more often than its backoffLimit "
        "(0) allows, so the Job gave up"
    ), error
    lines = why(env, "crash")
    assert re.fullmatch(
        r"container `crash` of pod crash-\w+ exited with code 3; "
        r"last log lines: loading shards \| shard 7 is corrupt",
        lines[0],
    ), lines
    assert lines[1].startswith("job failed (BackoffLimitExceeded)"), lines


def test_a_crash_loop_is_explained(env: Env) -> None:
    script = "echo loading shards; echo shard 7 is corrupt; exit 3"
    assert created(env, job_spec("inference", "loop", ["sh", "-c", script])).returncode == 0

    def looping() -> str:
        first = why(env, "loop")[0]
        return first if "CrashLoopBackOff" in first and "restarted once" not in first else ""

    first = wait_for(looping, 30, 0.2, "restarts")
    assert re.fullmatch(
        r"container `loop` of pod loop-\w+-\w+ keeps crashing \(CrashLoopBackOff\): exited "
        r"with code 3, restarted \d+ times; last log lines: loading shards \| shard 7 is corrupt",
        first,
    ), first


def test_a_container_killed_for_its_memory_is_explained(env: Env) -> None:
    hog = job_spec("training", "hog", ["python3", "-c", HOG], memory="128Mi")
    done = created(env, hog, "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "ran out of memory: killed for using more memory than its limit (128Mi)" in done.stderr
    ), done.stderr
    assert re.fullmatch(
        r"container `hog` of pod hog-\w+ ran out of memory: killed for using more memory than "
        r"its limit \(128Mi\)",
        why(env, "hog")[0],
    )
    # restarted again and again: a crash loop that runs out of memory each time
    looping = job_spec("inference", "hungry", ["sh", "-c", "echo warming up; tail /dev/zero"])
    assert created(env, looping.replace("memory: 1Gi", "memory: 256Mi")).returncode == 0
    # the answer seen while the kubelet backs off (between two back-offs it runs again)
    said = wait_for(
        lambda: lines if "CrashLoopBackOff" in " ".join(lines := why(env, "hungry")) else [],
        30,
        0.2,
        "the loop",
    )
    assert re.match(
        r"container `hungry` of pod hungry-\w+-\w+ keeps crashing \(CrashLoopBackOff\): ran "
        r"out of memory: killed for using more memory than its limit \(256Mi\), restarted "
        r"\d+ times; last log lines: warming up$",
        said[0],
    )


def test_an_image_that_does_not_pull_is_named_with_the_runtime_message(env: Env) -> None:
    image = "registry.example/missing-trainer:1"
    done = created(env, job_spec("training", "pull", image=image), "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    # whichever moment of the pull cycle the wait saw, the runtime's words are in the reason
    assert re.search(
        rf"cannot pull image {re.escape(image)} \((ErrImagePull|ImagePullBackOff)\): failed to "
        rf'pull and unpack image "{re.escape(image)}": failed to resolve reference '
        rf'"{re.escape(image)}": not found',
        done.stderr,
    ), done.stderr

    # the back-off's own message only says it waits: the runtime's words stay in the reason
    def backing_off() -> str:
        first = why(env, "pull")[0]
        return first if "ImagePullBackOff" in first else ""

    assert wait_for(backing_off, 30, 0.2, "the back-off").endswith(
        f'(ImagePullBackOff): failed to pull and unpack image "{image}": failed to resolve '
        f'reference "{image}": not found'
    )


def test_a_hostpath_file_missing_on_the_node_is_explained(env: Env) -> None:
    spec = job_spec("training", "mount", storage={"workdirs": [{"path": "/datasets/missing.json"}]})
    done = created(env, spec, "--wait", "--timeout", "3s")
    assert done.returncode != 0
    assert "volume `workdir-0` cannot be mounted: /datasets/missing.json is not a file" in (
        done.stderr
    ), done.stderr
    node = env.cluster.list("Pod", "default", label_selector="job-name=mount")[0]["spec"][
        "nodeName"
    ]
    assert re.fullmatch(
        r"pod mount-\w+: volume `workdir-0` cannot be mounted: /datasets/missing.json is not a "
        rf"file on node {node}",
        why(env, "mount")[0],
    )


def test_a_failing_startup_probe_is_explained(env: Env) -> None:
    service = {"replicas": 1, "port": 8000, "health_check": "/unhealthy"}
    spec = job_spec("inference", "sick", service=service)
    done = created(env, spec, "--wait", "--timeout", "3s")
    assert done.returncode != 0
    assert "Startup probe failed: HTTP probe failed with statuscode: 500" in done.stderr
    first = why(env, "sick")[0]
    assert re.fullmatch(
        r"container `sick` of pod sick-\w+-\w+ is not ready: Startup probe failed: HTTP probe "
        r"failed with statuscode: 500 \((\d+) times\)",
        first,
    ), first


def test_a_missing_secret_key_is_explained(env: Env) -> None:
    assert created(env, job_spec("inference", "conf")).returncode == 0
    env_from_secret = [
        {
            "name": "conf",
            "env": [
                {
                    "name": "DB_PASSWORD",
                    "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}},
                }
            ],
        }
    ]
    patch = {"spec": {"template": {"spec": {"containers": env_from_secret}}}}
    env.cluster.patch("Deployment", "conf", "default", patch, patch_type="strategic")

    def first() -> str:
        lines = why(env, "conf")
        return lines[0] if lines and "CreateContainerConfigError" in lines[0] else ""

    assert re.fullmatch(
        r"container `conf` of pod conf-\w+-\w+ cannot start \(CreateContainerConfigError\): "
        r'secret "db" not found',
        wait_for(first, 30, 0.2, "the config error"),
    )
    secret = {"apiVersion": "v1", "kind": "Secret", "data": {}}
    secret["metadata"] = {"name": "db", "namespace": "default"}
    env.cluster.create(secret)
    wait_for(lambda: "couldn't find key" in first(), 30, 0.2, "the missing key")
    assert first().endswith(": couldn't find key password in Secret default/db")


def test_who_may_not_read_events_is_told_what_the_pod_status_says(env: Env) -> None:
    env.sandbox.faults.fail(verb="list", resource="events", status=403, times=None)
    image = "registry.example/missing-trainer:1"
    done = created(env, job_spec("training", "pull", image=image), "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert re.fullmatch(
        rf"error: job.batch/pull: container `pull` of pod pull-\w+ cannot pull image {image} "
        r"\((ErrImagePull|ImagePullBackOff)\): .+",
        error,
    ), error
