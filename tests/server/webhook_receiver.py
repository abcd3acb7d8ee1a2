"""A webhook receiver on 127.0.0.1 for the tests: it keeps every request, answers the codes
it is told to, and verifies signatures with the `standardwebhooks` package."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)  # when it arrived


@dataclass
class Receiver:
    """An HTTP endpoint on 127.0.0.1 that keeps every request and answers the codes queued in
    `answers` (then 200), each after `delay` seconds."""

    server: ThreadingHTTPServer
    got: list[Received] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    delay: float = 0.0  # seconds before each answer (a slow receiver)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/gpuctl?team=ml"

    def verified(self, secret: str) -> list[dict[str, Any]]:
        """Every request the standardwebhooks package accepts with `secret`, parsed; a request
        it rejects fails the test."""
        events = []
        for request in list(self.got):
            try:
                events.append(Webhook(secret).verify(request.body, request.headers))
            except WebhookVerificationError as exc:
                raise AssertionError(f"{request.headers}: {exc}") from exc
        return events

    def types(self) -> list[str]:
        return [json.loads(r.body)["type"] for r in self.got]


@pytest.fixture(name="receiver")
def _receiver() -> Iterator[Receiver]:
    with receiving() as made:
        yield made


@contextlib.contextmanager
def receiving() -> Iterator[Receiver]:
    """A Receiver listening until the block ends."""
    made: list[Receiver] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            target = made[0]
            target.got.append(Received({k: v for k, v in self.headers.items()}, body))
            code = target.answers.pop(0) if target.answers else 200
            time.sleep(target.delay)
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    made.append(Receiver(server))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield made[0]
    server.shutdown()
    server.server_close()
