"""The SDK against a real `gpuctl serve` on gpuctl's sandbox, with the repository's own test
fixtures (tests/conftest.py's `sandbox` and `env`, tests/server's token file and `served`):
run from the repository's root, where `tests` is importable."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from gpuctl_client import Client, RetryPolicy

from tests.conftest import Env, env, own_gpuctl_config, sandbox, sandbox_config
from tests.server.conftest import SECRETS, token_file
from tests.server.test_hostile import Served, served

__all__ = ["env", "own_gpuctl_config", "sandbox", "sandbox_config", "token_file"]

FAST_RETRIES = RetryPolicy(deadline=20.0, base=0.05, cap=0.5)


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


@dataclass
class Seen:
    """One request the proxy had: method, path, the Idempotency-Key, when (monotonic)."""

    method: str
    path: str
    key: str | None
    at: float


# A rule: (the request seen, its number among the same method and path) -> what to do:
# "forward", or (status, headers) to answer instead, or ("forward", status, headers) to forward
# the request and then answer that status instead of the server's answer.
Rule = Callable[[Seen, int], object]


@dataclass
class Proxy:
    """An HTTP proxy in front of `serve` that answers as `rule` says (faults injected)."""

    upstream: str
    rule: Rule
    seen: list[Seen] = field(default_factory=list)
    port: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _handler(proxy: Proxy) -> type[BaseHTTPRequestHandler]:
    import time

    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            seen = Seen(
                self.command, self.path, self.headers.get("Idempotency-Key"), time.monotonic()
            )
            with lock:
                proxy.seen.append(seen)
                number = sum(
                    1 for s in proxy.seen if (s.method, s.path) == (seen.method, seen.path)
                )
            action = proxy.rule(seen, number)
            if isinstance(action, tuple) and action[0] != "forward":
                status, headers = action
                self._answer(status, headers, b'{"error":"Injected","message":"by the test proxy"}')
                return
            headers = {
                k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")
            }
            answer = httpx.request(
                self.command, proxy.upstream + self.path, headers=headers, content=body, timeout=60
            )
            if isinstance(action, tuple):
                _, status, extra = action
                self._answer(status, extra, b"<html>bad gateway</html>")
                return
            self._answer(
                answer.status_code,
                {"Content-Type": answer.headers.get("content-type", "")},
                answer.content,
            )

        def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_DELETE = _any

    return Handler


@pytest.fixture
def make_proxy(server: Served) -> Iterator[Callable[[Rule], Proxy]]:
    started: list[ThreadingHTTPServer] = []

    def make(rule: Rule) -> Proxy:
        proxy = Proxy(server.base, rule)
        http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
        http.daemon_threads = True
        proxy.port = http.server_address[1]
        threading.Thread(target=http.serve_forever, daemon=True).start()
        started.append(http)
        return proxy

    yield make
    for http in started:
        http.shutdown()
        http.server_close()
