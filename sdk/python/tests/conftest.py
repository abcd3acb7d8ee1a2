"""The SDK against a real `gpuctl serve` on gpuctl's sandbox, with the repository's own test
fixtures (tests/conftest.py's `sandbox` and `env`, tests/server's token file and `served`,
tests/monitoring's real Prometheus, Pushgateway and DCGM-named exporter): run from the
repository's root, where `tests` is importable."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from gpuctl_client import Client
from sdk_helpers import FAST_RETRIES, Proxy, Rule, handler

from tests.conftest import Env, env, own_gpuctl_config, sandbox, sandbox_config
from tests.monitoring.conftest import exporter, prometheus_and_pushgateway, pushgateway_url
from tests.server.conftest import SECRETS, token_file
from tests.server.test_hostile import Served, served

__all__ = [
    "env",
    "exporter",
    "own_gpuctl_config",
    "prometheus_and_pushgateway",
    "pushgateway_url",
    "sandbox",
    "sandbox_config",
    "token_file",
]


@pytest.fixture
def server(env: Env, token_file: Path) -> Iterator[Served]:
    """`gpuctl serve --tokens` on the test's sandbox (tokens: tests/server/conftest.py)."""
    with served(env, token_file) as running:
        yield running


@pytest.fixture
def admin(server: Served) -> Iterator[Client]:
    with Client(server.base, SECRETS["admin"], retry=FAST_RETRIES) as client:
        yield client


@pytest.fixture
def alice(server: Served) -> Iterator[Client]:
    with Client(server.base, SECRETS["alice"], retry=FAST_RETRIES) as client:
        yield client


@pytest.fixture
def make_proxy(server: Served) -> Iterator[Callable[[Rule], Proxy]]:
    started: list[ThreadingHTTPServer] = []

    def make(rule: Rule) -> Proxy:
        proxy = Proxy(server.base, rule)
        http = ThreadingHTTPServer(("127.0.0.1", 0), handler(proxy))
        http.daemon_threads = True
        proxy.port = http.server_address[1]
        threading.Thread(target=http.serve_forever, daemon=True).start()
        started.append(http)
        return proxy

    yield make
    for http in started:
        http.shutdown()
        http.server_close()
