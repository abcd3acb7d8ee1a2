"""Fault injection and the request log, for tests of code that must survive a bad API server.

    sandbox.faults.fail(method="DELETE", resource="jobs", status=500, times=1)
    sandbox.faults.timeout(verb="get", resource="configmaps", name="x")   # hangs, then drops
    sandbox.faults.drop(resource="pods")                                   # closes the socket
    sandbox.faults.latency(0.2, resource="jobs", times=None)               # every matching one

A rule matches on HTTP method (`method="PATCH"`) and/or API verb (`verb="list"`), resource
(plural, `jobs`, `jobs.batch` or `jobs/status`), name and namespace; `None` matches anything.
Each rule lets the first `after` matching requests through, then applies to the next `times`
(`None`: until cleared), e.g. `fail(verb="create", resource="services", after=1)` fails the
second service an apply creates.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Request(NamedTuple):
    """One request the sandbox received: (method, path, query) first, then what it meant."""

    method: str
    path: str
    query: str
    verb: str = (
        ""  # get list watch create update patch delete deletecollection ("" if not an API call)
    )
    resource: str = ""  # plural, with "/subresource" when there is one
    namespace: str = ""
    name: str = ""
    code: int = 0  # the status sent (0 when the connection was dropped)
    # the bearer token presented ("" without one): the sandbox authenticates and authorizes
    # every request, so a token only tells whose request it was, as a user in an audit log
    token: str = ""


READ_VERBS = frozenset({"get", "list", "watch"})


class RequestLog:
    """Every request, in arrival order. Thread-safe; iterate or index it like a list."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[Request] = []

    def append(self, request: Request) -> None:
        with self._lock:
            self._items.append(request)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __iter__(self) -> Iterator[Request]:
        with self._lock:
            return iter(list(self._items))

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __getitem__(self, index: int) -> Request:
        with self._lock:
            return self._items[index]

    def api_calls(self) -> list[Request]:
        """Requests for API objects (not discovery, openapi or the admin endpoints)."""
        return [r for r in self if r.verb]

    def writes(self) -> list[Request]:
        return [r for r in self.api_calls() if r.verb not in READ_VERBS]

    def only_reads(self) -> bool:
        return not self.writes()

    def matching(
        self, verb: str | None = None, resource: str | None = None, name: str | None = None
    ) -> list[Request]:
        return [
            r
            for r in self.api_calls()
            if (verb is None or r.verb == verb)
            and (resource is None or _resource_matches(resource, r.resource))
            and (name is None or r.name == name)
        ]


def _resource_matches(wanted: str, resource: str) -> bool:
    """`jobs`, `jobs.batch` match jobs and its subresources; `jobs/status` only the status."""
    plural, _, sub = resource.partition("/")
    wanted_resource, _, wanted_sub = wanted.partition("/")
    if wanted_resource.split(".")[0] != plural:
        return False
    return not wanted_sub or wanted_sub == sub


@dataclass
class Fault:
    action: str  # fail | timeout | drop | latency
    method: str | None = None
    verb: str | None = None
    resource: str | None = None
    name: str | None = None
    namespace: str | None = None
    times: int | None = 1
    status: int = 500
    reason: str = ""
    message: str = ""
    seconds: float = 0.0
    retry_after: int | None = None  # seconds, sent as a Retry-After header (429s, 503s)
    after: int = 0  # let this many matching requests through first
    applied: bool = False  # timeout/drop after serving the request: it happened, unanswered
    seen: int = field(default=0)  # matching requests so far
    hits: int = field(default=0)  # requests this rule acted on

    def matches(self, method: str, verb: str, resource: str, namespace: str, name: str) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method is not None and self.method.upper() != method:
            return False
        if self.verb is not None and self.verb.lower() != verb:
            return False
        if self.resource is not None and not _resource_matches(self.resource, resource):
            return False
        if self.name is not None and self.name != name:
            return False
        return self.namespace is None or self.namespace == namespace

    def body(self) -> dict[str, Any]:
        reason = self.reason or _REASONS.get(self.status, "InternalError")
        message = self.message or _MESSAGES.get(
            self.status,
            'an error on the server ("injected fault") has prevented the request from succeeding',
        )
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": self.status,
        }


_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    410: "Expired",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}
_MESSAGES = {
    429: "Too many requests, please try again later.",
    503: "the server is currently unable to handle the request",
    504: "Timeout: request did not complete within requested timeout - context deadline exceeded",
}


class Faults:
    """The rules in force; the server consults `take` for every request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[Fault] = []
        self.released = threading.Event()  # set on shutdown so hanging requests end

    def _add(self, fault: Fault) -> Fault:
        with self._lock:
            self._rules.append(fault)
        return fault

    def fail(
        self,
        method: str | None = None,
        resource: str | None = None,
        name: str | None = None,
        *,
        verb: str | None = None,
        namespace: str | None = None,
        status: int = 500,
        reason: str = "",
        message: str = "",
        times: int | None = 1,
        retry_after: int | None = None,
        after: int = 0,
    ) -> Fault:
        """Answer matching requests with a `Status` error of code `status` instead of serving."""
        return self._add(
            Fault(
                "fail",
                method,
                verb,
                resource,
                name,
                namespace,
                times,
                status,
                reason,
                message,
                retry_after=retry_after,
                after=after,
            )
        )

    def timeout(
        self,
        method: str | None = None,
        resource: str | None = None,
        name: str | None = None,
        *,
        verb: str | None = None,
        namespace: str | None = None,
        seconds: float = 30.0,
        times: int | None = 1,
        after: int = 0,
        applied: bool = False,
    ) -> Fault:
        """Hold matching requests without answering for `seconds`, then close the connection.
        With `applied=True` the request is carried out first: a write that happened although the
        client never heard back."""
        return self._add(
            Fault(
                "timeout",
                method,
                verb,
                resource,
                name,
                namespace,
                times,
                seconds=seconds,
                after=after,
                applied=applied,
            )
        )

    def drop(
        self,
        method: str | None = None,
        resource: str | None = None,
        name: str | None = None,
        *,
        verb: str | None = None,
        namespace: str | None = None,
        times: int | None = 1,
        after: int = 0,
        applied: bool = False,
    ) -> Fault:
        """Close the connection of matching requests without any response (with `applied=True`,
        after carrying the request out)."""
        return self._add(
            Fault(
                "drop", method, verb, resource, name, namespace, times, after=after, applied=applied
            )
        )

    def latency(
        self,
        seconds: float,
        method: str | None = None,
        resource: str | None = None,
        name: str | None = None,
        *,
        verb: str | None = None,
        namespace: str | None = None,
        times: int | None = None,
        after: int = 0,
    ) -> Fault:
        """Delay matching requests by `seconds`, then serve them normally."""
        return self._add(
            Fault(
                "latency",
                method,
                verb,
                resource,
                name,
                namespace,
                times,
                seconds=seconds,
                after=after,
            )
        )

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    @property
    def rules(self) -> list[Fault]:
        with self._lock:
            return list(self._rules)

    def take(self, method: str, verb: str, resource: str, namespace: str, name: str) -> list[Fault]:
        """The rules this request triggers (latency first), counting it against each."""
        hit: list[Fault] = []
        with self._lock:
            for rule in self._rules:
                if rule.matches(method, verb, resource, namespace, name):
                    rule.seen += 1
                    if rule.seen <= rule.after:
                        continue
                    rule.hits += 1
                    hit.append(rule)
                    if rule.action != "latency":
                        break  # one terminal fault per request
        return sorted(hit, key=lambda f: f.action != "latency")

    def add_from_json(self, data: dict[str, Any]) -> Fault:
        """The admin endpoint's form: {"action": "fail", "resource": "jobs", ...}."""
        allowed = set(Fault.__dataclass_fields__) - {"hits", "seen"}
        unknown = set(data) - allowed
        if unknown or data.get("action") not in ("fail", "timeout", "drop", "latency"):
            raise ValueError(f"bad fault: {data}")
        return self._add(Fault(**data))
