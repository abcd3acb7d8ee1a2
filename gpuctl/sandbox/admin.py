"""The sandbox's own endpoints, beside the Kubernetes API: /sandbox/faults (GET, POST,
DELETE), /sandbox/requests (GET, DELETE) and /sandbox/errors (GET: what the simulated
controllers raised)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gpuctl.sandbox.controllers import ControllerError
from gpuctl.sandbox.errors import ApiError, bad_request, method_not_allowed
from gpuctl.sandbox.faults import Faults, RequestLog


def answer(
    method: str,
    path: str,
    body: bytes,
    faults: Faults,
    requests: RequestLog,
    controller_errors: Callable[[], list[ControllerError]],
) -> tuple[int, dict[str, Any]]:
    """The status code and the body of the answer to an admin request."""
    if path == "/sandbox/errors":
        if method != "GET":
            raise method_not_allowed()
        errors = [e.as_dict() for e in controller_errors()]
        return 200, {"controllerErrors": errors}
    if path == "/sandbox/faults":
        if method == "POST":
            try:
                fault = faults.add_from_json(json.loads(body or b"{}"))
            except (ValueError, TypeError) as exc:
                raise bad_request(str(exc)) from None
            return 201, fault.__dict__
        if method == "DELETE":
            faults.clear()
        return 200, {"faults": [f.__dict__ for f in faults.rules]}
    if path == "/sandbox/requests":
        if method == "DELETE":
            requests.clear()
        return 200, {"requests": [r._asdict() for r in requests]}
    raise ApiError(404, "NotFound", "the server could not find the requested resource")
