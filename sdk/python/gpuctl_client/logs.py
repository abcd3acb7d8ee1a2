"""Following a job's logs: an iterator of lines that ends when the server ends the stream
(the job's pods stopped), over a WebSocket when the `websockets` package is there, else (or
when the upgrade is refused or cannot be made) over the chunked `text/plain` stream of
`GET /jobs/{jobId}/logs?follow=true`. A stream cut before its end (the server went away,
the network broke) raises LogStreamBroken, never ends quietly and never hangs: the WebSocket
pings the server every `PING` seconds and gives up when it does not answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote, urlencode

import httpx

from gpuctl_client.errors import LogStreamBroken, error_of

if TYPE_CHECKING:
    from gpuctl_client.client import Client

Via = Literal["auto", "websocket", "chunked"]
PING = 20.0  # seconds between WebSocket pings, and how long an answer may take
NORMAL_CLOSE = 1000
REFUSED = 1008  # the server's close code for a refusal: the chunked request says which


class _Refused(Exception):
    """The WebSocket way did not start (no library, upgrade refused): use the chunked one."""


def follow(client: Client, job_id: str, tail: int, pod: str | None, via: Via) -> Iterator[str]:
    query = {"tail": str(tail), **({"pod": pod} if pod is not None else {})}
    if via != "chunked":
        lines = _websocket(client, job_id, query)
        try:
            first = next(lines, None)
        except _Refused:
            if via == "websocket":
                raise LogStreamBroken(
                    f"the log stream of {job_id} over WebSocket was refused or could not start"
                ) from None
        else:
            if first is not None:
                yield first
                yield from lines
            return
    yield from _chunked(client, job_id, query)


def _path(client: Client, job_id: str) -> str:
    return f"{client.url}/api/v1/jobs/{quote(job_id, safe='')}/logs"


def _websocket(client: Client, job_id: str, query: dict[str, str]) -> Iterator[str]:
    try:
        from websockets.exceptions import ConnectionClosed, InvalidHandshake
        from websockets.sync.client import connect
    except ImportError:
        raise _Refused() from None
    url = _path(client, job_id).replace("http", "ws", 1) + "?" + urlencode(query)
    headers = {"Authorization": f"Bearer {client.token}"} if client.token else {}
    try:
        socket = connect(
            url,
            additional_headers=headers,
            open_timeout=client.timeout,
            ping_interval=PING,
            ping_timeout=PING,
            max_size=2**22,
        )
    except (OSError, InvalidHandshake, TimeoutError):
        raise _Refused() from None  # the chunked request retries, and says what is wrong
    with socket:
        started = False
        while True:
            try:
                message = socket.recv()
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                if code == NORMAL_CLOSE:
                    return
                if code == REFUSED and not started:
                    raise _Refused() from None
                how = f"closed with code {code}" if code is not None else "cut, no close frame"
                raise LogStreamBroken(
                    f"the log stream of {job_id} broke before its end ({how}): "
                    "the job may still be running"
                ) from exc
            started = True
            yield message if isinstance(message, str) else message.decode("utf-8", "replace")


def _chunked(client: Client, job_id: str, query: dict[str, str]) -> Iterator[str]:
    timeout = httpx.Timeout(client.timeout, read=None)  # a quiet job writes nothing for long
    params = {**query, "follow": "true"}
    request = client.http.build_request(
        "GET", f"/api/v1/jobs/{quote(job_id, safe='')}/logs", params=params, timeout=timeout
    )
    response = client.send(request, stream=True)
    try:
        if response.status_code >= 400:
            raise error_of(response.status_code, response.read(), response.headers)
        try:
            yield from response.iter_lines()
        except httpx.TransportError as exc:
            raise LogStreamBroken(
                f"the log stream of {job_id} broke before its end ({exc}): "
                "the job may still be running"
            ) from exc
    finally:
        response.close()
