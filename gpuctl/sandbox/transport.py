"""The HTTP plumbing under every request: the threaded server that keeps track of its open
connections, and `Exchange`, one connection's reading and answering (bodies, JSON or YAML,
chunked streams, Warning headers, tables for `kubectl get`) and the request log."""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import yaml

from gpuctl.sandbox import tables, validation
from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers import ControllerError
from gpuctl.sandbox.errors import ApiError, bad_request
from gpuctl.sandbox.faults import Fault, Faults, Request, RequestLog
from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.routing import Route
from gpuctl.sandbox.store import Store


class Served(Protocol):
    """What the HTTP side uses of the sandbox it serves."""

    config: SandboxConfig
    registry: Registry
    store: Store
    api: Api
    faults: Faults
    requests: RequestLog
    stopping: threading.Event
    streams_lock: threading.Lock
    open_streams: int  # watches and log follows being served right now

    @property
    def port(self) -> int: ...

    def controller_errors(self) -> list[ControllerError]: ...


class Drop(Exception):
    """Close the connection without answering."""


class HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128
    sandbox: Served

    def server_activate(self) -> None:
        super().server_activate()
        self.connections: set[socket.socket] = set()  # open, until closed or the server stops
        self.connections_lock = threading.Lock()

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        with self.connections_lock:
            self.connections.add(connection)
        return connection, address

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """End every open connection, keep-alive ones and watches too, as a server's process
        that exits does: a client learns at once that this server is gone."""
        with self.connections_lock:
            open_now = list(self.connections)
        for connection in open_now:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class Exchange(BaseHTTPRequestHandler):
    """One connection: reading a request's body and sending answers and streams."""

    protocol_version = "HTTP/1.1"
    # without this, Nagle's algorithm plus delayed ACKs add ~40 ms to every keep-alive request
    disable_nagle_algorithm = True
    server: HttpServer
    server_version = "gpuctl-sandbox"
    sys_version = ""
    # per request, set by _serve
    _code = 0
    _logged = False
    _url = urlsplit("/")
    _verb = ""
    _route_info: Route | None = None
    _late_fault: Fault | None = None
    _streaming = False
    _warnings: list[str] = []  # noqa: RUF012 - replaced per request, never mutated

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(
        self,
        code: int,
        body: Any,
        headers: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
        self._code = code
        self._log_request()
        if self._late_fault is not None:
            return  # served, but the answer is lost (see _lose_answer)
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        for warning in self._warnings:  # one header each, as the real server sends them
            self.send_header("Warning", '299 - "' + warning.replace('"', '\\"') + '"')
        self.end_headers()
        self.wfile.write(data)

    def _warn_headers(self, warnings: list[str]) -> dict[str, str]:
        self._warnings = list(warnings)
        return {}

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _start_stream(self, content_type: str) -> None:
        self._streaming = True
        with self.server.sandbox.streams_lock:
            self.server.sandbox.open_streams += 1
        self._code = 200
        self._log_request()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()

    def _client_gone(self) -> bool:
        """Whether the client closed its end (a stream would otherwise notice only on write)."""
        try:
            # poll, not select: select() refuses a descriptor number over 1023, which a busy
            # server with many watches and streams reaches
            poller = select.poll()
            poller.register(self.connection, select.POLLIN)
            readable = poller.poll(0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def _log_request(self) -> None:
        """Record this request once; before the answer goes out, so tests never race it."""
        if self._logged or self._url.path.startswith("/sandbox/"):
            return
        self._logged = True
        route = self._route_info
        self.server.sandbox.requests.append(
            Request(
                self.command,
                self._url.path,
                self._url.query,
                self._verb,
                route.resource_path() if route else "",
                route.namespace if route else "",
                route.name if route else "",
                self._code,
                _bearer(self.headers.get("Authorization") or ""),
            )
        )

    def _decode_body(self, body: bytes, res: Resource) -> Any:
        ctype = (self.headers.get("Content-Type") or "application/json").split(";")[0].strip()
        if "protobuf" in ctype or "cbor" in ctype:
            raise ApiError(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: "
                "application/json, application/yaml",
            )
        try:
            if ctype in ("application/yaml", "application/apply-patch+yaml"):
                data = yaml.safe_load(body) if body else {}
                validation.check_numbers(data)
                return data
            return validation.decode_json(body) if body else {}
        except (ValueError, yaml.YAMLError) as exc:
            raise bad_request(
                f'{res.kind} in version "{res.version}" cannot be handled as a {res.kind}: {exc}'
            ) from None

    def _send_object(self, code: int, res: Resource, obj: Any, warnings: list[str]) -> None:
        if self._wants_table():
            self._send(
                code,
                tables.table(
                    res, [obj], int(obj["metadata"].get("resourceVersion", 0)), self._include()
                ),
            )
            return
        self._send(code, obj, self._warn_headers(warnings))

    def _wants_table(self) -> bool:
        accept = self.headers.get("Accept") or ""
        return "as=Table" in accept

    def _include(self) -> str:
        query = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
        return query.get("includeObject", "Metadata")


def _bearer(header: str) -> str:
    """The token of `Authorization: Bearer <token>` ("" without one)."""
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
