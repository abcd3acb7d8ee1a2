"""A real Prometheus (Debian's `prometheus` package) scraping a tiny DCGM-named exporter.

Prometheus runs on a loopback port with a scrape interval of 1 s; the exporter is
prometheus-client's HTTP server in this process, its gauges set by the tests.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import urllib3
from prometheus_client import CollectorRegistry, Gauge, start_http_server

from gpuctl.monitoring import gpu
from gpuctl.monitoring.prometheus import Prometheus
from tests.conftest import Env
from tests.support.ports import free_port
from tests.support.sandbox import wait_for

LABELS = ("gpu", "UUID", "modelName", "Hostname", "namespace", "pod", "container")
READY_TIMEOUT = 60.0


@dataclass
class GpuSeries:
    """One GPU as the DCGM exporter reports it."""

    node: str
    index: int
    util: float
    used_mib: float
    free_mib: float
    temp: float
    namespace: str = ""
    pod: str = ""


@dataclass
class Exporter:
    url: str
    registry: CollectorRegistry
    gauges: dict[str, Gauge] = field(default_factory=dict)

    def publish(self, gpus: list[GpuSeries]) -> None:
        """Serve exactly these GPUs from now on."""
        for gauge in self.gauges.values():
            gauge.clear()
        for g in gpus:
            container = g.pod.rsplit("-", 1)[0] if g.pod else ""
            labels = [str(g.index), f"GPU-{g.node}-{g.index}", "NVIDIA A100-SXM4-80GB", g.node]
            labels += [g.namespace, g.pod, container]
            for name, value in (
                (gpu.UTIL, g.util),
                (gpu.FB_USED, g.used_mib),
                (gpu.FB_FREE, g.free_mib),
                (gpu.TEMP, g.temp),
            ):
                self.gauges[name].labels(*labels).set(value)


@pytest.fixture(scope="module")
def exporter() -> Iterator[Exporter]:
    registry = CollectorRegistry()
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    found = Exporter(f"127.0.0.1:{server.server_port}", registry)
    for name in (gpu.UTIL, gpu.FB_USED, gpu.FB_FREE, gpu.TEMP):
        found.gauges[name] = Gauge(name, f"DCGM {name}", LABELS, registry=registry)
    yield found
    server.shutdown()
    thread.join(5)


@pytest.fixture(scope="module")
def prometheus_url(exporter: Exporter, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("prometheus")
    with running_prometheus(workdir, exporter.url) as url:
        yield url


@pytest.fixture(scope="module")
def pushgateway_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Pushgateway (Debian's `prometheus-pushgateway`) on a loopback port."""
    binary = shutil.which("prometheus-pushgateway") or shutil.which("pushgateway")
    assert binary, (
        "the custom metrics tests need the Pushgateway: apt-get install -y prometheus-pushgateway"
    )
    workdir = tmp_path_factory.mktemp("pushgateway")
    url = f"http://127.0.0.1:{free_port()}"
    log = (workdir / "pushgateway.log").open("w")
    address = url.removeprefix("http://")
    # Debian's build persists every instance's groups in one file under /var/lib: each of ours
    # keeps its own, so that no run sees another's (or an earlier run's) values
    persistence = f"--persistence.file={workdir / 'pushgateway.data'}"
    process = subprocess.Popen(
        [binary, f"--web.listen-address={address}", persistence],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_ready(url, process, workdir / "pushgateway.log")
        yield url
    finally:
        process.terminate()
        process.wait(10)
        log.close()


@pytest.fixture(scope="module")
def prometheus_and_pushgateway(
    exporter: Exporter, pushgateway_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """(Prometheus, Pushgateway): Prometheus scrapes the exporter and, keeping the pushed job
    and namespace labels (honor_labels), the Pushgateway."""
    workdir = tmp_path_factory.mktemp("prometheus-pushgateway")
    gateway = pushgateway_url.removeprefix("http://")
    with running_prometheus(workdir, exporter.url, gateway) as url:
        yield url, pushgateway_url


@contextlib.contextmanager
def running_prometheus(
    workdir: Path, exporter: str, pushgateway: str | None = None
) -> Iterator[str]:
    """Prometheus scraping `exporter` (and `pushgateway`, honor_labels) every second."""
    binary = shutil.which("prometheus")
    assert binary, "the monitoring tests need Prometheus: apt-get install -y prometheus"
    config = workdir / "prometheus.yml"
    text = (
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: dcgm\n"
        f"    static_configs: [{{targets: ['{exporter}']}}]\n"
    )
    if pushgateway:
        text += (
            "  - job_name: pushgateway\n"
            "    honor_labels: true\n"
            f"    static_configs: [{{targets: ['{pushgateway}']}}]\n"
        )
    config.write_text(text)
    port = free_port()
    log = (workdir / "prometheus.log").open("w")
    process = subprocess.Popen(
        [
            binary,
            f"--config.file={config}",
            f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, workdir / "prometheus.log")
        yield url
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    http = urllib3.PoolManager(timeout=2.0, retries=False)
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        assert process.poll() is None, f"prometheus exited: {log.read_text()[-2000:]}"
        try:
            if http.request("GET", url + "/-/ready").status == 200:
                return
        except urllib3.exceptions.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"prometheus not ready after {READY_TIMEOUT}s: {log.read_text()[-2000:]}")


def wait_scraped(url: str, gpus: list[GpuSeries]) -> None:
    """Until Prometheus' latest samples are exactly what the exporter serves now."""
    prometheus = Prometheus(url)
    # The pod is part of the key: tests publish the same figures for different pods.
    wanted = sorted((g.node, str(g.index), g.pod, g.temp) for g in gpus)
    deadline = time.monotonic() + 30
    seen: list[tuple[str, str, str, float]] = []
    while time.monotonic() < deadline:
        samples = prometheus.query(gpu.TEMP)
        seen = sorted(
            (s.labels["Hostname"], s.labels["gpu"], s.labels.get("pod", ""), s.value)
            for s in samples
        )
        if seen == wanted:
            return
        time.sleep(0.3)
    raise AssertionError(f"Prometheus did not scrape the exporter: saw {seen}, want {wanted}")


def bound_pod(env: Env, namespace: str, app: str) -> dict[str, Any]:
    """The pod labelled app=`app` in `namespace` once it is bound to a node (the exporter's
    series name the pod, so a test publishes them only once it is there)."""

    def bound() -> dict[str, Any]:
        for pod in env.cluster.list("Pod", namespace):
            labels = pod["metadata"].get("labels") or {}
            if labels.get("app") == app and pod["spec"].get("nodeName"):
                return pod
        return {}

    found: dict[str, Any] = wait_for(bound, timeout=60, what=f"{namespace}/{app}'s pod")
    return found
