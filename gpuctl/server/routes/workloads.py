"""The GPUWorkload controller's workloads, read-only: an admin sees every namespace's, a user
their own namespace's (as with jobs)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from gpuctl.inventory.gpu_workloads import list_workloads
from gpuctl.server import answers, kubeauth
from gpuctl.server.auth import require
from gpuctl.server.deps import Caller, Kube

router = APIRouter(tags=["workloads"])

NOT_INSTALLED = (
    "the cluster serves no GPUWorkloads: the controller's CRD is not installed "
    "(gpuctl controller install)"
)


@router.get(
    "/workloads",
    operation_id="listWorkloads",
    description=(
        "The GPUWorkload controller's workloads with their phase, node, Job and message: every "
        "namespace's for an admin, the caller's own namespace's for a user. `installed` is "
        "false (and `items` empty) when the cluster has no GPUWorkload CRD."
    ),
    response_model=answers.WorkloadList,
    summary="GPUWorkloads: phase, node, message",
)
def list_gpu_workloads(principal: Caller, cluster: Kube) -> dict[str, Any]:
    if principal.impersonated:  # every namespace's when RBAC allows, else their own
        found = kubeauth.everywhere_or_home(
            cluster, principal, lambda where: list_workloads(cluster, where)
        )
    else:
        namespace = None if principal.admin else principal.user
        require(principal, "jobs", "get", namespace)
        found = list_workloads(cluster, namespace)
    if found is None:
        return {"installed": False, "message": NOT_INSTALLED, "items": []}
    return {"installed": True, "message": f"{len(found)} GPUWorkloads", "items": found}
