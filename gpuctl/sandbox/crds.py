"""CustomResourceDefinitions: serving the resources a CRD defines once it is written (and
marking it Established), and no longer once it is deleted."""

from __future__ import annotations

import copy
from collections.abc import Callable

from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.store import Obj, Store
from gpuctl.sandbox.timestamps import now_rfc3339


class CustomResources:
    """Keeps the registry's custom resources in step with the stored CRDs."""

    def __init__(self, registry: Registry, store: Store) -> None:
        self.registry = registry
        self.store = store

    def register(self, crd: Obj) -> None:
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        for version in spec.get("versions") or []:
            if not version.get("served", True):
                continue
            self.registry.add(_served_resource(spec, version))
        if not (crd.get("status") or {}).get("conditions"):
            new = copy.deepcopy(crd)
            ts = now_rfc3339()
            new["status"] = {
                "acceptedNames": names,
                "storedVersions": [
                    v["name"] for v in spec.get("versions") or [] if v.get("storage")
                ],
                "conditions": [
                    {
                        "type": "NamesAccepted",
                        "status": "True",
                        "reason": "NoConflicts",
                        "message": "no conflicts found",
                        "lastTransitionTime": ts,
                    },
                    {
                        "type": "Established",
                        "status": "True",
                        "reason": "InitialNamesAccepted",
                        "message": "the initial names have been accepted",
                        "lastTransitionTime": ts,
                    },
                ],
            }
            new["metadata"]["resourceVersion"] = str(self.store.next_rv())
            self.store.put(
                self.registry.get("apiextensions.k8s.io", "customresourcedefinitions").key,
                new,
                "MODIFIED",
            )

    def unregister(self, crd: Obj, remove: Callable[[Resource, Obj], Obj]) -> None:
        """Stop serving the CRD's resources; `remove` deletes each of their objects."""
        spec = crd.get("spec") or {}
        for version in spec.get("versions") or []:
            res = self.registry.lookup(
                spec.get("group", ""), version["name"], (spec.get("names") or {}).get("plural", "")
            )
            if res is not None:
                for obj in self.store.objects(res.key, None):
                    remove(res, obj)
                self.registry.remove(res)


def _served_resource(spec: Obj, version: Obj) -> Resource:
    """The resource one served version of a CRD adds to the API."""
    names = spec.get("names") or {}
    schema = (version.get("schema") or {}).get("openAPIV3Schema") or {}
    subresources = tuple(sorted((version.get("subresources") or {}).keys()))
    return Resource(
        spec.get("group", ""),
        version["name"],
        names.get("plural", ""),
        names.get("kind", ""),
        spec.get("scope", "Namespaced") == "Namespaced",
        tuple(names.get("shortNames") or ()),
        tuple(names.get("categories") or ()),
        subresources,
        crd_schema=schema,
        printer_columns=tuple(
            (
                str(column.get("name", "")),
                str(column.get("type", "string")),
                str(column.get("jsonPath", "")),
                int(column.get("priority") or 0),
            )
            for column in version.get("additionalPrinterColumns") or []
        ),
    )
