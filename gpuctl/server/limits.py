"""What one request, and one user, may cost the server.

- The caller of a request with a body is known before a byte of the body is read: an unknown
  token is `401` at once, so an anonymous client cannot make the server read (and hold) a body.
- A body is at most `MAX_BODY` bytes (2 MiB), or less on a route that takes little (a metrics
  push: 16 KiB): a larger `Content-Length` is `413 TooLarge` before anything is read, and a
  body without one (chunked) is read only up to the cap.
- Each user has at most `WRITES_PER_USER` writes (every method but GET, HEAD and OPTIONS) in
  progress: they parse YAML and write to the cluster; one more is `429 TooManyRequests` with
  `Retry-After`, so that one user's burst cannot take the thread pool from the others.

`Gate` applies all three to the writes under the API prefix, in front of the routes (plain
ASGI: reads, such as GETs and followed logs, pass through untouched).

`PerKeyRate` is a token bucket per key (a webhook subscription's test events): a burst of
`burst`, then one more every `every` seconds; one too many is `429 TooManyRequests` with
`Retry-After` (the whole seconds until the next is allowed). Each server replica counts its
own."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gpuctl.errors import GpuctlError
from gpuctl.server.auth import Authenticator, Principal, Tokens, authenticate
from gpuctl.server.errors import ApiError, error_response

MAX_BODY: Final = 2 * 1024 * 1024
SPEC_RULE: Final = "a spec is at most 1 MiB: split a batch into several requests"
WRITES_PER_USER: Final = 4
RETRY_AFTER: Final = 1  # seconds, in the 429's Retry-After
PRINCIPAL: Final = "gpuctl.principal"  # the scope key where Gate leaves the caller
_BODILESS: Final = frozenset(("GET", "HEAD", "OPTIONS"))


class PerUser:
    """At most `limit` of something held at once by each user (thread-safe)."""

    def __init__(self, limit: int, code: str, what: str) -> None:
        self.limit = limit
        self.code = code
        self.what = what
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, user: str) -> None:
        """One more for `user`, or 429 with Retry-After when they hold `limit` already."""
        with self._lock:
            held = self._held.get(user, 0)
            if held >= self.limit:
                raise ApiError(
                    429,
                    self.code,
                    f"{user} has {held} {self.what} in progress, the most one user may: "
                    f"retry when one is done",
                    {"Retry-After": str(RETRY_AFTER)},
                )
            self._held[user] = held + 1

    def give_back(self, user: str) -> None:
        with self._lock:
            left = self._held.get(user, 0) - 1
            if left > 0:
                self._held[user] = left
            else:
                self._held.pop(user, None)

    def held(self, user: str) -> int:
        with self._lock:
            return self._held.get(user, 0)

    @contextmanager
    def holding(self, user: str) -> Iterator[None]:
        self.take(user)
        try:
            yield
        finally:
            self.give_back(user)


class PerKeyRate:
    """At most `burst` at once per key, then one every `every` seconds (a token bucket per
    key; thread-safe). Only keys that used some of their burst are remembered."""

    def __init__(
        self, burst: int, every: float, what: str, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst = burst
        self.every = every
        self.what = what
        self.clock = clock
        self._tokens: dict[str, tuple[float, float]] = {}  # key -> (tokens, when counted)
        self._lock = threading.Lock()

    def take(self, key: str) -> None:
        """One for `key`, or 429 TooManyRequests with Retry-After when its bucket is empty."""
        with self._lock:
            now = self.clock()
            tokens = self._left(key, now)
            if tokens < 1.0:
                wait = math.ceil((1.0 - tokens) * self.every)
                per_minute = 60.0 / self.every
                raise ApiError(
                    429,
                    "TooManyRequests",
                    f"{self.what} {key}: at most {self.burst} at once, then {per_minute:g} a "
                    f"minute; retry in {wait}s",
                    {"Retry-After": str(wait)},
                )
            self._tokens[key] = (tokens - 1.0, now)
            if len(self._tokens) > 1024:  # forget the full buckets (they are the default)
                full = [k for k in self._tokens if self._left(k, now) >= self.burst]
                for done in full:
                    del self._tokens[done]

    def _left(self, key: str, now: float) -> float:
        tokens, counted = self._tokens.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - counted) / self.every)


class Gate:
    """Authenticates a request with a body before reading it, caps the body, and holds one of
    the caller's write slots while the request runs (see the module's rules)."""

    def __init__(
        self,
        app: ASGIApp,
        prefix: str,
        max_body: int = MAX_BODY,
        caps: Mapping[str, tuple[int, str]] | None = None,
    ) -> None:
        """`caps`: path -> (its own cap, lower than `max_body`; the rule, in words)."""
        self.app = app
        self.prefix = prefix
        self.max_body = max_body
        self.caps = dict(caps or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] in _BODILESS
            or not str(scope["path"]).startswith(self.prefix + "/")
        ):
            await self.app(scope, receive, send)
            return
        state = scope["app"].state
        cap = self.caps.get(str(scope["path"]).rstrip("/"), (self.max_body, SPEC_RULE))
        try:
            principal = await _caller(state.auth, Headers(scope=scope).get("authorization"))
            _check_length(Headers(scope=scope), cap)
            body = await _read_body(receive, cap)
        except GpuctlError as exc:
            await error_response(exc)(scope, receive, send)
            return
        if body is None:
            return  # the client left before its body was complete: no one to answer
        scope[PRINCIPAL] = principal
        writes: PerUser = state.writes
        try:
            writes.take(principal.user)
        except ApiError as exc:
            await error_response(exc)(scope, receive, send)
            return
        try:
            await self.app(scope, _replay(body, receive), send)
        finally:
            writes.give_back(principal.user)


async def _caller(auth: Authenticator | None, header: str | None) -> Principal:
    if auth is None or isinstance(auth, Tokens):  # in memory: no thread hand-off
        return authenticate(auth, header)
    return await run_in_threadpool(authenticate, auth, header)  # a TokenReview, maybe


def _too_large(cap: tuple[int, str]) -> ApiError:
    limit, rule = cap
    size = f"{limit // 1024 // 1024} MiB" if limit >= 1024 * 1024 else f"{limit // 1024} KiB"
    return ApiError(
        413, "TooLarge", f"the request body is over {size}, the most the server reads ({rule})"
    )


def _check_length(headers: Headers, cap: tuple[int, str]) -> None:
    given = headers.get("content-length")
    if given is None:
        return
    try:
        length = int(given)
    except ValueError:
        raise ApiError(
            400, "BadRequest", f"Content-Length {given[:20]!r} is not a number"
        ) from None
    if length > cap[0]:
        raise _too_large(cap)


async def _read_body(receive: Receive, cap: tuple[int, str]) -> bytes | None:
    """The whole body, read only while it stays within the cap (also a chunked one); None
    when the client leaves first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap[0]:
            raise _too_large(cap)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body read already, then waits on the client as usual (for
    its disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
