"""The rules of a job's pushed values (names, numbers) and of the PROGRESS column, on their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuctl import settings
from gpuctl.errors import SpecError, UsageError
from gpuctl.monitoring import custom


@pytest.mark.parametrize("name", ["loss", "tokensPerSecond", "_x", "a" * 64])
def test_metric_names_that_are_taken(name: str) -> None:
    assert custom.checked({name: 1}) == {name: 1.0}


@pytest.mark.parametrize("name", ["", "9lives", "bad-name", "a:b", "ünicode", "a" * 65])
def test_metric_names_that_are_refused(name: str) -> None:
    with pytest.raises(custom.InvalidValues) as raised:
        custom.checked({name: 1})
    assert raised.value.field == f"metrics.{name}"


def test_progress_column_only_when_a_listed_job_reports_one() -> None:
    listed = [("a", "one"), ("a", "two")]
    assert custom.progress_cells(listed, {("b", "one"): 5.0}) is None
    assert custom.progress_cells(listed, {("a", "two"): 42.5}) == ["-", "42.5%"]
    assert custom.progress_cells(listed, {("a", "one"): 100.0}) == ["100%", "-"]


def test_serve_finds_the_pushgateway_like_prometheus(
    own_gpuctl_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuctl.server.cli import _pushgateway_url

    monkeypatch.delenv(custom.ENV_VAR, raising=False)
    assert _pushgateway_url(None, "prod") is None  # no file: none, and pushes are 503
    own_gpuctl_config.parent.mkdir(parents=True)
    own_gpuctl_config.write_text(
        "pushgatewayUrl: http://default:9091\n"
        "contexts:\n"
        "  prod: {pushgatewayUrl: http://prod:9091}\n"
        "  dev: {prometheusUrl: http://dev:9090}\n"  # its own Prometheus, the default gateway
    )
    assert _pushgateway_url(None, "prod") == "http://prod:9091"
    assert _pushgateway_url(None, "dev") == "http://default:9091"
    assert settings.load().prometheus_url_for("dev") == "http://dev:9090"
    assert _pushgateway_url("http://flag:9091", "prod") == "http://flag:9091"
    with pytest.raises(UsageError, match="--pushgateway-url pushgateway:9091: not an http"):
        _pushgateway_url("pushgateway:9091", "prod")
    own_gpuctl_config.write_text("contexts:\n  prod: {pushgatewayUrl: 9091}\n")
    with pytest.raises(SpecError) as raised:
        settings.load()
    assert str(raised.value.problems[0]).endswith(
        "contexts.prod.pushgatewayUrl: expected an http(s) URL, got 9091 "
        "(e.g. http://pushgateway.monitoring:9091)"
    )


@pytest.mark.parametrize("value", [10**400, -(10**400), float("nan"), float("-inf")])
def test_numbers_beyond_a_float_are_refused_not_an_error(value: float) -> None:
    with pytest.raises(custom.InvalidValues) as raised:
        custom.checked({"loss": value})
    assert raised.value.field == "metrics.loss" and "not a finite number" in str(raised.value)
