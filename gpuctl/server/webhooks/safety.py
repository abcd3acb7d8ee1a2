"""Where a webhook may go (no server-side request forgery): only to public addresses, unless
the admin allows a range (`gpuctl serve --webhook-allow-cidr 10.0.0.0/8`). Loopback,
link-local (cloud metadata at 169.254.169.254 included), private, shared (100.64.0.0/10),
multicast, reserved and unspecified addresses are refused. An IPv6 address that embeds an
IPv4 address is judged by the IPv4 address it embeds (every one, where it could be in several
places): IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and
the local-use `64:ff9b:1::/48` (the IPv4 address at any of the RFC 6052 positions), 6to4
`2002::/16`, and Teredo `2001::/32` (its server, and its client: the last 32 bits inverted).
So `http://[::7f00:1]/` is loopback, as `http://127.0.0.1/` is. The same check applies to the
URL when it is subscribed and to every address a name resolves to at each attempt.

A URL with a space or a control character anywhere (CR/LF included) is refused as it is given:
URL parsers quietly drop some of them (tabs, CR, LF), so the URL stored would not be the URL
checked.

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


def _unprintable(url: str) -> int | None:
    """Where (from 0) the first space or control character (C0, DEL, C1) is; None for none."""
    for index, char in enumerate(url):
        if char.isspace() or ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F:
            return index
    return None


def parse(url: str) -> Target:
    """The URL's parts; RefusedUrl for anything but an absolute http(s) URL."""
    if len(url) > MAX_URL:
        raise RefusedUrl(f"the URL is longer than {MAX_URL} characters")
    where = _unprintable(url)
    if where is not None:
        raise RefusedUrl(
            f"the URL has a space or control character ({url[where]!r}) at position {where + 1}: "
            "percent-encode it (a space is %20)"
        )
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


NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def _ipv4_at(value: int, octets: Sequence[int]) -> ipaddress.IPv4Address:
    """The IPv4 address made of the IPv6 address's octets at `octets` (0: the first)."""
    raw = value.to_bytes(16, "big")
    return ipaddress.IPv4Address(bytes(raw[i] for i in octets))


# Where RFC 6052 puts the IPv4 address after a NAT64 prefix of /96, /64, /56 and /48 (octet
# 8 is always skipped): a network splits the local-use 64:ff9b:1::/48 into prefixes of any of
# these lengths, which the address does not tell. Each must be allowed, so in practice such an
# address is delivered to only where the admin allows it (--webhook-allow-cidr 64:ff9b:1::/48).
RFC6052_OCTETS = ((12, 13, 14, 15), (9, 10, 11, 12), (7, 9, 10, 11), (6, 7, 9, 10))


def embedded_ipv4(address: Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address an IPv6 address embeds (none for a plain one)."""
    if isinstance(address, ipaddress.IPv4Address):
        return []
    value = int(address)
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address in NAT64 or (address in IPV4_COMPATIBLE and value > 1):  # not :: nor ::1
        return [ipaddress.IPv4Address(value & 0xFFFFFFFF)]
    if address in NAT64_LOCAL:
        return [_ipv4_at(value, octets) for octets in RFC6052_OCTETS]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address.teredo is not None:
        return list(address.teredo)  # (server, client); client is the inverted last 32 bits
    return []


def _refusal(address: Address, allowed: Sequence[Network]) -> str | None:
    if any(address in network for network in allowed):
        return None
    embedded = embedded_ipv4(address)
    if embedded:
        for ipv4 in embedded:
            why = _refusal(ipv4, allowed)
            if why is not None:
                return f"{address}, which embeds {why}"
        return None
    if address.is_global and not address.is_multicast and not address.is_reserved:
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
