"""What gpuctl needs to know of a workload object kind, in one place per kind.

A workload is the object a job spec renders that makes the job's pods (a Job, a Deployment, a
StatefulSet). Everything that differs between the kinds is answered by the kind's adapter:
its pod template, how many pods it asks for, its status in gpuctl's words, when it is up or
finished, how it is paused and resumed, and how its pods are found. Adapters read and build
Kubernetes shapes (dicts); they never call the cluster.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gpuctl import constants as c
from gpuctl import shapes
from gpuctl.spec import accelerators

Obj = Mapping[str, Any]


def spec_of(obj: Obj) -> dict[str, Any]:
    spec: dict[str, Any] = obj.get("spec") or {}
    return spec


def status_of(obj: Obj) -> dict[str, Any]:
    status: dict[str, Any] = obj.get("status") or {}
    return status


def pod_spec_of(obj: Obj) -> dict[str, Any]:
    """The pod spec of any object that makes pods or is one: a workload's (Job, Deployment,
    StatefulSet, ReplicaSet) `spec.template.spec`, a Pod's `spec`; {} when it has none. The
    one reader of that path: the dict itself is returned (a writer changes the object through
    it) when it is there."""
    if obj.get("kind") == "Pod":
        return spec_of(obj)
    template: Mapping[str, Any] = spec_of(obj).get("template") or {}
    return spec_of(template)


def container_gpus(container: Mapping[str, Any]) -> int:
    """Accelerators a container asks for, of every vendor: its limits, else its requests."""
    resources: shapes.ResourceRequirements = shapes.container(container).get("resources") or {}
    limits = resources.get("limits") or {}
    if accelerators.counts_by_resource(limits):
        return accelerators.gpu_count(limits)
    return accelerators.gpu_count(resources.get("requests") or {})


def container_share(container: Mapping[str, Any]) -> int:
    """GiB of shared GPU memory a container asks for (the GPU-share device plugin's resource,
    constants.GPU_SHARE_RESOURCE): its limits, else its requests; 0 for none."""
    resources: shapes.ResourceRequirements = shapes.container(container).get("resources") or {}
    for amounts in (resources.get("limits") or {}, resources.get("requests") or {}):
        value = amounts.get(c.GPU_SHARE_RESOURCE)
        if value is not None:
            try:
                return max(int(str(value)), 0)
            except ValueError:
                return 0
    return 0


def container_gpu_resource(container: Mapping[str, Any]) -> str | None:
    """The accelerator resource name a container asks for (its first); None for none."""
    resources: shapes.ResourceRequirements = shapes.container(container).get("resources") or {}
    for amounts in (resources.get("limits") or {}, resources.get("requests") or {}):
        for name, count in accelerators.counts_by_resource(amounts).items():
            if count > 0:
                return name
    return None


def pod_is_ready(pod: Obj) -> bool:
    """The pod's Ready condition is True."""
    status: shapes.PodStatus = shapes.pod(pod).get("status") or {}
    return any(
        condition.get("type") == "Ready" and condition.get("status") == "True"
        for condition in status.get("conditions") or []
    )


@dataclass(frozen=True)
class Patch:
    """A merge patch that pauses or resumes a workload, and what it does in words (or None
    when there is nothing to do: the workload is already in the wanted state)."""

    body: dict[str, Any] | None
    detail: str = ""  # e.g. "(scaled from 2 to 0)"


class WorkloadAdapter(ABC):
    """One workload object kind. Subclasses set the class attributes and the rules."""

    kind: ClassVar[str]
    group: ClassVar[str]  # API group and version it is served under
    version: ClassVar[str]
    plural: ClassVar[str]
    pod_label: ClassVar[str]  # the label on its pods whose value is the workload's name
    pods_field: ClassVar[str]  # the field of its spec that holds how many pods it runs at once
    # It runs to completion (it can succeed or fail), rather than serving until deleted.
    runs_to_completion: ClassVar[bool] = False
    # An autoscaler (or `kubectl scale`) may change its replica count.
    scaled: ClassVar[bool] = False
    # Its pod template cannot change in place: a changed one replaces the object.
    replace_only: ClassVar[bool] = False
    # The kind between it and its pods, that owns them (a Deployment's ReplicaSets); "" if none.
    pod_owner_kind: ClassVar[str] = ""

    def pod_template(self, obj: Obj) -> dict[str, Any]:
        template: dict[str, Any] = spec_of(obj).get("template") or {}
        return template

    def pod_spec(self, obj: Obj) -> dict[str, Any]:
        return pod_spec_of(obj)

    def gpus_per_pod(self, obj: Obj) -> int:
        """GPUs one pod of the workload asks for."""
        return sum(container_gpus(item) for item in self.pod_spec(obj).get("containers") or [])

    def share_per_pod(self, obj: Obj) -> int:
        """GiB of shared GPU memory one pod asks for (gpu-share); 0 for whole GPUs."""
        return sum(container_share(item) for item in self.pod_spec(obj).get("containers") or [])

    def pods(self, obj: Obj) -> int:
        """The pods it asks for now (1 when unset, 0 when scaled to zero)."""
        return int(spec_of(obj).get(self.pods_field, 1) or 0)

    def gpus(self, obj: Obj) -> int:
        """GPUs the whole workload asks for: per pod times pods."""
        return self.gpus_per_pod(obj) * self.pods(obj)

    def pod_selector(self, name: str) -> str:
        """The label selector of the pods of workload `name`."""
        return f"{self.pod_label}={name}"

    @abstractmethod
    def status(self, obj: Obj) -> str:
        """Its state in gpuctl's words (a constants.Status), its deletion aside."""

    @abstractmethod
    def ready(self, obj: Obj) -> str:
        """READY as `ready/desired` pods."""

    @abstractmethod
    def up(self, obj: Obj, live_pods: Sequence[Obj]) -> bool:
        """Is it up, given its pods that are not being deleted?"""

    def finished(self, obj: Obj) -> bool:
        """Has it ended for good (nothing left to pause or resume)?"""
        return self.runs_to_completion and self.status(obj) in (
            c.Status.SUCCEEDED,
            c.Status.FAILED,
        )

    @abstractmethod
    def paused(self, obj: Obj) -> bool:
        """Is it paused (by `gpuctl pause`, or left so)?"""

    @abstractmethod
    def pause(self, obj: Obj) -> Patch:
        """The patch that pauses it; Patch(None) when it is paused already."""

    @abstractmethod
    def resume(self, obj: Obj) -> Patch:
        """The patch that resumes it; Patch(None) when it is not paused."""

    def forget_server_fields(self, spec: dict[str, Any]) -> None:
        """Drop from a copy's spec what the server set for the old object and would refuse on
        a new one (a Job's selector naming the old uid). Nothing by default."""
        return None
