"""A job's own values pushed through the SDK (`metrics.push`) to `gpuctl serve` and a real
Pushgateway, read back by `jobs.metrics` from a real Prometheus that scrapes it; every visible
job's GPU utilisation (`metrics.utilisation`) from the same Prometheus scraping a DCGM-named
exporter; the pushes the server refuses, as typed errors; and the README's training-loop
example."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpuctl_client import BadRequest, Client, NotFound, models
from sdk_helpers import FAST_RETRIES

from tests.conftest import Env
from tests.monitoring.conftest import Exporter, GpuSeries, bound_pod, wait_scraped
from tests.server.conftest import QUOTA, SECRETS, inference
from tests.server.test_hostile import Served, served
from tests.support.sandbox import wait_for

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "push_metrics.py"


@pytest.fixture
def measured(
    env: Env, token_file: Path, prometheus_and_pushgateway: tuple[str, str]
) -> Iterator[Served]:
    """`gpuctl serve` reading the real Prometheus and relaying to the real Pushgateway."""
    prometheus, pushgateway = prometheus_and_pushgateway
    urls = ("--prometheus-url", prometheus, "--pushgateway-url", pushgateway)
    with served(env, token_file, *urls) as running:
        yield running


@pytest.fixture
def alice(measured: Served) -> Iterator[Client]:
    with (
        Client(measured.base, SECRETS["admin"], retry=FAST_RETRIES) as admin,
        Client(measured.base, SECRETS["alice"], retry=FAST_RETRIES) as client,
    ):
        admin.quotas.create(QUOTA)  # alice's namespace
        client.jobs.create(inference("mine", replicas=1))  # its pod keeps running
        yield client
        # deleting the job deletes its Pushgateway group: the module's next test starts bare
        assert "Pushgateway" in client.jobs.delete("alice.mine").message


def _last(series: dict[str, list[models.Point]], name: str) -> float | None:
    points = series.get(name) or []
    return points[-1].value if points else None


def _custom(client: Client, job_id: str) -> dict[str, list[models.Point]]:
    found = client.jobs.metrics(job_id).custom
    return found.additional_properties if isinstance(found, models.JobMetricsCustom) else {}


def test_the_readmes_training_loop_pushes_its_loss_and_progress(
    alice: Client, measured: Served
) -> None:
    environ = {
        **os.environ,
        "GPUCTL_URL": measured.base,
        "GPUCTL_TOKEN": SECRETS["alice"],
        "GPUCTL_JOB_ID": "alice.mine",
    }
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    wait_for(
        lambda: _last(_custom(alice, "alice.mine"), "progress") == 100.0,
        timeout=30,
        interval=0.5,
        what="the last push scraped",
    )
    assert _last(_custom(alice, "alice.mine"), "loss") == 0.02
    readme = (EXAMPLE.parents[1] / "README.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8") in readme


def test_pushed_values_are_read_back(
    alice: Client, prometheus_and_pushgateway: tuple[str, str]
) -> None:
    prometheus, pushgateway = prometheus_and_pushgateway
    pushed = alice.metrics.push("alice.mine", loss=2.5, progress=10, tokensPerSecond=5100)
    assert (pushed.job_id, pushed.stored, pushed.pushgateway) == (
        "alice.mine",
        ["loss", "progress", "tokensPerSecond"],
        pushgateway,
    )
    # a mapping and keywords together; the names it leaves out keep their values
    later = alice.metrics.push("alice.mine", {"loss": 1.75}, progress=42.5)
    assert later.stored == ["loss", "progress"]
    wait_for(
        lambda: _last(_custom(alice, "alice.mine"), "progress") == 42.5,
        timeout=30,
        interval=0.5,
        what="the second push scraped",
    )
    custom = _custom(alice, "alice.mine")
    assert sorted(custom) == ["loss", "progress", "tokensPerSecond"]
    assert (_last(custom, "loss"), _last(custom, "tokensPerSecond")) == (1.75, 5100)
    answer = alice.jobs.metrics("alice.mine")
    assert answer.source == prometheus
    assert isinstance(answer.throughput, list) and answer.throughput[-1].value == 5100


def test_a_push_the_server_refuses_is_a_typed_error(alice: Client) -> None:
    with pytest.raises(BadRequest) as not_a_number:
        alice.metrics.push("alice.mine", loss=float("nan"))
    assert (not_a_number.value.error, not_a_number.value.field) == (
        "InvalidRequest",
        "metrics.loss",
    )
    with pytest.raises(BadRequest) as too_far:
        alice.metrics.push("alice.mine", progress=150)
    assert too_far.value.field == "metrics.progress"
    with pytest.raises(BadRequest):
        alice.metrics.push("alice.mine")  # no value at all
    with pytest.raises(NotFound) as forged:
        alice.metrics.push("bob.mine", loss=1.0)
    assert forged.value.error == "JobNotFound"


def test_every_visible_jobs_utilisation(
    alice: Client, env: Env, exporter: Exporter, prometheus_and_pushgateway: tuple[str, str]
) -> None:
    prometheus, _ = prometheus_and_pushgateway
    pod = bound_pod(env, "alice", "mine")
    node, name = pod["spec"]["nodeName"], pod["metadata"]["name"]
    gpus = [
        GpuSeries(node, 0, 80, 1000, 1000, 50, "alice", name),
        GpuSeries(node, 1, 60, 1000, 1000, 51, "alice", name),
    ]
    exporter.publish(gpus)
    wait_scraped(prometheus, gpus)
    found = alice.metrics.utilisation(points=5)
    assert found.source == prometheus
    assert [item.job_id for item in found.items] == ["alice.mine"]
    values = found.items[0].gpu_utilization
    assert 0 < len(values) <= 5 and set(values) == {70.0}  # the mean of its pod's GPUs
