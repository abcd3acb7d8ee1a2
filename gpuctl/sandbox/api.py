"""The API machinery: create, get, list, update, patch and delete with the real server's
metadata handling, defaulting, validation, admission (namespaces, quota) and deletion rules.

Both the HTTP layer and the simulated controllers go through here; controllers pass
`internal=True` to skip schema validation of the objects they build themselves.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from gpuctl.sandbox import resize, validation
from gpuctl.sandbox.addresses import ServiceAddresses
from gpuctl.sandbox.admission import Admission
from gpuctl.sandbox.checks import ObjectChecks
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.crds import CustomResources
from gpuctl.sandbox.deletion import Deletion
from gpuctl.sandbox.errors import (
    Cause,
    already_exists,
    bad_request,
    invalid,
    not_found,
)
from gpuctl.sandbox.events import EventRecorder
from gpuctl.sandbox.metadata import (
    GENERATION_KINDS,
    carry_over,
    check_update_target,
    clear_server_fields,
    decode,
    generation_moves,
    initial_status,
    place_in_namespace,
    random_suffix,
    same_object,
)
from gpuctl.sandbox.patching import Patcher
from gpuctl.sandbox.quota import Quotas
from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.sandbox.store import Obj, Store
from gpuctl.sandbox.timestamps import now_rfc3339


class Api:
    def __init__(self, config: SandboxConfig, registry: Registry, store: Store) -> None:
        self.config = config
        self.registry = registry
        self.store = store
        self.checks = ObjectChecks(config.kubernetes_version)
        self.runtime: dict[str, PodRuntime] = {}  # pod uid → simulated kubelet state
        self.removed_uids: list[str] = []  # owners gone since the garbage collector last looked
        self.admission = Admission(registry, store)
        self.quotas = Quotas(registry, store)
        self.addresses = ServiceAddresses()
        self.crds = CustomResources(registry, store)
        self.events = EventRecorder(registry, store, self._create_internal, self._write)
        self.patcher = Patcher()
        self.deletion = Deletion(
            config, registry, store, self.runtime, self.get, self._write, self._remove
        )

    # -- reads --------------------------------------------------------------------------------

    def get(self, res: Resource, namespace: str, name: str) -> Obj:
        with self.store.lock:
            obj = self.store.get(res.key, namespace if res.namespaced else "", name)
        if obj is None:
            raise not_found(res, name)
        return obj

    def find(self, res: Resource, namespace: str, name: str) -> Obj | None:
        return self.store.get(res.key, namespace if res.namespaced else "", name)

    # -- create -------------------------------------------------------------------------------

    def create(
        self,
        res: Resource,
        namespace: str,
        body: Any,
        *,
        dry_run: bool = False,
        field_validation: str = "Warn",
        internal: bool = False,
        warnings: list[str] | None = None,
    ) -> Obj:
        obj = decode(res, body)
        meta = obj.setdefault("metadata", {})
        place_in_namespace(res, meta, namespace)
        with self.store.lock:
            name = self._name(res, meta)
            clear_server_fields(meta)
            uid = str(uuid.uuid4())
            if res.crd_schema is not None and "status" in res.subresources:
                obj.pop("status", None)  # written only through the status subresource
            self.checks.prepare(res, obj, uid)
            self._admit(res, obj, field_validation, warnings, internal)
            if self.find(res, meta.get("namespace", ""), name) is not None:
                raise already_exists(res, name)
            self.quotas.admit(res, meta.get("namespace", ""), obj)
            self.addresses.allocate(res, obj, None, dry_run)
            meta["uid"] = uid
            meta["creationTimestamp"] = now_rfc3339()
            if res.kind in GENERATION_KINDS or res.crd_schema is not None:
                meta["generation"] = 1
            initial_status(res, obj)
            if dry_run:
                meta["resourceVersion"] = str(self.store.rv)
                return obj
            meta["resourceVersion"] = str(self.store.next_rv())
            self.store.put(res.key, obj, "ADDED")
            self._after_write(res, None, obj)
            return obj

    def _name(self, res: Resource, meta: dict[str, Any]) -> str:
        """The new object's name: its own, or one made from generateName that is free."""
        if not meta.get("name"):
            if meta.get("generateName"):
                for _ in range(100):
                    candidate = meta["generateName"] + random_suffix()
                    if self.find(res, meta.get("namespace", ""), candidate) is None:
                        break
                meta["name"] = candidate
            else:
                raise invalid(
                    res,
                    "",
                    [
                        Cause(
                            "metadata.name",
                            "Required value",
                            "name or generateName is required",
                        )
                    ],
                )
        name: str = meta["name"]
        return name

    def _admit(
        self,
        res: Resource,
        obj: Obj,
        field_validation: str,
        warnings: list[str] | None,
        internal: bool,
    ) -> None:
        """A new object's checks in the real server's order: priority, the schema (skipped for
        the simulated controllers' own objects), its namespace, Pod Security."""
        meta = obj["metadata"]
        if res.kind == "Pod":
            self.admission.priority(res, obj)
        if not internal:
            self.checks.validate(res, obj, field_validation, warnings)
        if res.namespaced:
            self.admission.namespace(res, meta["namespace"], meta["name"])
        if res.kind == "Pod":
            self.admission.pod_security(res, meta["namespace"], obj)

    # -- update and patch ---------------------------------------------------------------------

    def update(
        self,
        res: Resource,
        namespace: str,
        name: str,
        body: Any,
        *,
        subresource: str = "",
        dry_run: bool = False,
        field_validation: str = "Warn",
        internal: bool = False,
        warnings: list[str] | None = None,
    ) -> Obj:
        new = decode(res, body)
        meta = new.setdefault("metadata", {})
        if meta.get("name") and meta["name"] != name:
            raise bad_request(
                f"the name of the object ({meta['name']}) does not match the name on the URL "
                f"({name})"
            )
        meta["name"] = name
        with self.store.lock:
            old = self.get(res, namespace, name)
            check_update_target(res, old, meta, name)
            old_meta = old["metadata"]
            new = carry_over(res, old, new, subresource)
            causes: list[Cause] = []
            if subresource == "resize":  # only the containers' resources are taken
                new, causes = resize.resized(old, new)
            meta = new["metadata"]
            self.checks.prepare(res, new, old_meta["uid"], creating=False)
            causes += validation.immutable_causes(res, old, new)
            # a custom resource's status is held to its CRD's schema like the rest of it
            if not internal and (subresource != "status" or res.crd_schema is not None):
                self.checks.validate(res, new, field_validation, warnings, causes, subresource)
            if causes:
                raise invalid(res, name, causes)
            self.addresses.allocate(res, new, old, dry_run)
            if "generation" in meta and subresource != "status" and generation_moves(res, old, new):
                meta["generation"] = int(old_meta.get("generation", 1)) + 1
            return self._store_update(res, old, new, dry_run)

    def _store_update(self, res: Resource, old: Obj, new: Obj, dry_run: bool) -> Obj:
        """Write an update that passed every check: nothing when nothing changed; removal when
        the last finalizer of an object being deleted goes."""
        meta, old_meta = new["metadata"], old["metadata"]
        if same_object(old, new):
            return old
        if dry_run:
            return new
        if (
            old_meta.get("deletionTimestamp")
            and not meta.get("finalizers")
            and (res.kind != "Pod" or not self.deletion.pod_still_terminating(old))
            and res.kind != "Namespace"
        ):
            return self._remove(res, new)
        meta["resourceVersion"] = str(self.store.next_rv())
        self.store.put(res.key, new, "MODIFIED")
        self._after_write(res, old, new)
        return new

    def patch(
        self,
        res: Resource,
        namespace: str,
        name: str,
        patch_type: str,
        patch: Any,
        *,
        subresource: str = "",
        dry_run: bool = False,
        field_validation: str = "Warn",
        warnings: list[str] | None = None,
        field_manager: str = "",
    ) -> Obj:
        with self.store.lock:
            if patch_type == "apply":
                if not field_manager:
                    raise bad_request("PATCH requests with apply patch type require a fieldManager")
                if self.find(res, namespace, name) is None and not subresource:
                    return self._apply_create(
                        res,
                        namespace,
                        name,
                        patch,
                        dry_run,
                        field_validation,
                        warnings,
                        field_manager,
                    )
            old = self.get(res, namespace, name)
            new = self.patcher.patched(res, old, patch_type, patch, dry_run, field_manager)
            if not isinstance(new, dict):
                raise bad_request("patched object is not an object")
            new.setdefault("metadata", {})
            if new["metadata"].get("resourceVersion") is None:
                new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
            return self.update(
                res,
                namespace,
                name,
                new,
                subresource=subresource,
                dry_run=dry_run,
                field_validation=field_validation,
                warnings=warnings,
            )

    def _apply_create(
        self,
        res: Resource,
        namespace: str,
        name: str,
        patch: Any,
        dry_run: bool,
        field_validation: str,
        warnings: list[str] | None,
        field_manager: str,
    ) -> Obj:
        """Server-side apply of an object that does not exist yet creates it."""
        body = copy.deepcopy(patch)
        body.setdefault("metadata", {})["name"] = name
        created = self.create(
            res,
            namespace,
            body,
            dry_run=dry_run,
            field_validation=field_validation,
            warnings=warnings,
        )
        if not dry_run:
            self.patcher.applied[(created["metadata"]["uid"], field_manager)] = copy.deepcopy(patch)
        return created

    # -- delete -------------------------------------------------------------------------------

    def _write(self, res: Resource, old: Obj, new: Obj) -> Obj:
        new["metadata"]["resourceVersion"] = str(self.store.next_rv())
        self.store.put(res.key, new, "MODIFIED")
        self._after_write(res, old, new)
        return new

    def _remove(self, res: Resource, final: Obj) -> Obj:
        final = copy.deepcopy(final)
        final["metadata"]["resourceVersion"] = str(self.store.next_rv())
        self.store.remove(res.key, final)
        self.addresses.release(res, final)
        self.removed_uids.append(final["metadata"]["uid"])
        if res.kind == "CustomResourceDefinition":
            self.crds.unregister(final, self._remove)
        if res.kind == "Pod":
            self.runtime.pop(final["metadata"]["uid"], None)
        return final

    def remove_now(self, res: Resource, obj: Obj) -> None:
        self._remove(res, obj)

    # -- side effects -------------------------------------------------------------------------

    def emit_event(
        self,
        obj: Obj,
        type_: str,
        reason: str,
        message: str,
        component: str,
        related: Obj | None = None,
    ) -> None:
        """Record a core/v1 Event about `obj` (see EventRecorder)."""
        self.events.emit(obj, type_, reason, message, component, related)

    def _create_internal(self, res: Resource, namespace: str, obj: Obj) -> Obj:
        return self.create(res, namespace, obj, internal=True)

    def _after_write(self, res: Resource, old: Obj | None, new: Obj) -> None:
        if res.kind == "CustomResourceDefinition":
            self.crds.register(new)
