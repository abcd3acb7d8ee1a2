"""The workload object kinds gpuctl renders and operates, one adapter each, in one table.

Every rule that differs between a Job, a Deployment and a StatefulSet is a method of the
kind's adapter (gpuctl.workloads.adapter); callers look the adapter up here by kind and never
branch on a kind name. Adding a workload kind is one adapter class and one line in ADAPTERS.
Pure: Kubernetes shapes in and out, no cluster calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gpuctl.workloads.adapter import Patch, WorkloadAdapter, pod_spec_of
from gpuctl.workloads.job import JobAdapter
from gpuctl.workloads.replicated import DeploymentAdapter, StatefulSetAdapter

__all__ = [
    "ADAPTERS",
    "DEPLOYMENT",
    "INSTALL_ORDER",
    "JOB",
    "SCALED_KINDS",
    "STATEFUL_SET",
    "WORKLOAD_KINDS",
    "Patch",
    "WorkloadAdapter",
    "adapter",
    "adapter_of",
    "pod_spec_of",
]

JOB: Final = JobAdapter()
DEPLOYMENT: Final = DeploymentAdapter()
STATEFUL_SET: Final = StatefulSetAdapter()

# kind -> adapter, in the order gpuctl lists a job's workload kinds.
ADAPTERS: Final[Mapping[str, WorkloadAdapter]] = {
    adapter.kind: adapter for adapter in (JOB, DEPLOYMENT, STATEFUL_SET)
}
WORKLOAD_KINDS: Final = tuple(ADAPTERS)
# Workload kinds whose replica count an autoscaler (or `kubectl scale`) may change.
SCALED_KINDS: Final = frozenset(kind for kind, a in ADAPTERS.items() if a.scaled)
# The order in which one run writes workloads of different kinds.
INSTALL_ORDER: Final = tuple(a.kind for a in (STATEFUL_SET, DEPLOYMENT, JOB))


def adapter(kind: str) -> WorkloadAdapter | None:
    """The adapter of workload kind `kind`; None when it is not a workload kind."""
    return ADAPTERS.get(kind)


def adapter_of(obj: Mapping[str, Any]) -> WorkloadAdapter | None:
    """The adapter of the object's kind; None when it is not a workload."""
    return ADAPTERS.get(str(obj.get("kind") or ""))
