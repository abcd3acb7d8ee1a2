"""The small typed errors of a cluster request, in plain words (lightkube's style)."""

from __future__ import annotations

import json
from typing import Any

from gpuctl.errors import GpuctlError


class KubeError(GpuctlError):
    """The cluster refused or failed a request."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        reason: str = "",
        causes: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.causes = causes or []


class NotFound(KubeError):
    pass


class AlreadyExists(KubeError):
    pass


class Conflict(KubeError):
    """Optimistic concurrency: the object changed since it was read."""


class Forbidden(KubeError):
    """RBAC, an exceeded quota, or a terminating namespace."""


class Invalid(KubeError):
    """The server's validation refused the object (field errors in `causes`)."""

    @property
    def immutable(self) -> bool:
        text = self.args[0] + " ".join(str(c.get("message", "")) for c in self.causes)
        return "field is immutable" in text or ("updates to" in text and "are forbidden" in text)


class Gone(KubeError):
    """410: a watch's or list's resourceVersion is too old; or (504 with the cause
    ResourceVersionTooLarge) ahead of the cluster's, as on a new cluster: list afresh."""


class ServerError(KubeError):
    """5xx, 429 or an unexpected status."""


class Unreachable(KubeError):
    """No answer: connection refused, reset, dropped, or timed out."""


_BY_REASON: dict[str, type[KubeError]] = {
    "NotFound": NotFound,
    "AlreadyExists": AlreadyExists,
    "Conflict": Conflict,
    "Forbidden": Forbidden,
    "Invalid": Invalid,
    "Gone": Gone,
    "Expired": Gone,
}
_BY_STATUS: dict[int, type[KubeError]] = {
    404: NotFound,
    403: Forbidden,
    401: Forbidden,
    422: Invalid,
    410: Gone,
}


def _error(status: int, body: bytes, what: str) -> KubeError:
    """The exception for an error response, worded for a person."""
    try:
        data = json.loads(body)
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    reason = str(data.get("reason") or "")
    message = str(data.get("message") or body[:200].decode("utf-8", "replace") or f"HTTP {status}")
    causes = list((data.get("details") or {}).get("causes") or [])
    if reason == "AlreadyExists" or (status == 409 and "already exists" in message):
        cls: type[KubeError] = AlreadyExists
    elif status == 409:
        cls = Conflict
    elif any(cause.get("reason") == "ResourceVersionTooLarge" for cause in causes):
        cls = Gone
    else:
        cls = _BY_REASON.get(reason) or _BY_STATUS.get(status) or ServerError
    # Callers name the object; the message says what happened to it.
    if cls is Forbidden and "exceeded quota" in message:
        message = f"over quota: {message}"
    elif cls is Forbidden and status == 401:
        message = "not authorised (401): check the credentials in your kubeconfig"
    elif cls is Invalid and causes:
        fields = "; ".join(f"{c.get('field', '?')}: {c.get('message', '')}" for c in causes)
        message = f"invalid: {fields}"
    elif cls is ServerError:
        message = f"the cluster answered {status}: {message}"
    return cls(message, status=status, reason=reason, causes=causes)
