"""Deployments and StatefulSets: a number of replicas that serve until deleted (inference
services, notebooks). Paused means scaled to zero, with the replica count remembered in an
annotation so that resume scales back to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.constants import Status
from gpuctl.workloads.adapter import Obj, Patch, WorkloadAdapter, pod_is_ready


class ReplicatedAdapter(WorkloadAdapter):
    """What Deployments and StatefulSets share: `spec.replicas` and `status.readyReplicas`."""

    pod_label: ClassVar[str] = c.Labels.APP
    pods_field: ClassVar[str] = "replicas"
    scaled: ClassVar[bool] = True

    def status(self, obj: Obj) -> str:
        """All ready > some ready > scaled to zero (Paused) > Pending."""
        desired, ready = _replicas(obj), _ready_replicas(obj)
        if desired > 0 and ready >= desired:
            return Status.RUNNING
        if ready > 0:
            return Status.PARTIALLY_RUNNING
        if desired == 0:
            return Status.PAUSED
        return Status.PENDING

    def ready(self, obj: Obj) -> str:
        return f"{_ready_replicas(obj)}/{_replicas(obj)}"

    def up(self, obj: Obj, live_pods: Sequence[Obj]) -> bool:
        """Every wanted replica ready and no pod of it not Ready; scaled to zero counts."""
        wanted = _replicas(obj)
        if wanted == 0:
            return True
        ready = _ready_replicas(obj)
        return bool(ready >= wanted and sum(map(pod_is_ready, live_pods)) >= wanted)

    def paused(self, obj: Obj) -> bool:
        return _replicas(obj) == 0

    def pause(self, obj: Obj) -> Patch:
        """Scale to zero, remembering the replicas."""
        replicas = _replicas(obj)
        if replicas == 0:
            return Patch(None)
        body = {
            "metadata": {"annotations": {c.PAUSED_REPLICAS_ANNOTATION: str(replicas)}},
            "spec": {"replicas": 0},
        }
        return Patch(body, f"(scaled from {replicas} to 0)")

    def resume(self, obj: Obj) -> Patch:
        """Scale back to the remembered replicas (1 when none is remembered)."""
        if not self.paused(obj):
            return Patch(None)
        annotations = shapes.meta(obj).get("annotations") or {}
        remembered = annotations.get(c.PAUSED_REPLICAS_ANNOTATION, "1")
        replicas = int(remembered) if remembered.isdigit() else 1
        body = {
            "metadata": {"annotations": {c.PAUSED_REPLICAS_ANNOTATION: None}},
            "spec": {"replicas": replicas},
        }
        return Patch(body, f"(scaled to {replicas})")


def _replicas(obj: Obj) -> int:
    """The replicas it asks for (1 when unset)."""
    spec: shapes.DeploymentSpec | shapes.StatefulSetSpec = shapes.replicated(obj).get("spec") or {}
    return spec.get("replicas", 1)


def _ready_replicas(obj: Obj) -> int:
    status: shapes.DeploymentStatus | shapes.StatefulSetStatus = (
        shapes.replicated(obj).get("status") or {}
    )
    return status.get("readyReplicas", 0)


class DeploymentAdapter(ReplicatedAdapter):
    kind: ClassVar[str] = "Deployment"
    group: ClassVar[str] = "apps"
    version: ClassVar[str] = "v1"
    plural: ClassVar[str] = "deployments"
    pod_owner_kind: ClassVar[str] = "ReplicaSet"


class StatefulSetAdapter(ReplicatedAdapter):
    kind: ClassVar[str] = "StatefulSet"
    group: ClassVar[str] = "apps"
    version: ClassVar[str] = "v1"
    plural: ClassVar[str] = "statefulsets"
