"""The resources gpuctl reads and writes: a fixed table instead of API discovery (but for
Kueue's, whose version each cluster's discovery decides: `kueue_version`), and kubectl's way
of naming an object (`job.batch/x`). No Kubernetes client needed."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from gpuctl import constants as c
from gpuctl.errors import GpuctlError
from gpuctl.workloads import ADAPTERS


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    plural: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{self.plural}"
        if name is not None:
            base += f"/{quote(name, safe='')}"
        return base


RESOURCES: dict[str, Resource] = {
    "Namespace": Resource("", "v1", "namespaces", False),
    "Node": Resource("", "v1", "nodes", False),
    "Pod": Resource("", "v1", "pods", True),
    "Service": Resource("", "v1", "services", True),
    "ConfigMap": Resource("", "v1", "configmaps", True),
    "Secret": Resource("", "v1", "secrets", True),
    "ServiceAccount": Resource("", "v1", "serviceaccounts", True),
    "ResourceQuota": Resource("", "v1", "resourcequotas", True),
    "Event": Resource("", "v1", "events", True),
    **{a.kind: Resource(a.group, a.version, a.plural, True) for a in ADAPTERS.values()},
    "ReplicaSet": Resource("apps", "v1", "replicasets", True),
    "HorizontalPodAutoscaler": Resource("autoscaling", "v2", "horizontalpodautoscalers", True),
    "PodDisruptionBudget": Resource("policy", "v1", "poddisruptionbudgets", True),
    "PriorityClass": Resource("scheduling.k8s.io", "v1", "priorityclasses", False),
    "NetworkPolicy": Resource("networking.k8s.io", "v1", "networkpolicies", True),
    "Lease": Resource("coordination.k8s.io", "v1", "leases", True),
    "Role": Resource("rbac.authorization.k8s.io", "v1", "roles", True),
    "RoleBinding": Resource("rbac.authorization.k8s.io", "v1", "rolebindings", True),
    "ClusterRole": Resource("rbac.authorization.k8s.io", "v1", "clusterroles", False),
    "ClusterRoleBinding": Resource("rbac.authorization.k8s.io", "v1", "clusterrolebindings", False),
    "CustomResourceDefinition": Resource(
        "apiextensions.k8s.io", "v1", "customresourcedefinitions", False
    ),
    **{
        # at the oldest version gpuctl supports; each cluster's discovery picks the one used
        kind: Resource(
            c.KUEUE_GROUP, c.KUEUE_VERSIONS[-1], kind.lower() + "s", kind == "LocalQueue"
        )
        for kind in c.KUEUE_KINDS
    },
    "GPUWorkload": Resource(c.WORKLOAD_GROUP, "v1alpha1", "gpuworkloads", True),
    # read only: a Karpenter NodePool says the cluster adds nodes on demand
    "NodePool": Resource("karpenter.sh", "v1", "nodepools", False),
    # create-only reviews: who a bearer token is, and what a user may do
    "TokenReview": Resource("authentication.k8s.io", "v1", "tokenreviews", False),
    "SelfSubjectAccessReview": Resource(
        "authorization.k8s.io", "v1", "selfsubjectaccessreviews", False
    ),
}


def resource(kind: str) -> Resource:
    try:
        return RESOURCES[kind]
    except KeyError:
        raise GpuctlError(f"gpuctl does not handle objects of kind {kind}") from None


def kueue_version(served: Iterable[str]) -> str | None:
    """The Kueue API version gpuctl uses among those a cluster serves: the first of
    constants.KUEUE_VERSIONS served; None where it serves none of them (no Kueue, for
    gpuctl)."""
    found = set(served)
    return next((version for version in c.KUEUE_VERSIONS if version in found), None)


def at_version(res: Resource, version: str) -> Resource:
    """The same resource, served at another version of its group."""
    return dataclasses.replace(res, version=version)


def ref(kind: str, name: str) -> str:
    """kubectl's name for an object: `job.batch/x`, `service/svc-x`."""
    group = RESOURCES[kind].group if kind in RESOURCES else ""
    return f"{kind.lower()}{'.' + group if group else ''}/{name}"


def clean(obj: dict[str, Any]) -> dict[str, Any]:
    """A live object as something to create again: the fields the server set are dropped."""
    result: dict[str, Any] = json.loads(json.dumps(obj))
    metadata = result.get("metadata", {})
    for key in (
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "managedFields",
        "selfLink",
        "ownerReferences",
    ):
        metadata.pop(key, None)
    metadata["finalizers"] = [f for f in metadata.get("finalizers", []) if "/" in f]
    if not metadata["finalizers"]:
        metadata.pop("finalizers")
    result.pop("status", None)
    spec = result.get("spec") or {}
    adapter = ADAPTERS.get(str(result.get("kind") or ""))
    if adapter is not None:
        adapter.forget_server_fields(spec)
    if result.get("kind") == "Service":
        for key in ("clusterIP", "clusterIPs"):
            spec.pop(key, None)
    return result
