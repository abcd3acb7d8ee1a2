"""A job's whole life through the SDK against `gpuctl serve` on the sandbox: created from YAML,
listed page by page, read, its logs followed to their end (over the WebSocket and over the
chunked stream), waited for, its metrics, deleted; and the quickstart example of the README."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gpuctl_client import Client, NotFound, Unprocessable, models
from sdk_helpers import spec

from gpuctl.sandbox.config import SandboxConfig
from tests.conftest import Env
from tests.server.conftest import QUOTA, SECRETS
from tests.server.test_hostile import Served
from tests.support.sandbox import wait_for

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "quickstart.py"


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """Training pods that run 3 s, writing a line every 0.3 s: long enough to follow."""
    return SandboxConfig.fast(job_run_seconds=3.0, log_interval_seconds=0.3)


def test_a_jobs_whole_life(admin: Client, env: Env) -> None:
    made = admin.jobs.create(spec("sft-a"))
    assert (made.job_id, made.kind, made.status) == (
        "default.sft-a",
        models.JobKind.TRAINING,
        models.JobStatus.PENDING,
    )
    for name in ("sft-b", "sft-c"):
        admin.jobs.create(spec(name))

    first = admin.jobs.list(page_size=2)
    assert first.total == 3 and len(first.items) == 2
    every = [job.job_id for job in admin.jobs.iter(page_size=2)]
    assert sorted(every) == ["default.sft-a", "default.sft-b", "default.sft-c"]
    assert [job.job_id for job in admin.jobs.iter(kind="training", status="succeeded")] == []

    detail = admin.jobs.get("default.sft-a")
    assert (detail.name, detail.namespace, detail.gpu) == ("sft-a", "default", 1)

    over_websocket = list(admin.jobs.follow("default.sft-a", via="websocket"))
    chunked = list(admin.jobs.follow("default.sft-b", via="chunked"))
    for job, lines in (("sft-a", over_websocket), ("sft-b", chunked)):
        assert lines[0].endswith(": started"), lines
        assert lines[-1].endswith(": done"), lines
        assert any(": step " in line for line in lines), lines
        assert all(job in line for line in lines), lines

    finished = admin.jobs.wait("default.sft-a", timeout=60, poll=0.2)
    assert finished.status == models.JobStatus.SUCCEEDED
    assert admin.jobs.logs("default.sft-a", tail=1).logs[-1].endswith(": done")

    metrics = admin.jobs.metrics("default.sft-a")
    assert metrics.gpu_utilization == [] and metrics.source is None

    for job_id in ("default.sft-a", "default.sft-b", "default.sft-c"):
        assert admin.jobs.delete(job_id).status == models.JobDeletedStatus.TERMINATING
    wait_for(lambda: env.cluster.list("Job", "default") == [], what="the jobs gone")
    with pytest.raises(NotFound) as missing:
        admin.jobs.get("default.sft-a")
    assert missing.value.error == "JobNotFound"


def test_a_batch_creates_each_job_and_says_which_failed(admin: Client, alice: Client) -> None:
    admin.quotas.create(QUOTA)  # alice's namespace comes with her quota
    batch = alice.jobs.create_batch([spec("one"), "kind: nothing\n", spec("two")])
    assert not [f.message for f in batch.failed if f.index != 1]
    assert sorted(made.job_id for made in batch.success) == ["alice.one", "alice.two"]
    assert [(failed.index, failed.error) for failed in batch.failed] == [(1, "InvalidYAML")]
    none = alice.jobs.create_batch(["kind: nothing\n"])  # the server's 422: answered, not raised
    assert none.success == [] and [failed.index for failed in none.failed] == [0]
    assert {job.job_id for job in alice.jobs.iter()} == {"alice.one", "alice.two"}


def test_a_jobs_manifests_are_what_its_spec_renders_to(
    admin: Client, alice: Client, server: Served
) -> None:
    admin.quotas.create(QUOTA)
    alice.jobs.create(spec("sft"))
    with Client(server.base, SECRETS["bob"]) as bob:
        bob.jobs.create(spec("sft"))
    rendered = alice.jobs.manifests("alice.sft")
    assert (rendered.job_id, rendered.message) == ("alice.sft", "")
    kinds = [(m.kind, m.name, m.namespace) for m in rendered.manifests]
    assert ("Job", "sft", "alice") in kinds
    job = yaml.safe_load(next(m.yaml for m in rendered.manifests if m.kind == "Job"))
    image = job["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == "registry.example.com/trainer:1.0"
    with pytest.raises(NotFound) as hidden:  # bob's job, as if there were none
        alice.jobs.manifests("bob.sft")
    assert hidden.value.error == "JobNotFound"


def test_the_readmes_example_runs(server: Served, tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(spec("quick"))
    environ = {**os.environ, "GPUCTL_URL": server.base, "GPUCTL_TOKEN": SECRETS["admin"]}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(job)],
        capture_output=True,
        text=True,
        timeout=300,
        env=environ,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith(": started") and lines[-3].endswith(": done"), lines
    assert lines[-2] == "finished: succeeded"
    assert "quick" in lines[-1], lines


def test_the_example_in_the_readme_is_the_example_file() -> None:
    readme = (EXAMPLE.parents[1] / "README.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8") in readme
    assert len(EXAMPLE.read_text(encoding="utf-8").splitlines()) <= 12


def test_a_job_is_named_as_the_rest_api_takes_it(admin: Client, alice: Client) -> None:
    """`<namespace>.<name>`, `<namespace>/<name>` (escaped by the SDK) or `<name>` alone, for a
    job in the caller's own namespace; answers give `<namespace>.<name>`."""
    admin.quotas.create(QUOTA)
    alice.jobs.create(spec("sft"))
    followed = list(alice.jobs.follow("alice/sft", via="websocket"))
    assert followed[-1].endswith(": done"), followed
    for reference in ("alice.sft", "alice/sft", "sft"):
        assert alice.jobs.get(reference).job_id == "alice.sft"
        assert alice.jobs.manifests(reference).job_id == "alice.sft"
        assert alice.jobs.logs(reference, tail=1).logs[-1].endswith(": done")
    with pytest.raises(NotFound):
        admin.jobs.get("sft")  # an admin's own namespace is the server's
    assert alice.jobs.delete("alice/sft").job_id == "alice.sft"


def test_a_job_no_node_could_hold_is_refused_unless_pending_is_allowed(admin: Client) -> None:
    typed = spec("typed").replace("  gpu: 1\n", "  gpu: 1\n  gpu-type: H900\n")
    with pytest.raises(Unprocessable) as refused:
        admin.jobs.create(typed)
    assert (refused.value.error, refused.value.field) == ("Unschedulable", "resources.gpu-type")
    assert "no node has GPU type 'H900'" in refused.value.message
    made = admin.jobs.create(typed, allow_pending=True)
    assert made.job_id == "default.typed"
    assert any("accepted as pending was allowed" in warning for warning in made.warnings)
    batch = admin.jobs.create_batch([spec("typed-2").replace("  gpu: 1\n", "  gpu: 16\n")])
    assert [(f.index, f.error, f.field) for f in batch.failed] == [
        (0, "Unschedulable", "resources.gpu")
    ]


def test_logs_are_cut_to_limit_bytes_in_whole_lines_and_say_so(admin: Client) -> None:
    admin.jobs.create(spec("sft"))
    done = admin.jobs.wait("default.sft", timeout=60, poll=0.2)
    assert done.status == models.JobStatus.SUCCEEDED
    whole = admin.jobs.logs("default.sft", tail=50)
    assert whole.truncated is False and whole.logs[-1].endswith(": done")
    assert len(whole.logs) >= 3, whole.logs
    first = whole.logs[0]  # one pod: no `[pod]` prefix, the line as the pod wrote it
    cut = admin.jobs.logs("default.sft", tail=50, limit_bytes=len(first.encode()) + 1)
    assert cut.truncated is True
    assert cut.logs == [first]  # whole lines from the first asked for, none cut in the middle
