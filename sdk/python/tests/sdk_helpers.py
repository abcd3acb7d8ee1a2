"""What the SDK's tests share: a job spec, and a fault-injecting HTTP proxy in front of
`serve` (a module of its own: the tests folder is not a package)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

import httpx
from gpuctl_client import RetryPolicy

FAST_RETRIES = RetryPolicy(deadline=20.0, base=0.05, cap=0.5)


def spec(name: str) -> str:
    """A training job whose sandbox pods write `started`, `step N`..., `done`."""
    return f"""kind: training
version: v0.1
job:
  name: {name}
environment:
  image: registry.example.com/trainer:1.0
  command: ["python", "train.py"]
resources:
  gpu: 1
  cpu: 1
  memory: 1Gi
"""


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


def handler(proxy: Proxy) -> type[BaseHTTPRequestHandler]:
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

        do_GET = do_POST = do_DELETE = do_PATCH = _any

    return Handler
