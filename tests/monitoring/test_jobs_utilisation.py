"""`GET /api/v1/metrics/jobs`: every visible job's recent GPU utilisation in one request (the
console's sparklines), from a real Prometheus scraping the exporter; a user sees their own
jobs' series only, an admin everyone's; without a Prometheus the answer says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuctl.monitoring import gpu
from gpuctl.monitoring.prometheus import Prometheus
from tests.conftest import Env
from tests.monitoring.conftest import Exporter, GpuSeries, bound_pod, wait_scraped
from tests.monitoring.test_custom_metrics import Api, _world, serving


def _publish(env: Env, exporter: Exporter, url: str) -> None:
    """alice's `mine` at 80 % and 60 % (two GPUs), bob's `other` at 35 %."""
    mine, other = bound_pod(env, "alice", "mine"), bound_pod(env, "bob", "other")
    gpus = [
        GpuSeries(
            mine["spec"]["nodeName"], 0, 80, 1000, 1000, 50, "alice", mine["metadata"]["name"]
        ),
        GpuSeries(
            mine["spec"]["nodeName"], 1, 60, 1000, 1000, 51, "alice", mine["metadata"]["name"]
        ),
        GpuSeries(
            other["spec"]["nodeName"], 2, 35, 1000, 1000, 52, "bob", other["metadata"]["name"]
        ),
    ]
    exporter.publish(gpus)
    wait_scraped(url, gpus)


def _utilisation(api: Api, who: str, query: str = "") -> dict[str, Any]:
    answer = api.call(who, "GET", f"/metrics/jobs{query}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_each_caller_gets_their_jobs_utilisation_in_one_request(
    env: Env, exporter: Exporter, prometheus_url: str, tmp_path: Path
) -> None:
    with serving(env, tmp_path, prometheus_url) as api:
        _world(api)
        _publish(env, exporter, prometheus_url)
        alice = _utilisation(api, "alice")
        assert alice["source"] == prometheus_url
        assert [item["jobId"] for item in alice["items"]] == ["alice.mine"]
        values = alice["items"][0]["gpuUtilization"]
        assert values and set(values) == {70.0}  # the mean of its pods' GPUs
        bob = _utilisation(api, "bob")
        assert [(i["jobId"], set(i["gpuUtilization"])) for i in bob["items"]] == [
            ("bob.other", {35.0})
        ]
        admin = _utilisation(api, "admin", "?points=5")
        assert [item["jobId"] for item in admin["items"]] == ["alice.mine", "bob.other"]
        assert all(len(item["gpuUtilization"]) <= 5 for item in admin["items"])
        too_many = api.call("alice", "GET", "/metrics/jobs?points=100000")
        assert too_many.status_code == 400
        assert api.call(None, "GET", "/metrics/jobs").status_code == 401


def test_one_range_query_whatever_the_number_of_pods(env: Env) -> None:
    asked: list[str] = []

    class Counting(Prometheus):
        def query_range(self, promql: str, start: float, end: float, step: float) -> list[Any]:
            asked.append(promql)
            return []

    prometheus = Counting("http://127.0.0.1:1")
    assert gpu.utilisation_by_pod(prometheus, ["alice", "bob"], 0, 60, 3) == {}
    assert gpu.utilisation_by_pod(prometheus, [], 0, 60, 3) == {}
    assert asked == [f'avg by (namespace, pod) ({gpu.UTIL}{{namespace=~"alice|bob",pod!=""}})']


def test_without_prometheus_the_answer_says_so(env: Env, tmp_path: Path) -> None:
    with serving(env, tmp_path) as api:
        body = _utilisation(api, "alice")
        assert body == {
            "items": [],
            "source": None,
            "message": "no metrics source is configured: start serve with --prometheus-url",
        }
