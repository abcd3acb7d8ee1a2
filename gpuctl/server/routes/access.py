"""POST /auth/check: would the caller be allowed? (the same rules the routes apply)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from gpuctl.server import answers, bodies
from gpuctl.server.auth import decide
from gpuctl.server.deps import Caller

router = APIRouter(tags=["auth"])


@router.post(
    "/auth/check",
    response_model=answers.AuthDecision,
    summary="Whether you may do an action on a resource",
)
def check(body: bodies.AuthCheck, principal: Caller) -> dict[str, Any]:
    owner = body.user if body.user is not None else principal.user
    allowed, reason = decide(principal, body.resource, body.action, owner)
    return {"allowed": allowed, "message": reason, "user": principal.user, "role": principal.role}
