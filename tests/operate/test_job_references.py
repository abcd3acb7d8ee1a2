"""A job named on the command line: `NAME`, `NAMESPACE/NAME` or `NAMESPACE.NAME` everywhere,
a pod's name for `describe job` and `logs`, and several jobs at once for `describe job`,
`logs` and `delete job`, against the sandbox."""

from __future__ import annotations

import time
from typing import Any

import pytest

from gpuctl.inventory import jobs
from gpuctl.verbs.apply import Apply
from tests.conftest import Env
from tests.operate.test_jobs import spec

TEAM = "team-a"


def _wait(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _running(env: Env, namespace: str, ready: str) -> None:
    _wait(lambda: ready in env.gpuctl("get", "jobs", "-n", namespace).stdout)
    time.sleep(0.3)  # let each pod write a few lines


@pytest.fixture
def team_web(env: Env) -> Env:
    """Job `web` (two pods) in namespace team-a, and none of that name in default."""
    env.cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": TEAM}})
    web = spec("compute", "web", extra="service:\n  replicas: 2")
    Apply(env.cluster).run(env.render(web, namespace=TEAM))
    _running(env, TEAM, "2/2")
    return env


@pytest.mark.parametrize("reference", ["team-a/web", "team-a.web"])
def test_a_reference_with_its_namespace_names_the_job(team_web: Env, reference: str) -> None:
    env = team_web
    described = env.gpuctl("describe", "job", reference)
    assert described.returncode == 0, described.stderr
    assert "Name:        web\n" in described.stdout
    assert "Namespace:   team-a\n" in described.stdout
    logs = env.gpuctl("logs", reference, "--tail", "1")
    assert logs.returncode == 0, logs.stderr
    assert len(logs.stdout.splitlines()) == 2 and logs.stdout.startswith("[web-")
    paused = env.gpuctl("pause", reference)
    assert paused.stdout == "deployment.apps/web paused (scaled from 2 to 0)\n", paused.stderr
    resumed = env.gpuctl("resume", reference, "-n", TEAM)  # the same namespace twice is fine
    assert resumed.stdout == "deployment.apps/web resumed (scaled to 2)\n", resumed.stderr


def test_a_bare_name_is_in_the_namespace_of_n_else_the_contexts(team_web: Env) -> None:
    env = team_web
    assert env.gpuctl("describe", "job", "web", "-n", TEAM).returncode == 0
    assert env.gpuctl("-n", TEAM, "describe", "job", "web").returncode == 0
    missing = env.gpuctl("describe", "job", "web")
    assert (missing.returncode, missing.stderr) == (
        1,
        "error: no job named 'web' in namespace default\n",
    )


def test_a_namespace_given_twice_and_differently_is_one_line(team_web: Env) -> None:
    env = team_web
    for args in (
        ["describe", "job", "team-a/web", "-n", "default"],
        ["logs", "team-a.web", "-n", "default"],
        ["delete", "job", "team-a.web", "-n", "default"],
        ["pause", "team-a/web", "-n", "default"],
    ):
        done = env.gpuctl(*args)
        assert (done.returncode, done.stdout) == (2, ""), args
        name = args[2] if args[0] in ("describe", "delete") else args[1]
        assert done.stderr == (
            f"error: job {name!r} is in namespace team-a, but -n says default: "
            "give the namespace once\n"
        )
    assert env.cluster.get("Deployment", "web", TEAM)["spec"]["replicas"] == 2  # untouched


def test_what_is_no_job_reference_is_one_line(env: Env) -> None:
    for bad in ("a/b/c", "a.b/c", "Web", "team-a/"):
        done = env.gpuctl("describe", "job", bad)
        assert done.returncode == 2, (bad, done.stderr)
        assert done.stderr.startswith(f"error: {bad!r} is not a job reference: give NAME, ")
        assert len(done.stderr.splitlines()) == 1


def test_a_pods_name_is_its_jobs_for_describe_and_logs(team_web: Env) -> None:
    env = team_web
    job = jobs.find_job(env.cluster, "web", TEAM)
    pods = sorted(p["metadata"]["name"] for p in jobs.pods_of(env.cluster, job))
    assert len(pods) == 2
    described = env.gpuctl("describe", "job", f"{TEAM}/{pods[0]}")
    assert described.returncode == 0, described.stderr
    assert described.stderr == f"pod {pods[0]} belongs to job web\n"
    assert "Name:        web\n" in described.stdout
    logs = env.gpuctl("logs", pods[1], "-n", TEAM)
    assert logs.returncode == 0, logs.stderr
    assert logs.stderr == f"pod {pods[1]} belongs to job web\n"
    alone = env.gpuctl("logs", "web", "-n", TEAM, "--pod", pods[1])
    assert logs.stdout and logs.stdout.splitlines()[:3] == alone.stdout.splitlines()[:3]
    assert not logs.stdout.startswith("[")  # that pod's lines only
    other = env.gpuctl("logs", pods[1], "-n", TEAM, "--pod", pods[0])
    assert (other.returncode, other.stdout) == (2, "")
    assert other.stderr.splitlines()[-1] == (
        f"error: {pods[1]} is a pod of job web; --pod says {pods[0]}"
    )
    # a pod that is no job's stays not found
    env.cluster.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "loose", "namespace": TEAM},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]},
        }
    )
    loose = env.gpuctl("describe", "job", f"{TEAM}.loose")
    assert (loose.returncode, loose.stderr) == (
        1,
        "error: no job named 'loose' in namespace team-a\n",
    )


def test_get_jobs_pods_heads_its_columns_job_and_pod(team_web: Env) -> None:
    env = team_web
    done = env.gpuctl("get", "jobs", "--pods", "-n", TEAM)
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["JOB", "POD", "NAMESPACE"]
    assert [line.split()[0] for line in lines[1:]] == ["web", "web"]
    pods = [line.split()[1] for line in lines[1:]]
    assert all(pod.startswith("web-") for pod in pods)
    for pod in pods:  # the POD column is what `describe job` takes, and so is JOB
        assert env.gpuctl("describe", "job", pod, "-n", TEAM).returncode == 0


@pytest.fixture
def two_jobs(env: Env) -> Env:
    """Jobs `one` and `two` in default, one pod each."""
    Apply(env.cluster).run(env.render(spec("compute", "one") + "---\n" + spec("compute", "two")))
    _running(env, "default", "1/1")
    _wait(lambda: env.gpuctl("get", "jobs").stdout.count("1/1") == 2)
    return env


def test_describe_job_takes_several_and_reports_each_missing_one(two_jobs: Env) -> None:
    env = two_jobs
    done = env.gpuctl("describe", "job", "one", "nope", "default/two", "gone")
    assert done.returncode == 1
    assert done.stdout.count("Name:        ") == 2
    assert done.stdout.index("Name:        one\n") < done.stdout.index("Name:        two\n")
    assert done.stderr == (
        "error: no job named 'nope' in namespace default\n"
        "error: no job named 'gone' in namespace default\n"
    )
    both = env.gpuctl("describe", "jobs", "one", "two")
    assert both.returncode == 0 and both.stderr == ""


def test_logs_takes_several_each_line_prefixed(two_jobs: Env) -> None:
    env = two_jobs
    done = env.gpuctl("logs", "one", "default.two", "nope", "--tail", "1")
    assert done.returncode == 1
    prefixes = [line.split("]")[0][1:] for line in done.stdout.splitlines()]
    assert len(prefixes) == 2
    assert prefixes[0].startswith("one-") and prefixes[1].startswith("two-")
    assert done.stderr == "error: no job named 'nope' in namespace default\n"
    follow = env.gpuctl("logs", "one", "two", "-f")
    assert (follow.returncode, follow.stderr) == (2, "error: -f takes one job; 2 were given\n")


def test_delete_job_takes_several_tries_all_and_fails_on_any(two_jobs: Env) -> None:
    env = two_jobs
    done = env.gpuctl("delete", "job", "one", "nope", "default/two")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "deployment.apps/one deleted",
        "service/svc-one deleted",
        "deployment.apps/two deleted",
        "service/svc-two deleted",
    ]
    assert done.stderr == "error: no job named 'nope' in namespace default\n"
    _wait(lambda: env.gpuctl("get", "jobs", "-o", "name").stdout == "")
    quiet = env.gpuctl("delete", "jobs", "one", "two", "--ignore-not-found")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
