"""The HTTP face of the sandbox: routing, content negotiation, watch and log streaming, the
admin endpoints, and `Sandbox`, which runs the server and the controllers in threads."""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

from gpuctl.sandbox import admin, discovery, tables
from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers import ControllerError, Controllers
from gpuctl.sandbox.errors import (
    ApiError,
    bad_request,
    method_not_allowed,
)
from gpuctl.sandbox.faults import Fault, Faults, Request, RequestLog
from gpuctl.sandbox.patches import json_merge_patch, json_patch, strategic_merge_patch
from gpuctl.sandbox.podlog import PodLog
from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.routing import Route, route_of, verb_of
from gpuctl.sandbox.scale import scale_of, set_scale
from gpuctl.sandbox.selectors import (
    parse_field_selector,
    parse_label_selector,
)
from gpuctl.sandbox.store import Store
from gpuctl.sandbox.watch import Watch, WatchSelection, wait_for_version

_PATCH_TYPES = {
    "application/json-patch+json": "json",
    "application/merge-patch+json": "merge",
    "application/strategic-merge-patch+json": "strategic",
    "application/apply-patch+yaml": "apply",
    "application/apply-patch+cbor": "apply-cbor",
}


@dataclass
class _WriteOptions:
    """The query parameters every write takes: dryRun and fieldValidation, checked."""

    dry_run: bool
    field_validation: str
    warnings: list[str] = field(default_factory=list)  # collected while serving the request

    @classmethod
    def of(cls, query: dict[str, str]) -> _WriteOptions:
        dry_run = query.get("dryRun") == "All"
        if "dryRun" in query and not dry_run:
            raise bad_request(
                f'dryRun: Unsupported value: "{query["dryRun"]}": supported values: "All"'
            )
        fv = query.get("fieldValidation") or "Warn"
        if fv not in ("Ignore", "Warn", "Strict"):
            raise bad_request(
                f'fieldValidation: Unsupported value: "{fv}": supported values: '
                '"Ignore", "Warn", "Strict"'
            )
        return cls(dry_run, fv)


class _Drop(Exception):
    """Close the connection without answering."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128
    sandbox: Sandbox

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


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # without this, Nagle's algorithm plus delayed ACKs add ~40 ms to every keep-alive request
    disable_nagle_algorithm = True
    server: _Server
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

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    # -- plumbing -----------------------------------------------------------------------------

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

    # -- dispatch -----------------------------------------------------------------------------

    def _log_request(self) -> None:
        """Record this request once; before the answer goes out, so tests never race it."""
        if self._logged or self._url.path.startswith("/sandbox/"):
            return
        self._logged = True
        route = self._route_info
        res = route.res if route is not None else None
        self.server.sandbox.requests.append(
            Request(
                self.command,
                self._url.path,
                self._url.query,
                self._verb,
                (res.plural + (f"/{route.sub}" if route and route.sub else "")) if res else "",
                route.namespace if route else "",
                route.name if route else "",
                self._code,
                _bearer(self.headers.get("Authorization") or ""),
            )
        )

    def _serve(self, method: str) -> None:
        sandbox = self.server.sandbox
        self._code = 0
        self._logged = False
        self._route_info = None
        self._verb = ""
        self._warnings = []
        self._late_fault = None
        self._streaming = False
        url = self._url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        body = self._read_body()
        route: Route | None = None
        verb = ""
        try:
            route = self._route_info = route_of(self.server.sandbox.registry, url.path)
            if route is not None and route.res is not None:
                verb = self._verb = verb_of(method, route, query)
            resource = ""
            if route is not None and route.res is not None:
                resource = route.res.plural + (f"/{route.sub}" if route.sub else "")
            for fault in (
                sandbox.faults.take(
                    method,
                    verb,
                    resource,
                    route.namespace if route else "",
                    route.name if route else "",
                )
                if not url.path.startswith("/sandbox/")
                else []
            ):
                self._apply_fault(fault)
            if url.path.startswith("/sandbox/"):
                self._admin(method, url.path, body)
            elif route is None:
                self._discovery(method, url.path)
            else:
                self._api(method, route, query, body)
            self._lose_answer()
        except ApiError as err:
            self._send(err.code, err.status(), err.headers)
            self._lose_answer()
        except _Drop:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # a sandbox bug: answer like the real server's panic handler
            self._send(
                500,
                ApiError(
                    500,
                    "InternalError",
                    f'an error on the server ("{type(exc).__name__}: {exc}") has prevented the '
                    "request from succeeding",
                ).status(),
            )
            traceback.print_exc()
        finally:
            self._log_request()
            if self._streaming:
                with sandbox.streams_lock:
                    sandbox.open_streams -= 1

    def _lose_answer(self) -> None:
        """After a fault with applied=True: the request was served, its answer never arrives."""
        fault = self._late_fault
        if fault is None:
            return
        if fault.action == "timeout":
            self.server.sandbox.faults.released.wait(fault.seconds)
        raise _Drop()

    def _apply_fault(self, fault: Fault) -> None:
        if fault.applied and fault.action in ("timeout", "drop"):
            self._late_fault = fault
            return
        released = self.server.sandbox.faults.released
        if fault.action == "latency":
            released.wait(fault.seconds)
        elif fault.action == "timeout":
            released.wait(fault.seconds)
            raise _Drop()
        elif fault.action == "drop":
            raise _Drop()
        elif fault.action == "fail":
            body = fault.body()
            err = ApiError(fault.status, body["reason"], body["message"])
            if fault.retry_after is not None:
                err.headers["Retry-After"] = str(fault.retry_after)
            raise err

    def _discovery(self, method: str, path: str) -> None:
        sandbox = self.server.sandbox
        if method != "GET":
            raise method_not_allowed()
        path = path.rstrip("/") or "/"
        if path in ("/healthz", "/readyz", "/livez"):
            self._send(200, b"ok", content_type="text/plain; charset=utf-8")
            return
        doc = discovery.document(
            sandbox.registry, sandbox.config.kubernetes_version, f"127.0.0.1:{sandbox.port}", path
        )
        if doc is None:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        self._send(200, doc)

    def _admin(self, method: str, path: str, body: bytes) -> None:
        sandbox = self.server.sandbox
        code, answer = admin.answer(
            method, path, body, sandbox.faults, sandbox.requests, sandbox.controller_errors
        )
        self._send(code, answer)

    # -- API verbs ----------------------------------------------------------------------------

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
                return yaml.safe_load(body) if body else {}
            return json.loads(body) if body else {}
        except (ValueError, yaml.YAMLError) as exc:
            raise bad_request(
                f'{res.kind} in version "{res.version}" cannot be handled as a {res.kind}: {exc}'
            ) from None

    def _api(self, method: str, route: Route, query: dict[str, str], body: bytes) -> None:
        res = route.res
        assert res is not None
        if res.namespaced and route.name and not route.namespace and method != "GET":
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        options = _WriteOptions.of(query)
        if res.kind == "SelfSubjectAccessReview":
            if method != "POST" or route.name:
                raise method_not_allowed()
            self._access_review(res, body)
        elif method == "GET" and not route.name:
            if route.watch_path or query.get("watch") in ("1", "true", "True"):
                self._watch(res, route.namespace or None, query)
            else:
                self._list(res, route.namespace or None, query)
        elif method == "GET":
            self._get(res, route, query)
        elif method == "POST" and not route.name:
            obj = self.server.sandbox.api.create(
                res,
                route.namespace,
                self._decode_body(body, res),
                dry_run=options.dry_run,
                field_validation=options.field_validation,
                warnings=options.warnings,
            )
            self._send_object(201, res, obj, options.warnings)
        elif method == "PUT" and route.name:
            self._put(res, route, body, options)
        elif method == "PATCH" and route.name:
            self._patch(res, route, query, body, options)
        elif method == "DELETE":
            self._delete(res, route, query, body, options)
        else:
            raise method_not_allowed()

    def _access_review(self, res: Resource, body: bytes) -> None:
        """Every SelfSubjectAccessReview is allowed: the sandbox has no authorization."""
        # kubectl sends this one as protobuf; the answer is the same whatever was asked
        ctype = self.headers.get("Content-Type") or ""
        review = {} if "protobuf" in ctype else self._decode_body(body, res)
        review = review if isinstance(review, dict) else {}
        review.setdefault("apiVersion", "authorization.k8s.io/v1")
        review.setdefault("kind", "SelfSubjectAccessReview")
        review.setdefault("metadata", {})
        review["status"] = {"allowed": True, "reason": "the sandbox has no authorization"}
        self._send(201, review)

    def _get(self, res: Resource, route: Route, query: dict[str, str]) -> None:
        if route.sub == "log":
            self._log(res, route.namespace, route.name, query)
            return
        obj = self.server.sandbox.api.get(res, route.namespace, route.name)
        if route.sub == "scale":
            self._send(200, scale_of(res, obj))
            return
        self._send_object(200, res, obj, [])

    def _put(self, res: Resource, route: Route, body: bytes, options: _WriteOptions) -> None:
        data = self._decode_body(body, res)
        if route.sub == "scale":
            obj = set_scale(
                self.server.sandbox.api, res, route.namespace, route.name, data, options.dry_run
            )
            self._send(200, obj)
            return
        obj = self.server.sandbox.api.update(
            res,
            route.namespace,
            route.name,
            data,
            subresource=route.sub,
            dry_run=options.dry_run,
            field_validation=options.field_validation,
            warnings=options.warnings,
        )
        self._send_object(200, res, obj, options.warnings)

    def _patch(
        self,
        res: Resource,
        route: Route,
        query: dict[str, str],
        body: bytes,
        options: _WriteOptions,
    ) -> None:
        api = self.server.sandbox.api
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        patch_type = _PATCH_TYPES.get(ctype)
        if patch_type is None or patch_type == "apply-cbor":
            raise ApiError(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json-patch+json, application/merge-patch+json, "
                "application/apply-patch+yaml, application/strategic-merge-patch+json",
            )
        data = self._decode_body(body, res)
        ns, name = route.namespace, route.name
        if route.sub == "scale":
            current = scale_of(res, api.get(res, ns, name))
            patched = (
                json_patch(current, data)
                if patch_type == "json"
                else json_merge_patch(current, data)
                if patch_type == "merge"
                else strategic_merge_patch(current, data)
            )
            self._send(200, set_scale(api, res, ns, name, patched, options.dry_run))
            return
        obj = api.patch(
            res,
            ns,
            name,
            patch_type,
            data,
            subresource=route.sub,
            dry_run=options.dry_run,
            field_validation=options.field_validation,
            warnings=options.warnings,
            field_manager=query.get("fieldManager", ""),
        )
        self._send_object(200, res, obj, options.warnings)

    def _delete(
        self,
        res: Resource,
        route: Route,
        query: dict[str, str],
        body: bytes,
        options: _WriteOptions,
    ) -> None:
        api = self.server.sandbox.api
        ns = route.namespace
        delete_options = self._decode_body(body, res) if body else {}
        if not isinstance(delete_options, dict):
            delete_options = {}
        orphan = query.get("orphanDependents", delete_options.get("orphanDependents"))
        propagation = query.get("propagationPolicy") or delete_options.get("propagationPolicy")
        if propagation is None and orphan is not None:
            propagation = "Orphan" if str(orphan).lower() == "true" else "Background"
        grace_text = query.get("gracePeriodSeconds", delete_options.get("gracePeriodSeconds"))
        grace = int(grace_text) if grace_text not in (None, "") else None
        dry_run = options.dry_run or delete_options.get("dryRun") == ["All"]
        if not route.name:
            self._delete_collection(res, ns, query, propagation, grace, dry_run, options.warnings)
            return
        obj = api.delete(
            res,
            ns,
            route.name,
            propagation=propagation,
            grace=grace,
            dry_run=dry_run,
            preconditions=delete_options.get("preconditions"),
            warnings=options.warnings,
        )
        # 202 only for a deletion still under way that asked orphanDependents=false,
        # as the real handler does; otherwise 200 with the object
        still_there = api.find(res, ns, route.name) is not None and not dry_run
        accepted = still_there and str(orphan).lower() == "false"
        self._send_object(202 if accepted else 200, res, obj, options.warnings)

    def _delete_collection(
        self,
        res: Resource,
        ns: str,
        query: dict[str, str],
        propagation: str | None,
        grace: int | None,
        dry_run: bool,
        warnings: list[str],
    ) -> None:
        api = self.server.sandbox.api
        listed = api.list_objects(
            res,
            ns or None,
            parse_label_selector(query.get("labelSelector", "")),
            parse_field_selector(query.get("fieldSelector", ""), res.kind),
        )
        deleted = []
        for item in listed.items:
            try:
                deleted.append(
                    api.delete(
                        res,
                        item["metadata"].get("namespace", ""),
                        item["metadata"]["name"],
                        propagation=propagation,
                        grace=grace,
                        dry_run=dry_run,
                    )
                )
            except ApiError as err:
                if err.code != 404:
                    raise
        self._send(
            200,
            {
                "kind": f"{res.kind}List",
                "apiVersion": res.api_version,
                "metadata": {"resourceVersion": str(self.server.sandbox.store.rv)},
                "items": deleted,
            },
            self._warn_headers(warnings),
        )

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

    def _list(self, res: Resource, ns: str | None, query: dict[str, str]) -> None:
        api = self.server.sandbox.api
        wait_for_version(self.server.sandbox.store, query)
        result = api.list_objects(
            res,
            ns,
            parse_label_selector(query.get("labelSelector", "")),
            parse_field_selector(query.get("fieldSelector", ""), res.kind),
            int(query.get("limit") or 0),
            query.get("continue", ""),
        )
        meta: dict[str, Any] = {"resourceVersion": str(result.rv)}
        if result.continue_token:
            meta["continue"] = result.continue_token
            meta["remainingItemCount"] = result.remaining
        if self._wants_table():
            self._send(200, tables.table(res, result.items, result.rv, self._include(), meta))
            return
        # list items leave out kind and apiVersion, as the real server's do
        items = [
            {k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in result.items
        ]
        self._send(
            200,
            {
                "kind": f"{res.kind}List",
                "apiVersion": res.api_version,
                "metadata": meta,
                "items": items,
            },
        )

    def _watch(self, res: Resource, ns: str | None, query: dict[str, str]) -> None:
        sandbox = self.server.sandbox
        selection = WatchSelection(
            res,
            ns,
            parse_label_selector(query.get("labelSelector", "")),
            parse_field_selector(query.get("fieldSelector", ""), res.kind),
            self._include() if self._wants_table() else None,
        )
        watch = Watch.start(sandbox.store, selection, query)
        self._start_stream("application/json")
        try:
            watch.run(
                sandbox.store,
                sandbox.stopping,
                sandbox.config.bookmark_seconds,
                self._chunk,
                self._client_gone,
            )
            self._end_stream()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def _log(self, res: Resource, ns: str, name: str, query: dict[str, str]) -> None:
        sandbox = self.server.sandbox
        request = PodLog.start(sandbox.api, res, ns, name, query)
        if not request.options.follow:
            self._send(200, request.text(), content_type="text/plain")
            return
        self._start_stream("text/plain")
        try:
            request.follow(sandbox.api, sandbox.stopping, self._chunk, self._client_gone)
            self._end_stream()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True


class Sandbox:
    """One simulated cluster: `start()` it (or use it as a context manager), talk to `.url`."""

    def __init__(
        self, config: SandboxConfig | None = None, port: int = 0, host: str = "127.0.0.1"
    ) -> None:
        self.config = config or SandboxConfig()
        self.registry = Registry()
        self.store = Store(self.config.watch_history)
        self.api = Api(self.config, self.registry, self.store)
        self.faults = Faults()
        self.requests = RequestLog()
        self.stopping = threading.Event()
        self.streams_lock = threading.Lock()
        self.open_streams = 0  # watches and log follows being served right now
        self.controllers = Controllers(self.api, self.config, self.stopping)
        self._host = host
        self._port = port
        self._server: _Server | None = None
        self._threads: list[threading.Thread] = []
        self.controllers.bootstrap()

    @property
    def port(self) -> int:
        return self._server.server_address[1] if self._server else self._port

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    def start(self) -> Sandbox:
        self._server = _Server((self._host, self._port), Handler)
        self._server.sandbox = self
        serve = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="sandbox-http",
            daemon=True,
        )
        loop = threading.Thread(
            target=self.controllers.run, name="sandbox-controllers", daemon=True
        )
        self._threads = [serve, loop]
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.faults.released.set()
        with self.store.lock:
            self.store.changed.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.close_connections()
        for thread in self._threads:
            thread.join(timeout=2)

    def controller_errors(self) -> list[ControllerError]:
        """What the simulated controllers raised so far; empty while the cluster is healthy."""
        return self.controllers.errors()

    def settle(self, timeout: float = 5.0) -> bool:
        """Wait until the controllers have nothing left to do: no change since their last pass
        and no timed transition pending (pods starting, jobs finishing, grace periods). False if
        that did not happen within `timeout` (a crash-looping pod never settles)."""
        deadline = time.monotonic() + timeout
        quiet_since: float | None = None
        while time.monotonic() < deadline:
            with self.store.lock:
                idle = self.controllers.idle()
            if idle:
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since >= 3 * self.config.tick_seconds:
                    return True
            else:
                quiet_since = None
            time.sleep(self.config.tick_seconds / 2)
        return False

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def kubeconfig(self, namespace: str = "default") -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "gpuctl-sandbox", "cluster": {"server": self.url}}],
            "users": [{"name": "gpuctl-sandbox", "user": {}}],
            "contexts": [
                {
                    "name": "gpuctl-sandbox",
                    "context": {
                        "cluster": "gpuctl-sandbox",
                        "user": "gpuctl-sandbox",
                        "namespace": namespace,
                    },
                }
            ],
            "current-context": "gpuctl-sandbox",
            "preferences": {},
        }

    def write_kubeconfig(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(self.kubeconfig(), sort_keys=False))
        return path


def _bearer(header: str) -> str:
    """The token of `Authorization: Bearer <token>` ("" without one)."""
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
