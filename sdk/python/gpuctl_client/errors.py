"""The API's errors as exceptions: every 4xx and 5xx answer is `{"error", "message",
"field"?}`, raised as the `ApiError` subclass of its status, carrying those and the status."""

from __future__ import annotations

import json
from typing import Any

import httpx


class GpuctlClientError(Exception):
    """Everything this package raises."""


class ApiError(GpuctlClientError):
    """An error answer of the API: `status` (the HTTP code), `error` (a stable code such as
    `JobNotFound`), `message` (one line for a person), `field` (the request's part at fault,
    when one is), `problems` (each problem of an invalid spec, as gpuctl prints it)."""

    def __init__(
        self,
        status: int,
        error: str,
        message: str,
        field: str | None = None,
        problems: list[str] | None = None,
        headers: httpx.Headers | None = None,
    ) -> None:
        where = f" (field {field})" if field else ""
        super().__init__(f"{status} {error}: {message}{where}")
        self.status = status
        self.error = error
        self.message = message
        self.field = field
        self.problems = problems or []
        self.headers = headers if headers is not None else httpx.Headers()


class BadRequest(ApiError):
    """400: an invalid spec, parameter or body (`field` and `problems` say where)."""


class Unauthorized(ApiError):
    """401: no token, or one the server does not know."""


class Forbidden(ApiError):
    """403: the token's user may not do this."""


class NotFound(ApiError):
    """404: no such job, node, pool, quota or webhook (another user's job too)."""


class Conflict(ApiError):
    """409: it exists already, or a label or pool conflicts."""


class PayloadTooLarge(ApiError):
    """413: a request body over the server's limit."""


class Unprocessable(ApiError):
    """422: understood but refused (an Idempotency-Key reused for another body, a webhook URL
    that is not allowed, a placement that cannot work); nothing was written."""


class RateLimited(ApiError):
    """429: too many writes or log streams at once, still so when the retries' deadline came;
    `retry_after` is the server's Retry-After in seconds (None without one)."""

    @property
    def retry_after(self) -> float | None:
        from gpuctl_client.retry import retry_after

        return retry_after(self.headers)


class ServerError(ApiError):
    """5xx: the server or the cluster behind it failed or did not answer (503 still so when
    the retries' deadline came)."""


class ConnectionFailed(GpuctlClientError):
    """The server could not be reached, or the connection broke, until the retries' deadline."""


class LogStreamBroken(ConnectionFailed):
    """A followed log stream was cut before its end (the server went away mid-stream): the
    lines read so far were delivered; the job may still be running."""


BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: Unprocessable,
    429: RateLimited,
}


def error_of(status: int, content: bytes, headers: httpx.Headers | None = None) -> ApiError:
    """The exception for an error answer: its status's class, with the body's fields (an answer
    that is not the API's error shape, say a proxy's HTML page, keeps its first 200 characters
    as the message)."""
    kind = BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    body = _json(content)
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        problems = body.get("problems")
        return kind(
            status,
            body["error"],
            str(body.get("message", "")),
            body.get("field") if isinstance(body.get("field"), str) else None,
            [str(p) for p in problems] if isinstance(problems, list) else None,
            headers,
        )
    text = content.decode("utf-8", "replace").strip()[:200]
    return kind(status, f"HTTP{status}", text or "(no body)", headers=headers)


def _json(content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None
