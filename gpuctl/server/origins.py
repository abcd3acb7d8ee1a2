"""Which Host and Origin the server answers, against DNS rebinding and cross-site WebSockets.

- Without authentication (no token file, no `--auth`), every caller is an admin, so the
  server must be reachable only from the machine itself. Listening on a loopback address is
  not enough: a page on another site can point its own DNS name at 127.0.0.1 (DNS rebinding)
  and then send requests that the browser counts as same-origin. Such a request carries the
  attacker's name in its `Host`, so the server answers only a loopback `Host` (`localhost`,
  `127.0.0.0/8`, `[::1]`, any port), the name `serve --host` listens on, and the names given
  with `serve --allowed-host NAME`; any other is `400 HostNotAllowed` (Django's rule for
  `ALLOWED_HOSTS`, and the status it answers). With a token file or `--auth kubernetes` the
  `Host` is not checked: a browser never sends the bearer token by itself.
- Every WebSocket, in every mode, refuses a handshake whose `Origin` is not the server's own
  (the request's scheme, and the host and port of its `Host`): a browser sends `Origin` with
  every WebSocket handshake and lets any site open one, so the check is the server's. A
  handshake without `Origin` is not from a browser (a CLI, an SDK) and is let through. A
  refused handshake is closed before it is accepted (HTTP 403 to the client), as Kubernetes'
  and Gorilla's WebSocket servers do. Behind a TLS proxy the scheme is the proxy's
  `X-Forwarded-Proto`, which uvicorn takes from the addresses in `$FORWARDED_ALLOW_IPS`
  (default 127.0.0.1).

`Guard` applies both in front of every route (plain ASGI)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from gpuctl.server.errors import ApiError, error_response

LOOPBACK_NAMES: Final = frozenset(("localhost",))
DEFAULT_PORTS: Final = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_HOST_NAME: Final = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_PORT: Final = re.compile(r"[0-9]{1,5}")


@dataclass(frozen=True)
class Authority:
    """A `Host` header's (or an origin's) host, lower case, IPv6 without brackets, and port
    (None when not given)."""

    host: str
    port: int | None

    @classmethod
    def parse(cls, text: str) -> Authority | None:
        """`name`, `name:port`, `1.2.3.4:port`, `[::1]:port`; None for anything else."""
        text = text.strip().lower()
        if text.startswith("["):
            host, bracket, rest = text[1:].partition("]")
            if not bracket or not _ip(host) or (rest and not rest.startswith(":")):
                return None
            port_text = rest[1:] if rest else None
        else:
            host, colon, port_text_or_empty = text.partition(":")
            port_text = port_text_or_empty if colon else None
            if not (_HOST_NAME.fullmatch(host) or _ip(host)):
                return None
        if port_text is None:
            return cls(host, None)
        if not _PORT.fullmatch(port_text) or int(port_text) > 65535:
            return None
        return cls(host, int(port_text))

    @property
    def loopback(self) -> bool:
        if self.host in LOOPBACK_NAMES:
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def _ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def allowed_host_name(text: str) -> str | None:
    """`text` as a name `--allowed-host` takes (a DNS name or an IP address, without a port),
    lower case; None when it is not one."""
    found = Authority.parse(text if ":" not in text or text.startswith("[") else f"[{text}]")
    if found is None or found.port is not None:
        return None
    return found.host


@dataclass(frozen=True)
class Hosts:
    """The `Host` values a server without authentication answers: loopback ones and `names`."""

    names: frozenset[str] = frozenset()

    @classmethod
    def of(cls, names: Iterable[str]) -> Hosts:
        return cls(frozenset(name.lower().strip("[]") for name in names))

    def allows(self, header: str | None) -> bool:
        found = Authority.parse(header or "")
        return found is not None and (found.loopback or found.host in self.names)


def same_origin(scope: Scope, origin: str | None) -> bool:
    """Is `origin` (the handshake's `Origin` header) the server's own: the request's scheme
    (http for ws, https for wss), and its `Host`'s host and port? True without an `Origin`."""
    if origin is None:
        return True
    parts = urlsplit(origin.strip().lower())
    own_scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
    if parts.scheme != own_scheme or parts.path or parts.query or parts.fragment:
        return False
    given = Authority.parse(parts.netloc)
    own = Authority.parse(Headers(scope=scope).get("host") or "")
    if given is None or own is None:
        return False
    default = DEFAULT_PORTS[own_scheme]
    return given.host == own.host and (given.port or default) == (own.port or default)


class Guard:
    """`400 HostNotAllowed` for a `Host` outside `hosts` (None: every `Host`, the modes with
    authentication), and a WebSocket handshake from another origin closed before it is
    accepted."""

    def __init__(self, app: ASGIApp, hosts: Hosts | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        if self.hosts is not None and not self.hosts.allows(host):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": "HostNotAllowed"})
                return
            await error_response(_host_refused(host))(scope, receive, send)
            return
        if scope["type"] == "websocket" and not same_origin(scope, headers.get("origin")):
            await send({"type": "websocket.close", "code": 1008, "reason": "OriginNotAllowed"})
            return
        await self.app(scope, receive, send)


def _host_refused(host: str | None) -> ApiError:
    return ApiError(
        400,
        "HostNotAllowed",
        f"Host {host!r} is not a name of this server: without authentication it answers only "
        "localhost, 127.0.0.1 or [::1] (any port), its --host, and the names given with "
        "`gpuctl serve --allowed-host NAME`",
    )
