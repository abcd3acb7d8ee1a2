"""Verb behaviour that needs a running cluster: concurrent applies of one job, --wait on a
container that crashes, diff's exit codes, and pause of a finished job from the command."""

from __future__ import annotations

import subprocess
import threading
import time

from gpuctl.cluster.client import Cluster
from gpuctl.render.engine import Manifest
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.plan import fingerprint
from tests.conftest import GPUCTL

from .conftest import Env

WEB = """kind: compute
version: v0.1
job:
  name: web
environment:
  image: {image}
service:
  replicas: 1
  port: 80
resources:
  cpu: 0.5
  memory: 64Mi
"""
TRAIN = """kind: training
version: v0.1
job:
  name: train
environment:
  image: {image}
  command: ["sh", "-c", "echo starting; echo loading data; exit 1"]
resources:
  cpu: 0.5
  memory: 64Mi
"""


def test_concurrent_applies_of_one_job_are_serialized(env: Env) -> None:
    """Two runs replace the same Job with different versions at once: the second waits for
    the first's lease, both succeed, and the cluster ends holding the version applied last.
    Each run's deletion of the old Job takes a second, so the second run, which may start
    deleting only after the first run released the lease, ends at least a second later."""
    job = TRAIN.replace("exit 1", "sleep 60")
    first, second = (env.render(job.format(image=f"busybox:1.3{i}")) for i in (1, 2))
    Apply(env.cluster).run(env.render(job.format(image="busybox:1.30")))
    env.sandbox.faults.latency(1.0, "DELETE", "jobs", times=2)  # replacing is slow
    finished: dict[str, float] = {}
    errors: list[BaseException] = []

    def run(name: str, manifests: list[Manifest]) -> None:
        try:
            Apply(Cluster.connect(str(env.kubeconfig)), timeout=30).run(manifests)
            finished[name] = time.monotonic()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(name, manifests))
        for name, manifests in (("first", first), ("second", second))
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.2)
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert abs(finished["first"] - finished["second"]) >= 1.0, finished
    last = first if finished["first"] > finished["second"] else second
    live = env.objects("Job")["train"]
    want = fingerprint(last[0].obj)
    assert live["metadata"]["annotations"]["gpuctl.runwhere.ai/render-hash"] == want
    assert (
        env.cluster.list("Lease", "default", label_selector="app.kubernetes.io/instance=train")
        == []
    )


def test_create_wait_fails_on_a_crashing_container_with_its_last_log_lines(env: Env) -> None:
    done = env.gpuctl(
        "create", "-f", "-", "--wait", "--timeout", "60s", stdin=WEB.format(image="nginx:crash")
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout == "service/svc-web created\ndeployment.apps/web created\n"
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("error: deployment.apps/web: container `web` of pod web-"), error
    assert "keeps crashing (CrashLoopBackOff): exited with code 1, restarted " in error, error
    assert "; last log lines: web-" in error and "/web: step " in error, error


def test_create_wait_fails_when_a_job_keeps_failing(env: Env) -> None:
    done = env.gpuctl(
        "create", "-f", "-", "--wait", "--timeout", "60s", stdin=TRAIN.format(image="busybox:crash")
    )
    assert done.returncode == 1, done.stdout + done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("error: job.batch/train: container `train` of pod train-"), error
    # the pod's own exit code and last lines come first, whether the wait saw the exit or
    # the Job controller's verdict first
    assert "exited with code 1; last log lines: starting | loading data" in error, error


def test_create_wait_succeeds_once_the_pods_stay_up(env: Env) -> None:
    done = env.gpuctl(
        "create", "-f", "-", "--wait", "--settle", "1s", stdin=WEB.format(image="nginx:1")
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["service/svc-web created", "deployment.apps/web created"]


def test_diff_exit_codes_follow_kubectl(env: Env) -> None:
    spec = WEB.format(image="nginx:1")
    assert env.gpuctl("diff", "-f", "-", stdin=spec).returncode == 1  # nothing there yet
    assert env.gpuctl("apply", "-f", "-", stdin=spec).returncode == 0
    same = env.gpuctl("diff", "-f", "-", stdin=spec)
    assert (same.returncode, same.stdout) == (0, "")
    broken = env.gpuctl("diff", "-f", "-", stdin=spec.replace("cpu: 0.5", "cpu: lots"))
    assert broken.returncode == 2 and "resources.cpu" in broken.stderr
    unreachable = subprocess.run(
        [str(GPUCTL), "diff", "-f", "-", "--kubeconfig", "/nonexistent"],
        input=spec,
        capture_output=True,
        text=True,
        check=False,
    )
    assert unreachable.returncode == 2, unreachable.stderr
    assert unreachable.stderr.startswith("error: /nonexistent: no such file")


def test_pause_of_a_finished_job_says_why_and_changes_nothing(env: Env) -> None:
    spec = TRAIN.format(image="busybox:1.36").replace("exit 1", "exit 0")
    assert env.gpuctl("create", "-f", "-", stdin=spec).returncode == 0
    deadline = time.monotonic() + 30
    while "Succeeded" not in env.gpuctl("get", "jobs").stdout and time.monotonic() < deadline:
        time.sleep(0.2)
    done = env.gpuctl("pause", "train")
    assert done.returncode == 1
    assert done.stderr == "error: job.batch/train has succeeded; there is nothing to pause\n"
    assert not env.cluster.get("Job", "train", "default")["spec"].get("suspend")
