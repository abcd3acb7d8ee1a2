"""Where Prometheus is: --prometheus-url > $GPUCTL_PROMETHEUS_URL > gpuctl's config file for the
kubeconfig context in use > the file's default > none; `top`, `describe job` and `serve` read it
the same way, against the real Prometheus of this folder's conftest."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import yaml

from gpuctl import settings
from gpuctl.errors import SpecError
from gpuctl.monitoring import prometheus
from tests.conftest import GPUCTL, Env
from tests.support.ports import free_port

from .conftest import Exporter
from .test_top import serve, table

DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens there


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_order_flag_then_environment_then_context_then_default(
    own_gpuctl_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(prometheus.ENV_VAR, raising=False)
    assert prometheus.resolved(None, "prod") is None  # no file: nothing configured
    _write(
        own_gpuctl_config,
        "prometheusUrl: http://default:9090\n"
        "contexts:\n"
        "  prod: {prometheusUrl: 'http://prod:9090/'}\n"
        "  empty:\n",
    )
    shown = str(own_gpuctl_config)
    assert prometheus.resolved(None, "prod") == ("http://prod:9090", f"{shown}, context prod")
    assert prometheus.resolved(None, "dev") == ("http://default:9090", f"{shown}, default")
    assert prometheus.resolved(None, "empty") == ("http://default:9090", f"{shown}, default")
    assert prometheus.resolved(None, None) == ("http://default:9090", f"{shown}, default")
    monkeypatch.setenv(prometheus.ENV_VAR, "http://env:9090")
    assert prometheus.resolved(None, "prod") == ("http://env:9090", "$GPUCTL_PROMETHEUS_URL")
    assert prometheus.resolved("http://flag:9090", "prod") == (
        "http://flag:9090",
        "--prometheus-url",
    )
    _write(own_gpuctl_config, "contexts:\n  prod: {prometheusUrl: 'http://prod:9090'}\n")
    monkeypatch.delenv(prometheus.ENV_VAR)
    assert prometheus.configured_url(None, "dev") is None
    with pytest.raises(prometheus.NotConfigured, match="gpuctl config set-prometheus URL"):
        prometheus.url_from(None, "dev")


def _add_context(kubeconfig: Path, name: str, current: str) -> None:
    """A second context on the same cluster and user, and which one is current."""
    config = yaml.safe_load(kubeconfig.read_text())
    first = config["contexts"][0]
    config["contexts"].append({"name": name, "context": dict(first["context"])})
    config["current-context"] = current
    kubeconfig.write_text(yaml.safe_dump(config))


def _use_context(kubeconfig: Path, name: str) -> None:
    config = yaml.safe_load(kubeconfig.read_text())
    config["current-context"] = name
    kubeconfig.write_text(yaml.safe_dump(config))


def test_switching_the_kubeconfig_context_switches_prometheus(
    env: Env, exporter: Exporter, prometheus_url: str, own_gpuctl_config: Path
) -> None:
    gpus = serve(env, exporter, prometheus_url)
    sandbox_context = yaml.safe_load(env.kubeconfig.read_text())["current-context"]
    _add_context(env.kubeconfig, "elsewhere", current=sandbox_context)
    no_env = {prometheus.ENV_VAR: ""}
    assert env.gpuctl("config", "set-prometheus", prometheus_url, env=no_env).returncode == 0
    done = env.gpuctl("config", "set-prometheus", DEAD, "--context", "elsewhere", env=no_env)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(own_gpuctl_config.read_text()) == {
        "contexts": {
            sandbox_context: {"prometheusUrl": prometheus_url},
            "elsewhere": {"prometheusUrl": DEAD},
        }
    }

    nodes = env.gpuctl("top", "nodes", env=no_env)
    assert nodes.returncode == 0, nodes.stderr
    hottest = max(gpus, key=lambda g: g.temp)
    assert table(nodes.stdout)[1][0] == hottest.node and table(nodes.stdout)[1][-1] == "86°C"
    described = env.gpuctl("describe", "job", "tune", env=no_env)
    assert "GPU usage (Prometheus):" in described.stdout, described.stdout

    _use_context(env.kubeconfig, "elsewhere")
    moved = env.gpuctl("top", "nodes", env=no_env)
    assert moved.returncode == 1 and f"Prometheus at {DEAD} is unreachable" in moved.stderr
    described = env.gpuctl("describe", "job", "tune", env=no_env)
    assert described.returncode == 0 and f"GPU usage:  Prometheus at {DEAD}" in described.stdout
    given = env.gpuctl("top", "nodes", "--context", sandbox_context, env=no_env)
    assert given.returncode == 0, given.stderr
    # the environment wins over the file, the flag over both
    assert env.gpuctl("top", "nodes", env={prometheus.ENV_VAR: prometheus_url}).returncode == 0
    flagged = env.gpuctl("top", "nodes", "--prometheus-url", prometheus_url, env=no_env)
    assert flagged.returncode == 0, flagged.stderr
    where = env.gpuctl("config", "get-prometheus", env=no_env)
    assert where.stdout == f"{DEAD}  ({own_gpuctl_config}, context elsewhere)\n"


def test_a_bad_config_file_is_one_line_naming_file_line_and_field(
    env: Env, own_gpuctl_config: Path
) -> None:
    no_env = {prometheus.ENV_VAR: ""}
    shown = str(own_gpuctl_config)
    cases = {
        "contexts:\n  a:\n    prometeusUrl: http://x:9090\n": f"{shown}:3:5: "
        "contexts.a.prometeusUrl: unknown field (did you mean 'prometheusUrl'?)",
        "prometheusUrl: 9090\n": f"{shown}:1:16: prometheusUrl: expected an http(s) URL, got 9090 "
        "(e.g. http://prometheus.monitoring:9090)",
        "contexts: [a, b]\n": f"{shown}:1:11: contexts: expected a mapping of kubeconfig context "
        "names",
        "contexts: {a: [\n": f"{shown}:2:1: invalid YAML: ",
    }
    for text, expected in cases.items():
        own_gpuctl_config.parent.mkdir(parents=True, exist_ok=True)
        own_gpuctl_config.write_text(text)
        done = env.gpuctl("top", "jobs", env=no_env)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
        assert done.stderr.startswith(expected), done.stderr
    # a URL given on the command line never reads the file
    flagged = env.gpuctl("top", "jobs", "--prometheus-url", DEAD, env=no_env)
    assert "unreachable" in flagged.stderr and shown not in flagged.stderr
    refused = env.gpuctl("config", "set-prometheus", "prometheus:9090", env=no_env)
    assert refused.returncode == 2 and "'prometheus:9090' is not an http(s) URL" in refused.stderr


def test_an_empty_or_commented_config_file_configures_nothing(own_gpuctl_config: Path) -> None:
    _write(own_gpuctl_config, "# nothing yet\n\n")
    assert settings.load() == settings.Settings()
    written = settings.set_prometheus_url("http://p:9090", None)
    assert written == own_gpuctl_config
    assert settings.load().prometheus_url_for("any") == "http://p:9090"
    # empty `contexts:` and empty entries are filled in; other settings stay
    _write(own_gpuctl_config, "prometheusUrl: http://d:9090\ncontexts:\n")
    settings.set_prometheus_url("http://a:9090", "a")
    _write(own_gpuctl_config, own_gpuctl_config.read_text() + "  b:\n")
    settings.set_prometheus_url("http://b:9090", "b")
    assert settings.load() == settings.Settings(
        "http://d:9090", {"a": "http://a:9090", "b": "http://b:9090"}
    )


def test_a_context_name_that_yaml_reads_as_a_number_must_be_quoted(
    own_gpuctl_config: Path,
) -> None:
    _write(own_gpuctl_config, "contexts:\n  2024: {prometheusUrl: 'http://p:9090'}\n")
    with pytest.raises(SpecError) as caught:
        settings.load()
    assert str(caught.value) == (
        f"{own_gpuctl_config}:2:3: contexts.2024: a context's name is text: quote it"
    )


def test_serve_takes_the_contexts_prometheus_from_the_config_file(
    env: Env, exporter: Exporter, prometheus_url: str, own_gpuctl_config: Path
) -> None:
    serve(env, exporter, prometheus_url)
    context = yaml.safe_load(env.kubeconfig.read_text())["current-context"]
    _write(
        own_gpuctl_config,
        f"prometheusUrl: {DEAD}\ncontexts:\n  {context}: {{prometheusUrl: {prometheus_url}}}\n",
    )
    port = free_port()
    server = subprocess.Popen(
        [str(GPUCTL), "serve", "--port", str(port), "--kubeconfig", str(env.kubeconfig)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if k != prometheus.ENV_VAR},
    )
    try:
        url = f"http://127.0.0.1:{port}/api/v1/jobs/default.tune/metrics?metric=gpuUtilization"
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(url)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "gpuctl serve did not start"
                time.sleep(0.1)
        assert answer.status_code == 200, answer.text
        assert answer.json()["source"] == prometheus_url
        assert {p["value"] for p in answer.json()["gpuUtilization"]} == {70.0}
    finally:
        server.terminate()
        server.wait(10)
