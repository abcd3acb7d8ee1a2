"""The HTTP face of the sandbox: `Handler` routes each request, puts it through the faults that
match it, and answers it with discovery, the admin endpoints or the resource's verb."""

from __future__ import annotations

import contextlib
import socket
import traceback
from urllib.parse import SplitResult, parse_qs, urlsplit

from gpuctl.sandbox import admin, discovery
from gpuctl.sandbox.errors import (
    ApiError,
    method_not_allowed,
)
from gpuctl.sandbox.faults import Fault
from gpuctl.sandbox.reads import ResourceReads
from gpuctl.sandbox.routing import Route, route_of, verb_of
from gpuctl.sandbox.transport import Drop
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
        try:
            self._answer(method, url, query, body)
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

    def _answer(self, method: str, url: SplitResult, query: dict[str, str], body: bytes) -> None:
        """Route the request, put it through the faults that match it, and answer it."""
        sandbox = self.server.sandbox
        verb = ""
        route = self._route_info = route_of(sandbox.registry, url.path)
        if route is not None and route.res is not None:
            verb = self._verb = verb_of(method, route, query)
        for fault in (
            sandbox.faults.take(
                method,
                verb,
                route.resource_path() if route else "",
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
