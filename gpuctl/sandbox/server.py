"""The HTTP face of the sandbox: routing, content negotiation, watch and log streaming, the
admin endpoints, and `Sandbox`, which runs the server and the controllers in threads."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

from gpuctl.sandbox import admin, discovery
from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers import ControllerError, Controllers
from gpuctl.sandbox.errors import (
    ApiError,
    method_not_allowed,
)
from gpuctl.sandbox.faults import Fault, Faults, RequestLog
from gpuctl.sandbox.reads import ResourceReads
from gpuctl.sandbox.resources import Registry
from gpuctl.sandbox.routing import Route, route_of, verb_of
from gpuctl.sandbox.store import Store
from gpuctl.sandbox.transport import Drop, HttpServer
from gpuctl.sandbox.writes import ResourceWrites, WriteOptions


class Handler(ResourceReads, ResourceWrites):
    """One connection's requests: each is routed, put through the faults that match it,
    logged, and answered by discovery, the admin endpoints or the resource's verb."""

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

    # -- dispatch -----------------------------------------------------------------------------

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
        except Drop:
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
        raise Drop()

    def _apply_fault(self, fault: Fault) -> None:
        if fault.applied and fault.action in ("timeout", "drop"):
            self._late_fault = fault
            return
        released = self.server.sandbox.faults.released
        if fault.action == "latency":
            released.wait(fault.seconds)
        elif fault.action == "timeout":
            released.wait(fault.seconds)
            raise Drop()
        elif fault.action == "drop":
            raise Drop()
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

    def _api(self, method: str, route: Route, query: dict[str, str], body: bytes) -> None:
        res = route.res
        assert res is not None
        if res.namespaced and route.name and not route.namespace and method != "GET":
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        options = WriteOptions.of(query)
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
        self._server: HttpServer | None = None
        self._threads: list[threading.Thread] = []
        self.controllers.bootstrap()

    @property
    def port(self) -> int:
        return self._server.server_address[1] if self._server else self._port

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    def start(self) -> Sandbox:
        self._server = HttpServer((self._host, self._port), Handler)
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
