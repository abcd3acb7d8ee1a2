"""The GPUWorkload controller's objects as a reader sees them: each workload's phase, the node
it was placed on, its Job and the controller's last message. Read-only."""

from __future__ import annotations

from typing import Any, TypedDict

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import NotFound


class WorkloadRow(TypedDict):
    namespace: str
    name: str
    modelName: str
    gpuCount: int
    phase: str
    node: str | None
    jobName: str | None
    retries: int
    message: str
    createdAt: str | None


def workload_row(obj: dict[str, Any]) -> WorkloadRow:
    """One GPUWorkload as a row; a workload the controller has not seen yet is Pending."""
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    return {
        "namespace": str(meta.get("namespace") or ""),
        "name": str(meta.get("name") or ""),
        "modelName": str(spec.get("modelName") or ""),
        "gpuCount": int(spec.get("gpuCount") or 0),
        "phase": str(status.get("phase") or "Pending"),
        "node": status.get("assignedNode") or None,
        "jobName": status.get("jobName") or None,
        "retries": int(status.get("retries") or 0),
        "message": str(status.get("message") or ""),
        "createdAt": meta.get("creationTimestamp"),
    }


def list_workloads(cluster: ClusterAPI, namespace: str | None) -> list[WorkloadRow] | None:
    """The GPUWorkloads of `namespace` (None: every namespace), by namespace and name; None
    when the cluster serves no GPUWorkloads (the controller's CRD is not installed)."""
    try:
        found = cluster.list("GPUWorkload", namespace)
    except NotFound:
        return None
    rows = [workload_row(obj) for obj in found]
    return sorted(rows, key=lambda row: (row["namespace"], row["name"]))
