"""Retries below every call: an httpx transport that sends a request again after a connection
error, a 429 or a 502/503/504, waiting with exponential backoff and full jitter (a random time
between 0 and `base * 2**attempt`, at most `cap`), or the server's `Retry-After` when it says
one, and never past the call's deadline (then the last answer, or the connection error, is
what the call gets).

What is sent again: a GET, HEAD, PUT or DELETE; a POST that carries an `Idempotency-Key` (a
repeat answers the first result, so a retried create never makes a second job); and a PATCH or
POST whose repeat changes nothing more than the first did, which the call that builds it marks
with the request extension `SAFE_TO_REPEAT` (setting a pool's cap to a number, adding nodes to
a pool, pushing a job's metric values); another POST or PATCH only when it surely did nothing:
it could not connect, or the answer was 429 (refused before any work)."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
IDEMPOTENCY_HEADER = "Idempotency-Key"
# a request extension (httpx.Request.extensions): True when sending it twice does what sending
# it once does
SAFE_TO_REPEAT = "gpuctl_client.safe_to_repeat"


@dataclass(frozen=True)
class RetryPolicy:
    """`deadline`: seconds from a call's first try after which it is not tried again;
    `base`/`cap`: the backoff's first ceiling and its largest."""

    deadline: float = 30.0
    base: float = 0.2
    cap: float = 5.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform between 0 and min(cap, base * 2**attempt)."""
        return random.uniform(0.0, min(self.cap, self.base * 2.0**attempt))


def retry_after(headers: httpx.Headers) -> float | None:
    """`Retry-After` in seconds: a number of seconds or an HTTP date (None without one)."""
    value = headers.get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _safe_to_repeat(request: httpx.Request) -> bool:
    return (
        request.method in IDEMPOTENT_METHODS
        or IDEMPOTENCY_HEADER in request.headers
        or request.extensions.get(SAFE_TO_REPEAT) is True
    )


class RetryTransport(httpx.BaseTransport):
    """Wraps another transport (httpx's own by default) with the retries above."""

    def __init__(
        self, policy: RetryPolicy | None = None, inner: httpx.BaseTransport | None = None
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        policy = self.policy
        give_up = policy.clock() + policy.deadline
        attempt = 0
        while True:
            try:
                response = self.inner.handle_request(request)
            except httpx.TransportError as exc:
                if not self._again(request, exc):
                    raise
                wait = policy.backoff(attempt)
                if policy.clock() + wait >= give_up:
                    raise
            else:
                if not self._again_after(request, response):
                    return response
                told = retry_after(response.headers)
                wait = told if told is not None else policy.backoff(attempt)
                if policy.clock() + wait >= give_up:
                    return response
                response.read()
                response.close()
            policy.sleep(wait)
            attempt += 1

    @staticmethod
    def _again(request: httpx.Request, exc: httpx.TransportError) -> bool:
        """After a connection error: always when it never connected, else when safe."""
        never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)
        return never_sent or _safe_to_repeat(request)

    @staticmethod
    def _again_after(request: httpx.Request, response: httpx.Response) -> bool:
        if response.status_code not in RETRIED_STATUSES:
            return False
        return response.status_code == 429 or _safe_to_repeat(request)

    def close(self) -> None:
        self.inner.close()
