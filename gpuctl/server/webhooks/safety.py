"""Where a webhook may go (no server-side request forgery): only to public addresses, unless
the admin allows a range (`gpuctl serve --webhook-allow-cidr 10.0.0.0/8`). Loopback,
link-local (cloud metadata at 169.254.169.254 included), private, shared (100.64.0.0/10),
multicast, reserved and unspecified addresses are refused; so are IPv6 addresses that embed
one (IPv4-mapped).

The name is resolved once per attempt, every address it gives is checked, and the request
connects to a checked address itself (the Host header and TLS server name stay the URL's): a
name that resolves to a public address when checked and to 127.0.0.1 when connecting (DNS
rebinding) cannot reach the second one. Redirects are not followed (a 3xx is a failure); each
attempt has a timeout; the answer's body is not read."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import urllib3

from gpuctl.errors import GpuctlError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
MAX_URL = 2048


class RefusedUrl(GpuctlError):
    """A webhook URL that may not be delivered to (and why)."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str  # with its query

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


def parse(url: str) -> Target:
    """The URL's parts; RefusedUrl for anything but an absolute http(s) URL."""
    if len(url) > MAX_URL:
        raise RefusedUrl(f"the URL is longer than {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise RefusedUrl(f"not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RefusedUrl("give an absolute http:// or https:// URL")
    if parts.username or parts.password:
        raise RefusedUrl("a URL with credentials in it is not accepted (they would be logged)")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default = 443 if parts.scheme == "https" else 80
    return Target(parts.scheme, parts.hostname, port or default, path)


def _refusal(address: Address, allowed: Sequence[Network]) -> str | None:
    if any(address in network for network in allowed):
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        return _refusal(mapped, allowed)
    if address.is_global and not address.is_multicast:
        return None
    what = (
        "loopback"
        if address.is_loopback
        else "link-local (cloud metadata)"
        if address.is_link_local
        else "private or cluster-internal"
    )
    return f"{address}, a {what} address"


def resolve(target: Target, allowed: Sequence[Network]) -> list[Address]:
    """Every address the target's host names, each checked; RefusedUrl names the first
    refused one (an admin allows its range with --webhook-allow-cidr)."""
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise RefusedUrl(f"cannot resolve {target.host}: {exc.strerror or exc}") from None
    addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))
    for address in addresses:
        why = _refusal(address, allowed)
        if why is not None:
            raise RefusedUrl(
                f"{target.host} resolves to {why}: webhooks go only to public addresses "
                "unless the admin allows the range (gpuctl serve --webhook-allow-cidr CIDR)"
            )
    return addresses


def post(
    url: str, body: bytes, headers: dict[str, str], allowed: Sequence[Network], timeout: float
) -> int:
    """POST `body` to a checked address of `url`; the answer's status code. RefusedUrl when
    the URL may not be reached, urllib3's errors when the attempt fails."""
    target = parse(url)
    address = resolve(target, allowed)[0]
    sent = {
        **headers,
        "Host": target.host_header,
        "Content-Type": "application/json",
        "User-Agent": "gpuctl-webhooks",
    }
    kwargs: dict[str, object] = {
        "timeout": urllib3.Timeout(total=timeout),
        "retries": False,
        "maxsize": 1,
    }
    pool: urllib3.HTTPConnectionPool
    if target.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            str(address),
            target.port,
            server_hostname=target.host,
            assert_hostname=target.host,
            **kwargs,  # type: ignore[arg-type]
        )
    else:
        pool = urllib3.HTTPConnectionPool(str(address), target.port, **kwargs)  # type: ignore[arg-type]
    with pool:
        answer = pool.urlopen(
            "POST", target.path, body=body, headers=sent, redirect=False, preload_content=False
        )
        answer.release_conn()
        return int(answer.status)
