"""A small client for Prometheus' HTTP API (instant queries), on urllib3.

Where Prometheus is: `--prometheus-url`, else the environment variable GPUCTL_PROMETHEUS_URL,
else gpuctl's config file (gpuctl.settings) for the kubeconfig context in use.
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


def resolved(option: str | None, context: str | None) -> tuple[str, str] | None:
    """(the Prometheus base URL, where it came from), first found of: the option
    (--prometheus-url), the environment (GPUCTL_PROMETHEUS_URL), gpuctl's config file for
    kubeconfig context `context`, the config file's default; None when none gives one. The
    file is read only when it is needed."""
    from gpuctl import settings

    if option:
        return option.rstrip("/"), "--prometheus-url"
    if os.environ.get(ENV_VAR):
        return os.environ[ENV_VAR].rstrip("/"), f"${ENV_VAR}"
    found = settings.load()
    if context is not None and context in found.context_urls:
        where = f"{settings.config_path()}, context {context}"
        return found.context_urls[context].rstrip("/"), where
    if found.prometheus_url:
        return found.prometheus_url.rstrip("/"), f"{settings.config_path()}, default"
    return None


def configured_url(option: str | None, context: str | None) -> str | None:
    """The URL `resolved` finds, or None."""
    found = resolved(option, context)
    return found[0] if found else None


def url_from(option: str | None, context: str | None) -> str:
    """configured_url, or NotConfigured saying how to configure one."""
    url = configured_url(option, context)
    if not url:
        raise NotConfigured(
            f"no Prometheus configured: pass --prometheus-url URL, set {ENV_VAR}, or run "
            "`gpuctl config set-prometheus URL` (e.g. http://prometheus.monitoring:9090)"
        )
    return url


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
            body = None
        if not isinstance(body, dict):  # something else listens there: say so in one line
            raise PrometheusError(
                f"Prometheus at {self.url} answered {response.status} with no Prometheus API "
                "answer (is that address a Prometheus?)"
            )
        if response.status != 200 or body.get("status") != "success":
            error = " ".join(str(body.get("error") or "no error given").split())
            raise PrometheusError(f"Prometheus at {self.url} answered {response.status}: {error}")
        result: dict[str, Any] = body.get("data") or {}
        return result
