"""API errors as the real server reports them: `Status` bodies with its reasons and texts."""

from __future__ import annotations

from typing import Any

from gpuctl.sandbox.resources import Resource


class ApiError(Exception):
    """An error that becomes a `Status` response body."""

    def __init__(
        self, code: int, reason: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.headers: dict[str, str] = {}

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body


def _details(res: Resource, name: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name}
    if res.group:
        details["group"] = res.group
    details["kind"] = res.plural
    return details


def not_found(res: Resource, name: str) -> ApiError:
    return ApiError(
        404, "NotFound", f'{res.group_resource} "{name}" not found', _details(res, name)
    )


def already_exists(res: Resource, name: str) -> ApiError:
    return ApiError(
        409, "AlreadyExists", f'{res.group_resource} "{name}" already exists', _details(res, name)
    )


def conflict(res: Resource, name: str) -> ApiError:
    return ApiError(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {res.group_resource} "{name}": the object has been '
        "modified; please apply your changes to the latest version and try again",
        _details(res, name),
    )


def forbidden(
    res: Resource, name: str, why: str, causes: list[dict[str, str]] | None = None
) -> ApiError:
    details = _details(res, name)
    if causes:
        details["causes"] = causes
    return ApiError(403, "Forbidden", f'{res.group_resource} "{name}" is forbidden: {why}', details)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def too_large_resource_version(asked: int, current: int) -> ApiError:
    """The real server's answer to a list at a resourceVersion it has not reached (after
    waiting for it a while): 504 Timeout, the cause ResourceVersionTooLarge."""
    error = ApiError(
        504,
        "Timeout",
        f"Timeout: Too large resource version: {asked}, current: {current}",
        {
            "causes": [
                {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
            ],
            "retryAfterSeconds": 1,
        },
    )
    error.headers["Retry-After"] = "1"
    return error


def method_not_allowed() -> ApiError:
    return ApiError(
        405, "MethodNotAllowed", "the server does not allow this method on the requested resource"
    )


class Cause:
    """One field error, rendered like apimachinery's field.Error."""

    def __init__(self, field: str, kind: str, detail: str = "", value: Any = None) -> None:
        self.field = field
        self.kind = kind  # Invalid value | Required value | Unsupported value | Forbidden | ...
        self.detail = detail
        self.value = value

    @property
    def reason(self) -> str:
        return {
            "Invalid value": "FieldValueInvalid",
            "Required value": "FieldValueRequired",
            "Unsupported value": "FieldValueNotSupported",
            "Forbidden": "FieldValueForbidden",
            "Duplicate value": "FieldValueDuplicate",
            "Too many": "FieldValueTooMany",
            "Not found": "FieldValueNotFound",
        }.get(self.kind, "FieldValueInvalid")

    @property
    def message(self) -> str:
        text = self.kind
        if self.kind in ("Invalid value", "Unsupported value", "Duplicate value", "Not found"):
            text += f": {_render_value(self.value)}"
        if self.detail:
            text += f": {self.detail}"
        return text


def _render_value(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        pairs = ", ".join(f'"{k}":"{v}"' for k, v in sorted(value.items()))
        return f"map[string]string{{{pairs}}}"
    if isinstance(value, dict | list):
        return '"object"'
    return str(value)


def invalid(res: Resource, name: str, causes: list[Cause]) -> ApiError:
    texts = [f"{c.field}: {c.message}" for c in causes]
    summary = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    kind = res.kind if not res.group else f"{res.kind}.{res.group}"
    details: dict[str, Any] = {"name": name}
    if res.group:
        details["group"] = res.group
    details["kind"] = res.kind
    details["causes"] = [
        {"reason": c.reason, "message": c.message, "field": c.field} for c in causes
    ]
    return ApiError(422, "Invalid", f'{kind} "{name}" is invalid: {summary}', details)
