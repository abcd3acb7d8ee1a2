"""A Prometheus outage (a stopped Prometheus: nothing listens at its address) or a wrong answer
(something else answers there) costs the metrics, never the job: `GET /jobs/{id}` answers
without them and says why, `GET /jobs/{id}/metrics` is 503 MetricsUnavailable, and `query pools`
shows `-` for GPU-UTIL with a warning."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from gpuctl.server.app import create_app
from tests.conftest import Env
from tests.support.ports import free_port
from tests.support.sandbox import wait_for

from ..server.conftest import LOOPBACK
from .conftest import Exporter
from .test_top import table

POOL = """kind: pool
version: v0.1
metadata: {name: training}
nodes: {gpu-a100-0: {}, gpu-a100-1: {}}
"""
JOB = """kind: training
version: v0.1
job: {name: tune}
environment: {image: trainer:v1, command: [python, train.py]}
resources: {gpu: 1, cpu: 1, memory: 1Gi}
"""

SERVICE = """kind: inference
version: v0.1
job: {name: serve}
environment: {image: server:v1, command: [python, serve.py]}
service: {replicas: 1, port: 8000}
resources: {gpu: 1, cpu: 1, memory: 1Gi}
"""


@pytest.fixture(params=["stopped", "not-prometheus"])
def broken_url(request: pytest.FixtureRequest, exporter: Exporter) -> Iterator[str]:
    """Where no Prometheus answers: a port nothing listens on, or the exporter (its page is no
    Prometheus API answer)."""
    yield (
        f"http://127.0.0.1:{free_port()}"
        if request.param == "stopped"
        else f"http://{exporter.url}"
    )


def test_job_detail_answers_without_metrics_and_says_why(env: Env, broken_url: str) -> None:
    assert env.gpuctl("create", "-f", "-", stdin=JOB).returncode == 0
    with TestClient(create_app(env.cluster, None, broken_url), base_url=LOOPBACK) as client:
        detail = client.get("/api/v1/jobs/default.tune")
        assert detail.status_code == 200, detail.text
        body = detail.json()
        assert body["name"] == "tune"
        assert set(body["metrics"].values()) == {None}
        assert body["metricsError"].startswith(f"Prometheus at {broken_url} ")
        series = client.get("/api/v1/jobs/default.tune/metrics")
        assert series.status_code == 503, series.text
        assert series.json() == {"error": "MetricsUnavailable", "message": body["metricsError"]}


def test_query_pools_shows_a_dash_for_gpu_util(env: Env, broken_url: str) -> None:
    assert env.gpuctl("create", "-f", "-", stdin=POOL).returncode == 0
    done = env.gpuctl("query", "pools", "--prometheus-url", broken_url)
    assert done.returncode == 0, done.stderr
    header, row, default = table(done.stdout)  # the nodes in no pool come last
    assert header[-1] == "GPU-UTIL" and row[0] == "training" and row[-1] == "-"
    assert default[0] == "default" and default[-1] == "-"
    assert done.stderr.startswith(f"warning: GPU-UTIL: Prometheus at {broken_url} ")
    assert len(done.stderr.splitlines()) == 1


def test_job_detail_with_a_working_prometheus_has_no_metrics_error(
    env: Env, prometheus_url: str
) -> None:
    assert env.gpuctl("create", "-f", "-", stdin=JOB).returncode == 0
    with TestClient(create_app(env.cluster, None, prometheus_url), base_url=LOOPBACK) as client:
        assert client.get("/api/v1/jobs/default.tune").json()["metricsError"] is None


def test_metrics_of_a_job_without_pods_are_503_while_prometheus_is_down(
    env: Env, broken_url: str, prometheus_url: str
) -> None:
    """A job with no pod (paused) reads no series, but its metrics still come from
    Prometheus: an outage is 503 whether or not the job has pods; a working one answers []."""
    assert env.gpuctl("create", "-f", "-", stdin=SERVICE).returncode == 0
    assert env.gpuctl("pause", "serve").returncode == 0
    wait_for(
        lambda: not env.cluster.list("Pod", "default", label_selector="app=serve"),
        timeout=60,
        what="the paused job's pods to go",
    )
    with TestClient(create_app(env.cluster, None, broken_url), base_url=LOOPBACK) as client:
        series = client.get("/api/v1/jobs/default.serve/metrics")
        assert series.status_code == 503, series.text
        assert series.json()["error"] == "MetricsUnavailable"
        assert series.json()["message"].startswith(f"Prometheus at {broken_url} ")
    with TestClient(create_app(env.cluster, None, prometheus_url), base_url=LOOPBACK) as client:
        series = client.get("/api/v1/jobs/default.serve/metrics")
        assert series.status_code == 200, series.text
        assert series.json()["gpuUtilization"] == series.json()["memoryUsage"] == []
