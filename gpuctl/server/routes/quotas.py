"""Quotas: per user (namespace), used/hard and percent; created from a quota spec."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from gpuctl.inventory import quotas
from gpuctl.server import answers, bodies, kubeauth, specs
from gpuctl.server.auth import require
from gpuctl.server.deps import Caller, Kube
from gpuctl.server.errors import verb_failed
from gpuctl.server.params import UserName
from gpuctl.server.views import quota_item

# A pool record or a quota has no pods: deleting it takes a moment; the answer waits for it.
WAIT = 30.0

router = APIRouter(tags=["quotas"])


@router.get(
    "/quotas",
    operation_id="listQuotas",
    description=(
        "Quotas with what is used of them: every user's for an admin, the caller's own for a user."
    ),
    response_model=answers.QuotaList,
    summary="Quotas: every user's for an admin, your own for a user",
)
def list_quotas(principal: Caller, cluster: Kube) -> dict[str, Any]:
    if principal.impersonated:  # every namespace's when RBAC allows, else their own
        found = kubeauth.everywhere_or_home(
            cluster, principal, lambda where: quotas.list_quotas(cluster, where)
        )
        return {"items": [quota_item(q) for q in found]}
    user = None if principal.admin else principal.user
    require(principal, "quotas", "get", user)
    return {"items": [quota_item(q) for q in quotas.list_quotas(cluster, user)]}


@router.get(
    "/quotas/{userName}",
    operation_id="getQuota",
    description="One user's quotas: used, hard and percent for each resource.",
    response_model=answers.QuotaList,
    summary="One user's quota: used/hard and percent",
)
def get_quota(userName: UserName, principal: Caller, cluster: Kube) -> dict[str, Any]:
    require(principal, "quotas", "get", userName)
    return {"items": [quota_item(q) for q in quotas.user_quotas(cluster, userName)]}


@router.post(
    "/quotas",
    operation_id="createQuota",
    description=(
        "Creates the quotas a quota spec (`kind: quota`) describes, and each user's namespace. "
        "Admin only."
    ),
    status_code=201,
    response_model=answers.QuotasCreated,
    summary="Create quotas from a quota spec (admin)",
)
def create_quota(
    body: bodies.QuotaCreate, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    require(principal, "quotas", "create")
    work = specs.workset(
        cluster,
        body.yaml_content,
        admit=lambda checked: specs.only_kinds(checked, jobs=False, where="POST /quotas"),
    )
    checked = work.specs
    result = specs.create(cluster, work, principal, request.app.state.policy)
    users = sorted({str(user) for spec in checked for user in spec.data["users"]})
    names = [str(spec.data["metadata"]["name"]) for spec in checked]
    return {
        "names": names,
        "users": users,
        "status": "created",
        "message": "; ".join(result.lines()),
    }


@router.delete(
    "/quotas/{userName}",
    operation_id="deleteQuota",
    description="Deletes a user's quotas (their namespace and jobs stay). Admin only.",
    response_model=answers.QuotaDeleted,
    summary="Delete a user's quotas (not their namespace)",
)
def delete_quota(userName: UserName, principal: Caller, cluster: Kube) -> dict[str, Any]:
    from gpuctl.verbs.delete import Delete

    require(principal, "quotas", "delete", userName)
    found = quotas.user_quotas(cluster, userName)
    result = Delete(cluster, wait=True, timeout=WAIT).run(
        [("ResourceQuota", quota.name, userName) for quota in found]
    )
    if not result.ok:
        raise verb_failed(result, 502, "DeleteFailed")
    return {"userName": userName, "status": "deleted", "message": "; ".join(result.lines())}
