"""A small client for Prometheus' HTTP API (instant queries), on urllib3.

Where Prometheus is: `--prometheus-url`, else the environment variable GPUCTL_PROMETHEUS_URL.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import urllib3

from gpuctl.errors import GpuctlError

ENV_VAR = "GPUCTL_PROMETHEUS_URL"
TIMEOUT = urllib3.Timeout(connect=5.0, read=30.0)


class NotConfigured(GpuctlError):
    pass


class PrometheusError(GpuctlError):
    pass


def url_from(option: str | None) -> str:
    """The Prometheus base URL from the option, else the environment; NotConfigured when
    neither gives one."""
    url = option or os.environ.get(ENV_VAR)
    if not url:
        raise NotConfigured(
            f"no Prometheus configured: pass --prometheus-url URL or set {ENV_VAR} "
            "(e.g. http://prometheus.monitoring:9090)"
        )
    return url.rstrip("/")


@dataclass(frozen=True)
class Sample:
    labels: dict[str, str]
    value: float


@dataclass(frozen=True)
class Series:
    labels: dict[str, str]
    points: list[tuple[float, float]]


class Prometheus:
    def __init__(self, url: str) -> None:
        self.url = url
        self.http = urllib3.PoolManager(timeout=TIMEOUT, retries=False)

    def query(self, promql: str) -> list[Sample]:
        """An instant vector query: one sample per series."""
        data = self._get("/api/v1/query", {"query": promql})
        if data.get("resultType") != "vector":
            kind = data.get("resultType")
            raise PrometheusError(f"expected a vector from {promql!r}, got {kind}")
        return [
            Sample(dict(item.get("metric") or {}), float(item["value"][1]))
            for item in data.get("result") or []
        ]

    def query_range(self, promql: str, start: float, end: float, step: float) -> list[Series]:
        """A range query: per series, its (unix time, value) points from start to end."""
        fields = {
            "query": promql,
            "start": f"{start:.3f}",
            "end": f"{end:.3f}",
            "step": f"{step:g}",
        }
        data = self._get("/api/v1/query_range", fields)
        if data.get("resultType") != "matrix":
            kind = data.get("resultType")
            raise PrometheusError(f"expected a matrix from {promql!r}, got {kind}")
        return [
            Series(
                dict(item.get("metric") or {}),
                [(float(t), float(v)) for t, v in item.get("values") or []],
            )
            for item in data.get("result") or []
        ]

    def _get(self, path: str, fields: dict[str, str]) -> dict[str, Any]:
        try:
            response = self.http.request("GET", self.url + path, fields=fields)
        except urllib3.exceptions.HTTPError as exc:
            raise PrometheusError(f"Prometheus at {self.url} is unreachable: {exc}") from exc
        try:
            body = json.loads(response.data)
        except ValueError:
            body = {}
        if response.status != 200 or body.get("status") != "success":
            error = body.get("error") or response.data[:200].decode("utf-8", "replace")
            raise PrometheusError(f"Prometheus at {self.url} answered {response.status}: {error}")
        result: dict[str, Any] = body.get("data") or {}
        return result
