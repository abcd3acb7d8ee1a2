"""The REST API never answers from a watch cache that has lost its cluster: `gpuctl serve` (the
installed command) over a sandbox that goes down and comes back as a new, empty cluster on the
same address; and over a server that accepts connections and never answers (a frozen API
server). Stale reads go to the cluster, and answer 503 ClusterUnreachable when it does not."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import urllib3
from kubernetes.client import ApiClient, Configuration

from gpuctl.cluster.client import Cluster, Unreachable
from gpuctl.sandbox import SandboxConfig
from gpuctl.sandbox.runner import Sandbox
from tests.conftest import GPUCTL
from tests.support.ports import free_port
from tests.support.sandbox import wait_for

from .conftest import training


@contextmanager
def _serving(kubeconfig: Path, *options: str) -> Iterator[str]:
    """`gpuctl serve` (no tokens, loopback) over `kubeconfig`; its base URL."""
    port = free_port()
    command = [str(GPUCTL), "serve", "--port", str(port), "--kubeconfig", str(kubeconfig)]
    server = subprocess.Popen(
        [*command, *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(f"{base}/metrics"), timeout=60, what="gpuctl serve to start")
        yield base
    finally:
        server.terminate()
        server.communicate(timeout=30)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def _jobs(base: str) -> tuple[int, Any]:
    answer = httpx.get(f"{base}/api/v1/jobs", timeout=30)
    return answer.status_code, answer.json()


def _statuses(body: Any) -> dict[str, str]:
    return {item["name"]: item["status"] for item in body["items"]}


def _relists(base: str) -> float:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("gpuctl_api_cache_relists_total{")
    )


def _create(base: str, yaml_text: str) -> None:
    answer = httpx.post(f"{base}/api/v1/jobs", json={"yamlContent": yaml_text}, timeout=30)
    assert answer.status_code == 201, answer.text


def test_a_new_cluster_on_the_same_address_is_never_answered_from_the_old_ones_cache(
    tmp_path: Path,
) -> None:
    old = Sandbox(SandboxConfig.fast()).start()
    port = old.port
    kubeconfig = old.write_kubeconfig(tmp_path / "kubeconfig")
    new: Sandbox | None = None
    try:
        with _serving(kubeconfig) as base:
            _create(base, training("sft"))
            _create(base, training("gone"))
            wait_for(
                lambda: _statuses(_jobs(base)[1]) == {"sft": "succeeded", "gone": "succeeded"},
                timeout=30,
                what="both jobs to succeed on the old cluster",
            )
            assert httpx.get(f"{base}/readyz", timeout=10).status_code == 200

            old.stop()  # `sandbox down`: while nothing answers, nothing old is shown
            answered: list[tuple[int, Any]] = []

            def not_from_the_cache() -> bool:
                answered.append(_jobs(base))
                return answered[-1][0] != 200

            wait_for(not_from_the_cache, timeout=30, what="GET /jobs to stop answering")
            status, body = answered[-1]
            assert (status, body["error"]) == (503, "ClusterUnreachable"), body
            ready = httpx.get(f"{base}/readyz", timeout=10)
            assert ready.status_code == 503
            assert ready.text.startswith("the watch cache is stale (")

            # `sandbox up` again on the same port: a new cluster, its jobs run for long
            new = Sandbox(SandboxConfig.fast(job_run_seconds=600), port=port).start()
            _create(base, training("sft"))
            seen: list[tuple[int, dict[str, str]]] = []

            def only_the_new_job() -> bool:
                status, body = _jobs(base)
                seen.append((status, _statuses(body) if status == 200 else {}))
                return status == 200 and list(_statuses(body)) == ["sft"]

            wait_for(only_the_new_job, timeout=30, what="GET /jobs to show the new cluster")
            for _ in range(20):  # and it stays so
                only_the_new_job()
            listed = [statuses for status, statuses in seen if status == 200]
            assert listed, seen
            assert all("gone" not in statuses for statuses in listed), seen
            assert all(statuses.get("sft") != "succeeded" for statuses in listed), seen
            wait_for(
                lambda: httpx.get(f"{base}/readyz", timeout=10).status_code == 200,
                timeout=30,
                what="/readyz to recover once the cache has listed the new cluster",
            )
            assert _relists(base) > 0
    finally:
        old.stop()
        if new is not None:
            new.stop()


@contextmanager
def _frozen_server() -> Iterator[tuple[int, list[socket.socket]]]:
    """A port that accepts connections and never answers (an API server stopped with
    SIGSTOP: the kernel still accepts, nothing reads); the accepted connections."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(5)
        for connection in accepted:
            connection.close()
        listener.close()


def test_a_frozen_cluster_gives_503_within_seconds(tmp_path: Path) -> None:
    sandbox = Sandbox(SandboxConfig.fast()).start()
    kubeconfig = sandbox.write_kubeconfig(tmp_path / "kubeconfig")
    try:
        with _frozen_server() as (port, _accepted):
            frozen = tmp_path / "frozen-kubeconfig"
            frozen.write_text(kubeconfig.read_text().replace(f":{sandbox.port}", f":{port}"))
            with _serving(frozen, "--cluster-timeout", "1") as base:
                for path in ("/api/v1/jobs/default.sft", "/api/v1/jobs", "/api/v1/nodes"):
                    started = time.monotonic()
                    answer = httpx.get(base + path, timeout=60)
                    waited = time.monotonic() - started
                    assert answer.status_code == 503, (path, answer.text)
                    assert answer.json()["error"] == "ClusterUnreachable"
                    assert "timed out waiting for an answer" in answer.json()["message"]
                    assert waited < 10, (path, waited)  # one time-out; it was 4 x 30 s
                assert httpx.get(f"{base}/readyz", timeout=10).status_code == 503
    finally:
        sandbox.stop()


def test_a_time_out_is_not_retried(tmp_path: Path) -> None:
    with _frozen_server() as (port, accepted):
        config = Configuration()
        config.host = f"http://127.0.0.1:{port}"
        config.retries = urllib3.Retry(total=0, redirect=0, raise_on_status=False)
        cluster = Cluster(ApiClient(config), "default", config.host, read_timeout=0.5)
        with pytest.raises(Unreachable, match="timed out waiting for an answer"):
            cluster.list("Pod")
        assert len(accepted) == 1  # a GET is retried on a refused or reset connection only
