"""Admission of a new object: the Priority plugin (priorityClassName into spec.priority), the
namespace lifecycle (it must exist and not be terminating) and Pod Security (the namespace's
enforced level)."""

from __future__ import annotations

from gpuctl.placement import podsecurity
from gpuctl.sandbox.errors import ApiError, forbidden
from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.store import Obj, Store


class Admission:
    """The admission plugins that read other objects (PriorityClasses, namespaces)."""

    def __init__(self, registry: Registry, store: Store) -> None:
        self.registry = registry
        self.store = store

    def priority(self, res: Resource, pod: Obj) -> None:
        """The Priority admission plugin: resolve priorityClassName into spec.priority."""
        spec = pod.setdefault("spec", {})
        classes = self.registry.get("scheduling.k8s.io", "priorityclasses")
        wanted = spec.get("priorityClassName")
        if wanted:
            found = self.store.get(classes.key, "", wanted)
            if found is None:
                name = pod["metadata"].get("name") or pod["metadata"].get("generateName", "")
                raise forbidden(res, name, f"no PriorityClass with name {wanted} was found")
        else:
            found = next(
                (pc for pc in self.store.objects(classes.key, None) if pc.get("globalDefault")),
                None,
            )
            if found is not None:
                spec["priorityClassName"] = found["metadata"]["name"]
        if found is not None:
            spec["priority"] = int(found.get("value", 0))
            spec["preemptionPolicy"] = found.get("preemptionPolicy", "PreemptLowerPriority")

    def namespace(self, res: Resource, namespace: str, name: str) -> None:
        ns_res = self.registry.get("", "namespaces")
        ns = self.store.get(ns_res.key, "", namespace)
        if ns is None:
            raise ApiError(
                404,
                "NotFound",
                f'namespaces "{namespace}" not found',
                {"name": namespace, "kind": "namespaces"},
            )
        if ns["metadata"].get("deletionTimestamp") and res.kind != "Event":
            raise forbidden(
                res,
                name,
                f"unable to create new content in namespace {namespace} because it is being "
                "terminated",
                [
                    {
                        "reason": "NamespaceTerminating",
                        "message": f"namespace {namespace} is being terminated",
                        "field": "metadata.namespace",
                    }
                ],
            )

    def pod_security(self, res: Resource, namespace: str, pod: Obj) -> None:
        """The namespace's enforced Pod Security level refuses a pod that breaks it."""
        ns = self.store.get(self.registry.get("", "namespaces").key, "", namespace) or {}
        why = podsecurity.refusal(ns, pod)
        if why:
            raise forbidden(res, pod["metadata"]["name"], why)
