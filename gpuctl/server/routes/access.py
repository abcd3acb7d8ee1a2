"""POST /auth/check: would the caller be allowed? With a token file, the same rules the routes
apply; with `--auth kubernetes`, the cluster's answer (a SelfSubjectAccessReview as them)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from gpuctl.server import answers, bodies
from gpuctl.server.auth import decide
from gpuctl.server.deps import Caller, Kube
from gpuctl.server.kubeauth import review_access

router = APIRouter(tags=["auth"])


@router.post(
    "/auth/check",
    operation_id="checkAccess",
    description=(
        "Whether the caller may do `action` on `resource`: with a token file by gpuctl's rules,"
        " with `--auth kubernetes` by the cluster's RBAC (a SelfSubjectAccessReview as the "
        "caller)."
    ),
    response_model=answers.AuthDecision,
    summary="Whether you may do an action on a resource",
)
def check(body: bodies.AuthCheck, principal: Caller, cluster: Kube) -> dict[str, Any]:
    if principal.impersonated:
        allowed, reason = decide(principal, body.resource, body.action)
        if allowed:  # a known resource and action: the cluster decides
            allowed, reason = review_access(
                cluster, principal, body.resource, body.action, body.user
            )
    else:
        owner = body.user if body.user is not None else principal.user
        allowed, reason = decide(principal, body.resource, body.action, owner)
    return {"allowed": allowed, "message": reason, "user": principal.user, "role": principal.role}
