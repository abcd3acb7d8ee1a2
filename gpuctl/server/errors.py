"""One error body for every 4xx and 5xx, and the ONE table from gpuctl's errors to HTTP codes.

Every error answer is `{"error": <Code>, "message": <one line>}`; invalid YAML adds `field`
(the dotted path of the first problem) and `problems` (each as the CLI prints it:
`file:line:col: path: message (hint)`). No answer ever carries a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from gpuctl.cluster import client as kube
from gpuctl.errors import GpuctlError, Problem, SpecError, UsageError
from gpuctl.inventory.jobs import JobNotFound
from gpuctl.inventory.nodes import NodeNotFound
from gpuctl.inventory.pools import PoolConflict, PoolNotFound
from gpuctl.inventory.quotas import NoQuota
from gpuctl.monitoring.custom import PushgatewayRefused, PushgatewayUnreachable
from gpuctl.monitoring.prometheus import PrometheusError
from gpuctl.verbs.common import VerbResult
from gpuctl.verbs.errors import (
    ApplyFailed,
    LabelConflict,
    LabelNotFound,
    LabelRefused,
    LockTimeout,
    Overwritable,
    Unschedulable,
)

log = logging.getLogger("gpuctl.server")


class ErrorBody(BaseModel):
    """Every 4xx and 5xx answer (the OpenAPI document shows it for each route)."""

    error: str
    message: str
    field: str | None = None
    problems: list[str] | None = None


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": words}
    for status, words in (
        (400, "invalid YAML, parameter or body"),
        (401, "no or unknown token"),
        (403, "not allowed for this user"),
        (404, "not found (another user's job too)"),
        (409, "exists already, or a conflicting label or pool"),
        (413, "a request body over 2 MiB (TooLarge)"),
        (429, "too many writes or log streams of this user at once; see Retry-After"),
        (503, "the cluster (or, for metrics, Prometheus) does not answer"),
        (
            "default",
            "any other error (422 ClusterRefused, 502 ClusterError, 500 ...): the same shape",
        ),
    )
}


class ApiError(GpuctlError):
    """An answer the API itself decides on (401, 403, 404 of another user's job, ...); with
    `problems`, each a place in the caller's spec (the first one's path is the `field`)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        problems: list[Problem] | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.headers = headers or {}
        self.problems = problems or []
        self.field = field if field is not None else (problems[0].path if problems else None)


# The most specific class first: the first match wins.
ERROR_CODES: tuple[tuple[type[Exception], int, str], ...] = (
    (SpecError, 400, "InvalidYAML"),
    (UsageError, 400, "BadRequest"),
    (LabelConflict, 409, "LabelConflict"),
    (LabelNotFound, 404, "LabelNotFound"),
    (LabelRefused, 400, "InvalidLabel"),
    (NodeNotFound, 404, "NodeNotFound"),
    (PoolNotFound, 404, "PoolNotFound"),
    (PoolConflict, 409, "PoolConflict"),
    (JobNotFound, 404, "JobNotFound"),
    (Unschedulable, 422, "Unschedulable"),  # no node could ever hold it; nothing written
    (ApplyFailed, 422, "Refused"),  # e.g. a placement that cannot work; nothing was written
    (LockTimeout, 409, "Busy"),  # another change of the same job holds its lease
    (NoQuota, 404, "QuotaNotFound"),
    (PrometheusError, 503, "MetricsUnavailable"),  # Prometheus down, or a wrong answer
    (PushgatewayUnreachable, 503, "PushgatewayUnavailable"),
    (PushgatewayRefused, 502, "PushgatewayError"),
    (kube.Unreachable, 503, "ClusterUnreachable"),
    (kube.NotFound, 404, "NotFound"),
    (kube.AlreadyExists, 409, "AlreadyExists"),
    (kube.Conflict, 409, "Conflict"),
    (kube.Forbidden, 403, "Forbidden"),
    (kube.Invalid, 422, "ClusterRefused"),
    (kube.KubeError, 502, "ClusterError"),
    (GpuctlError, 400, "BadRequest"),
)


def classify(exc: Exception) -> tuple[int, str]:
    """(HTTP status, error code) of any exception; unknown ones are a 500 InternalError."""
    if isinstance(exc, ApiError):
        return exc.status, exc.code
    for cls, status, code in ERROR_CODES:
        if isinstance(exc, cls):
            return status, code
    return 500, "InternalError"


def overwrite_hint(remedy: str) -> str:
    """How a REST client asks to lift a refusal that overwriting would (the request body's
    `overwrite`); the CLI words its own (`--overwrite`)."""
    return f'send "overwrite": true to {remedy}'


def verb_failed(result: VerbResult, status: int, code: str) -> ApiError:
    """The answer to a verb that did not succeed: its first typed cluster error decides the
    status and code (AlreadyExists 409, Forbidden 403, Invalid 422, ...), `status`/`code` when
    it has none; the message is the verb's own lines, a refusal that overwriting would lift
    with the REST API's hint and `field` `overwrite`."""
    if result.causes:
        status, code = classify(result.causes[0])
    field = "overwrite" if result.remedies else None
    return ApiError(status, code, "; ".join(result.worded(overwrite_hint)), field=field)


def body_of(exc: Exception) -> dict[str, Any]:
    """The error body for an exception (also used per item in batch answers)."""
    status, code = classify(exc)
    if status == 500:
        return {"error": code, "message": "internal error; the server log has the details"}
    body: dict[str, Any] = {"error": code, "message": str(exc)}
    if isinstance(exc, Overwritable):
        body["message"] = f"{exc}; {overwrite_hint(exc.remedy)}"
        body["field"] = "overwrite"
    if isinstance(exc, Unschedulable) and exc.pending_helps:
        body["message"] += " (allowPending=true accepts it anyway, to wait for nodes that join)"
    if isinstance(exc, SpecError | Unschedulable) and exc.problems:
        body["field"] = exc.problems[0].path
        body["problems"] = [str(problem) for problem in exc.problems]
    if isinstance(exc, ApiError):
        if exc.field:
            body["field"] = exc.field
        if exc.problems:
            body["problems"] = [str(problem) for problem in exc.problems]
    return body


def error_response(exc: Exception) -> JSONResponse:
    status, _ = classify(exc)
    if status == 500:
        log.exception("internal error", exc_info=exc)
    headers = exc.headers if isinstance(exc, ApiError) else None
    return JSONResponse(body_of(exc), status_code=status, headers=headers)


_HTTP_CODES = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    413: "TooLarge",
}


def _json_problem(document: Any, error: dict[str, Any]) -> dict[str, Any]:
    """A body that is not JSON: where (line and column, from 1) and what the parser expected."""
    text = document.decode("utf-8", "replace") if isinstance(document, bytes) else str(document)
    loc = error.get("loc", ())
    offset = loc[-1] if loc and isinstance(loc[-1], int) else 0
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    what = str((error.get("ctx") or {}).get("error") or "not JSON")
    return {
        "error": "InvalidJSON",
        "message": f"invalid JSON body: line {line}, column {column}: {what}",
    }


def install(app: FastAPI) -> None:
    """Route every error through `error_response`, including FastAPI's own."""

    async def on_error(_request: Request, exc: Exception) -> JSONResponse:
        return error_response(exc)

    async def on_http(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = _HTTP_CODES.get(exc.status_code, "HTTPError")
        return JSONResponse(
            {"error": code, "message": str(exc.detail)},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    async def on_invalid(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0] if exc.errors() else {}
        if first.get("type") == "json_invalid":
            return JSONResponse(_json_problem(exc.body, first), status_code=400)
        where = [str(part) for part in first.get("loc", ()) if part != "body"]
        field = ".".join(where)
        message = str(first.get("msg", "invalid request"))
        return JSONResponse(
            {"error": "InvalidRequest", "message": f"{field}: {message}", "field": field},
            status_code=400,
        )

    app.add_exception_handler(RequestValidationError, on_invalid)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(GpuctlError, on_error)
    app.add_exception_handler(Exception, on_error)  # Starlette's last resort: the 500s
