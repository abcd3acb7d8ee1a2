"""`GET /jobs/{id}`'s `metrics.throughput`: the last value the job pushed of `throughput`,
else `tokensPerSecond`, else `samplesPerSecond` (POST /metrics/custom, read back from the
Prometheus that scrapes the Pushgateway); null when it pushed none. The whole path, with a
real Pushgateway and Prometheus, is tests/monitoring/test_custom_metrics.py."""

from __future__ import annotations

import pytest

from gpuctl.monitoring.custom import throughput_now
from gpuctl.monitoring.prometheus import Prometheus, Sample


class Pushed(Prometheus):
    """A Prometheus whose instant queries answer the job's pushed values, by series name."""

    def __init__(self, values: dict[str, float]) -> None:
        super().__init__("http://prometheus.invalid")
        self.values = values
        self.asked: list[str] = []

    def query(self, promql: str) -> list[Sample]:
        self.asked.append(promql)
        return [Sample({"__name__": f"gpuctl_job_{k}"}, v) for k, v in self.values.items()]


@pytest.mark.parametrize(
    ("values", "shown"),
    [
        ({"throughput": 812.5, "loss": 0.3}, "812.5/s"),
        ({"tokensPerSecond": 5100.0}, "5100 tokens/s"),
        ({"samplesPerSecond": 12.0, "tokensPerSecond": 5100.0}, "5100 tokens/s"),
        ({"samplesPerSecond": 12.0}, "12 samples/s"),
        ({}, None),
    ],
)
def test_throughput_now_is_the_first_pushed_name(values: dict[str, float], shown: str) -> None:
    prometheus = Pushed(values)
    assert throughput_now(prometheus, "alice", "web") == shown
    (promql,) = prometheus.asked
    assert 'namespace="alice"' in promql and 'job="web"' in promql
