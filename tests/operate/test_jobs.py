"""`get jobs`, `describe job`, `logs`, `pause` and `resume` against the sandbox, with jobs in
every status: pending (unschedulable), image pull failure, running, partially running,
paused, succeeded and failed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from datetime import timedelta
from typing import Any

import pytest
import yaml

from gpuctl.cli import table
from gpuctl.cli.views import jobs as job_views
from gpuctl.cluster import client
from gpuctl.inventory import jobs, status
from gpuctl.verbs.apply import Apply
from tests.conftest import GPUCTL, Env

SPEC = """kind: {kind}
version: v0.1
job:
  name: {name}
environment:
  image: {image}
{extra}
resources:
  pool: {pool}
  gpu: {gpu}
  cpu: 1
  memory: 1Gi
"""


def spec(
    kind: str,
    name: str,
    *,
    image: str = "busybox:1.36",
    gpu: int = 0,
    pool: str = "default",
    extra: str = "",
) -> str:
    return SPEC.format(kind=kind, name=name, image=image, gpu=gpu, pool=pool, extra=extra)


EVERY_STATUS = {
    "pending": spec("training", "pending", pool="no-such-pool"),
    "image-pull": spec("compute", "image-pull", image="nginx:does-not-exist"),
    "running": spec("inference", "running", gpu=1),
    # 3 replicas of 2 T4 GPUs: the one 4-GPU T4 node takes two
    "partial": spec(
        "inference",
        "partial",
        gpu=2,
        extra="service:\n  replicas: 3",
    ).replace("  gpu: 2\n", "  gpu: 2\n  gpu-type: T4-16G\n"),
    "paused": spec("compute", "paused"),
    "succeeded": spec("training", "succeeded"),
    "failed": spec("training", "failed", image="trainer:crash"),
}
EXPECTED = {
    "pending": "Pending",
    "image-pull": "Pending",
    "running": "Running",
    "partial": "Partially Running",
    "paused": "Paused",
    "succeeded": "Succeeded",
    "failed": "Failed",
}


def _wait(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def every_status(env: Env) -> Env:
    # the pending job's pool has no node: it waits, as it would for nodes that join
    Apply(env.cluster, allow_pending=True).run(env.render("---\n".join(EVERY_STATUS.values())))
    env.gpuctl("pause", "paused")

    def settled() -> bool:
        found = {
            o["metadata"]["name"]: status.workload_status(o)
            for o in jobs.list_jobs(env.cluster, "default")
        }
        return found == EXPECTED

    _wait(settled)
    return env


def _without_age(text: str) -> str:
    """AGE (the last column) changes from run to run; the rest must not."""
    return "\n".join(re.sub(r"\s+\S+$", "", line) for line in text.splitlines()) + "\n"


def test_get_jobs_shows_every_status(every_status: Env, snapshot_text: Any) -> None:
    env = every_status
    env.sandbox.requests.clear()
    done = env.gpuctl("get", "jobs")
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stdout  # no colour when stdout is not a terminal
    assert _without_age(done.stdout) == snapshot_text
    lists = env.sandbox.requests.api_calls()
    # one list per kind a job has objects of (3 workloads, 4 others) and one of the Preempted
    # events (a preempted job says so), whatever the number of jobs
    assert [r.verb for r in lists] == ["list"] * 8
    assert sum(r.path.endswith("/events") for r in lists) == 1, [r.path for r in lists]
    on_terminal = env.gpuctl_on_terminal("get", "jobs")
    assert "\x1b[32mRunning\x1b[0m" in on_terminal and "\x1b[31mFailed\x1b[0m" in on_terminal
    assert "\x1b[" not in env.gpuctl_on_terminal("get", "jobs", env={"NO_COLOR": "1"})


def test_gpuctls_own_controller_is_not_a_job(env: Env) -> None:
    """Only what gpuctl made for a user from a job spec is a job: the controller's Deployment
    (and its pods) carry managed-by: gpuctl but no job type."""
    installed = env.gpuctl("controller", "install")
    assert installed.returncode == 0, installed.stderr
    listed = env.gpuctl("get", "jobs", "-A", "-o", "name")
    assert (listed.returncode, listed.stdout) == (0, ""), listed.stderr
    pods = env.gpuctl("get", "jobs", "-A", "--pods", "-o", "name")
    assert (pods.returncode, pods.stdout) == (0, ""), pods.stderr
    described = env.gpuctl("describe", "job", "gpu-orchestrator", "-n", "gpu-orchestrator-system")
    assert described.returncode == 1 and "no job named 'gpu-orchestrator'" in described.stderr


def test_get_jobs_filters_and_formats(every_status: Env) -> None:
    env = every_status
    training = env.gpuctl("get", "jobs", "--kind", "training", "--no-headers", "-o", "wide")
    names = [line.split()[0] for line in training.stdout.splitlines()]
    assert names == ["failed", "pending", "succeeded"]
    pool = env.gpuctl("get", "jobs", "--pool", "no-such-pool", "-o", "name")
    assert pool.stdout == "job.batch/pending\n"  # kubectl's names, the API group included
    kinds = env.gpuctl("get", "jobs", "--kind", "inference", "-o", "name").stdout.splitlines()
    assert kinds and all(name.startswith("deployment.apps/") for name in kinds)
    as_yaml = yaml.safe_load(env.gpuctl("get", "jobs", "-A", "-o", "yaml").stdout)
    assert as_yaml["kind"] == "List" and len(as_yaml["items"]) == len(EXPECTED)
    everywhere = env.gpuctl("get", "jobs", "-A")
    assert everywhere.stdout.startswith("NAMESPACE ")
    empty = env.gpuctl("get", "jobs", "-n", "kube-system")
    assert empty.returncode == 0 and "No jobs found in namespace kube-system" in empty.stderr


def test_get_jobs_pods_rows_name_the_job(every_status: Env) -> None:
    env = every_status
    env.sandbox.requests.clear()
    done = env.gpuctl("get", "jobs", "--pods")
    calls = env.sandbox.requests.api_calls()
    assert [r.verb for r in calls] == ["list"]
    assert "includeObject=Metadata" in calls[0].query  # the server's Table, as kubectl asks
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["JOB", "POD", "NAMESPACE"]
    rows = {line.split()[1]: line for line in lines[1:]}
    pull = next(row for pod, row in rows.items() if pod.startswith("image-pull-"))
    assert pull.startswith("image-pull ") and "Image pull failed" in pull
    partial = [row for pod, row in rows.items() if pod.startswith("partial-")]
    assert len(partial) == 3 and sum("Pending" in row for row in partial) == 1

    def names_match() -> bool:
        names = env.gpuctl("get", "jobs", "--pods", "-o", "name").stdout.splitlines()
        pods = jobs.list_pods(env.cluster, "default")
        return names == [f"pod/{pod['metadata']['name']}" for pod in pods]

    _wait(names_match)  # pods may come and go between the two lists


def test_pod_rows_from_the_printed_table_match_the_whole_pods(
    every_status: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Table's rows carry metadata only, yet read as rows made from the whole pods; and a
    server that answers without Tables gives the same rows from the objects it sends."""
    env = every_status
    printed = env.cluster.list_table("Pod", "default", label_selector=jobs.selector())
    assert printed and all(row.cells and "spec" not in row.object for row in printed)

    def same_rows() -> bool:
        at = table.now()
        whole = job_views.pod_rows(jobs.list_pods(env.cluster, "default"), wide=False, at=at)
        lines = jobs.list_pod_lines(env.cluster, "default")
        return job_views.pod_line_rows(lines, wide=False, at=at) == whole

    _wait(same_rows)  # pods may move on between the two lists
    monkeypatch.setattr(client, "TABLE_ACCEPT", "application/json")
    plain = env.cluster.list_table("Pod", "default", label_selector=jobs.selector())
    assert plain and all(row.cells is None and "spec" in row.object for row in plain)
    _wait(same_rows)


def test_describe_job_says_why_and_where(every_status: Env) -> None:
    env = every_status
    pending = env.gpuctl("describe", "job", "pending")
    assert pending.returncode == 0, pending.stderr
    assert "Status:      Pending" in pending.stdout
    assert "Why:         no node in pool 'no-such-pool' fits" in pending.stdout
    assert "FailedScheduling" in pending.stdout
    pull = env.gpuctl("describe", "job", "image-pull").stdout
    assert "Why:" in pull and "Image pull failed" in pull
    running = env.gpuctl("describe", "job", "running").stdout
    assert re.search(r"Access: +http://[0-9.]+:3[0-9]{4}\n", running), running
    gpus = env.gpuctl("describe", "job", "partial").stdout
    assert "Why:         not enough free GPUs" in gpus


def test_a_job_being_deleted_reads_terminating(env: Env) -> None:
    """Foreground deletion keeps the workload until its pods are gone (here a finalizer holds
    it): it is Terminating, not Running, in get jobs and describe job alike."""
    Apply(env.cluster).run(env.render(EVERY_STATUS["running"]))
    _wait(
        lambda: (
            status.workload_status(env.cluster.get("Deployment", "running", "default")) == "Running"
        )
    )
    hold = {"metadata": {"finalizers": ["example.com/hold"]}}
    env.cluster.patch("Deployment", "running", "default", hold)
    assert env.gpuctl("delete", "job", "running").returncode == 0
    listed = env.gpuctl("get", "jobs", "--no-headers").stdout.split()
    assert listed[:4] == ["running", "inference", "default", "Terminating"], listed
    assert "Status:      Terminating" in env.gpuctl("describe", "job", "running").stdout
    paused = env.gpuctl("pause", "running")
    assert paused.returncode == 1
    assert "deployment.apps/running is being deleted; there is nothing to pause" in paused.stderr
    env.cluster.patch("Deployment", "running", "default", {"metadata": {"finalizers": None}})


def test_describe_notebook_gives_the_url_with_its_token(env: Env) -> None:
    notebook = spec(
        "notebook",
        "lab",
        extra='  command: ["jupyter-lab", "--NotebookApp.token=s3cret"]',
    )
    Apply(env.cluster).run(env.render(notebook))
    _wait(lambda: "Running" in env.gpuctl("get", "jobs").stdout)
    described = env.gpuctl("describe", "job", "lab").stdout
    assert re.search(r"Access: +http://[0-9.]+:3[0-9]{4}/\?token=s3cret\n", described), described


def test_missing_job_is_one_line(env: Env) -> None:
    for args in (["describe", "job", "nope"], ["logs", "nope"], ["pause", "nope"]):
        done = env.gpuctl(*args)
        assert done.returncode == 1
        assert done.stderr == "error: no job named 'nope' in namespace default\n"


def test_pause_and_resume_a_deployment_and_a_job(env: Env) -> None:
    Apply(env.cluster).run(env.render(spec("compute", "web", extra="service:\n  replicas: 2")))
    assert env.gpuctl("pause", "web").stdout == "deployment.apps/web paused (scaled from 2 to 0)\n"
    assert env.gpuctl("pause", "web").stdout == "deployment.apps/web is already paused\n"
    _wait(lambda: "Paused" in env.gpuctl("get", "jobs").stdout)
    assert env.gpuctl("resume", "web").stdout == "deployment.apps/web resumed (scaled to 2)\n"
    assert env.gpuctl("resume", "web").stdout == "deployment.apps/web is not paused\n"
    assert env.cluster.get("Deployment", "web", "default")["spec"]["replicas"] == 2

    # a job that waits for a node stays unfinished (a finished one cannot be paused)
    Apply(env.cluster, allow_pending=True).run(
        env.render(spec("training", "train", pool="no-such-pool"))
    )
    assert env.gpuctl("pause", "train").stdout == "job.batch/train paused\n"
    assert env.cluster.get("Job", "train", "default")["spec"]["suspend"] is True
    assert env.gpuctl("resume", "train").stdout == "job.batch/train resumed\n"
    assert env.cluster.get("Job", "train", "default")["spec"]["suspend"] is False


def test_logs_of_several_pods_are_prefixed_and_filtered(env: Env) -> None:
    Apply(env.cluster).run(env.render(spec("compute", "web", extra="service:\n  replicas: 2")))
    _wait(lambda: "2/2" in env.gpuctl("get", "jobs").stdout)
    time.sleep(0.3)  # let each pod write a few lines
    done = env.gpuctl("logs", "web")
    assert done.returncode == 0, done.stderr
    pods = {line.split("]")[0][1:] for line in done.stdout.splitlines()}
    assert len(pods) == 2 and all(pod.startswith("web-") for pod in pods)
    one = sorted(pods)[0]
    tail = env.gpuctl("logs", "web", "--pod", one, "--tail", "2")
    assert len(tail.stdout.splitlines()) == 2
    assert not tail.stdout.startswith("[")  # one pod: no prefix
    first_word = done.stdout.splitlines()[0].split("] ", 1)[1].split()[0]
    grep = env.gpuctl("logs", "web", "--grep", re.escape(first_word))
    assert grep.stdout and all(first_word in line for line in grep.stdout.splitlines())
    bad = env.gpuctl("logs", "web", "--grep", "(")
    assert bad.returncode == 2 and "not a regular expression" in bad.stderr


def test_logs_follow_ends_with_a_finished_job(env: Env) -> None:
    Apply(env.cluster).run(env.render(spec("training", "short")))
    _wait(lambda: "short" in env.gpuctl("get", "jobs", "--pods").stdout)
    done = env.gpuctl("logs", "short", "-f")
    assert done.returncode == 0, done.stderr
    assert done.stdout  # everything the pod wrote, then the command ended by itself


def test_logs_follow_stops_cleanly_on_ctrl_c(env: Env) -> None:
    Apply(env.cluster).run(env.render(spec("compute", "web")))
    _wait(lambda: "1/1" in env.gpuctl("get", "jobs").stdout)
    follower = subprocess.Popen(
        [str(GPUCTL), "logs", "web", "-f", "--kubeconfig", str(env.kubeconfig)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert follower.stdout is not None
    first = follower.stdout.readline()  # streaming has begun
    follower.send_signal(signal.SIGINT)
    _out, err = follower.communicate(timeout=10)
    assert follower.returncode == 0, err
    assert first and "Traceback" not in err and "Aborted" not in err


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert table.colour_enabled(Terminal())
    assert table.paint("Failed", "red", True) == "\x1b[31mFailed\x1b[0m"
    monkeypatch.setenv("NO_COLOR", "1")
    assert not table.colour_enabled(Terminal())
    coloured = table.table(["A", "B"], [[table.paint("x", "red", True), "y"]])
    assert coloured.splitlines()[1] == "\x1b[31mx\x1b[0m   y"  # padding ignores colour codes


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (5, "5s"),
        (119, "119s"),
        (150, "2m30s"),
        (600, "10m"),
        (4 * 3600 + 60, "4h1m"),
        (30 * 3600, "30h"),
        (3 * 86400 + 3600, "3d1h"),
        (40 * 86400, "40d"),
        (800 * 86400, "2y70d"),
    ],
)
def test_age_reads_like_kubectl(seconds: int, shown: str) -> None:
    at = table.parse_time("2026-01-01T00:00:00Z")
    assert at is not None
    stamp = (at - timedelta(seconds=seconds)).isoformat()
    assert table.age(stamp, at) == shown


def test_columns_stay_aligned_with_wide_characters() -> None:
    text = table.table(["NAME", "DESCRIPTION", "AGE"], [["a", "训练任务", "1s"], ["b", "ab", "2s"]])
    first, second = text.splitlines()[1:]
    # 4 characters that take 8 columns: the next cell starts 4 characters earlier
    assert second.index("2s") == first.index("1s") + 4
    assert table.width("训练任务") == 8 and table.width("\x1b[31mab\x1b[0m") == 2


def test_get_jobs_loads_neither_the_renderer_nor_the_rest_of_the_kubernetes_package() -> None:
    """The read commands load the config loader and ApiClient only: not the renderer (Jinja),
    not kubernetes' dynamic client (nor kubernetes_validate and jsonschema through it), watch
    or stream; which still load when asked for."""
    code = (
        "import sys\n"
        "import gpuctl.cli.main, gpuctl.cli.jobs\n"
        "unused = ('kubernetes.dynamic', 'kubernetes.watch', 'kubernetes.stream',\n"
        "    'kubernetes_validate', 'jsonschema', 'jinja2', 'gpuctl.render')\n"
        "print(sorted(m for m in unused if m in sys.modules))\n"
        "import kubernetes\n"
        "print(kubernetes.__version__ > '', kubernetes.watch.Watch.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\nTrue Watch\n"
