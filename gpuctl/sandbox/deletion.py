"""Deletion as the real server does it: preconditions, propagation (orphan, background,
foreground), finalizers, a namespace that goes Terminating, and a running pod's grace period,
which the simulated kubelet ends."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.errors import ApiError, Cause, invalid
from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.sandbox.store import Obj, Store
from gpuctl.sandbox.timestamps import now_rfc3339

Get = Callable[[Resource, str, str], Obj]
Write = Callable[[Resource, Obj, Obj], Obj]  # (resource, stored, new) → the new as written
Remove = Callable[[Resource, Obj], Obj]  # (resource, final) → the final as removed


class Deletion:
    def __init__(
        self,
        config: SandboxConfig,
        registry: Registry,
        store: Store,
        runtime: dict[str, PodRuntime],
        get: Get,
        write: Write,
        remove: Remove,
    ) -> None:
        self.config = config
        self.registry = registry
        self.store = store
        self.runtime = runtime  # pod uid → simulated kubelet state, shared with the Api
        self._get = get
        self._write = write
        self._remove = remove

    def delete(
        self,
        res: Resource,
        namespace: str,
        name: str,
        *,
        propagation: str | None = None,
        grace: int | None = None,
        dry_run: bool = False,
        preconditions: dict[str, Any] | None = None,
        warnings: list[str] | None = None,
    ) -> Obj:
        with self.store.lock:
            obj = self._get(res, namespace, name)
            meta = obj["metadata"]
            _check_preconditions(res, name, meta, preconditions or {})
            propagation = _propagation(res, name, propagation, warnings)
            if dry_run:
                return obj
            new = copy.deepcopy(obj)
            nmeta = new["metadata"]
            finalizers = list(nmeta.get("finalizers") or [])
            if (
                propagation == "Foreground"
                and "foregroundDeletion" not in finalizers
                and (self.store.dependents(meta["uid"]) or res.kind != "Pod")
            ):
                finalizers.append("foregroundDeletion")
            if propagation == "Orphan":
                self._orphan(meta["uid"])
            now = time.time()
            if res.kind == "Namespace":
                if meta.get("deletionTimestamp"):
                    return obj
                nmeta["deletionTimestamp"] = now_rfc3339(now)
                nmeta["deletionGracePeriodSeconds"] = 0
                new["status"] = {"phase": "Terminating"}
                return self._write(res, obj, new)
            if res.kind == "Pod":
                graceful = self._delete_running_pod(res, obj, new, finalizers, grace, now)
                if graceful is not None:
                    return graceful
            if finalizers:
                if meta.get("deletionTimestamp") and finalizers == list(
                    meta.get("finalizers") or []
                ):
                    return obj
                nmeta["finalizers"] = finalizers
                nmeta.setdefault("deletionTimestamp", now_rfc3339(now))
                nmeta.setdefault("deletionGracePeriodSeconds", 0)
                return self._write(res, obj, new)
            return self._remove(res, new)

    def _delete_running_pod(
        self,
        res: Resource,
        old: Obj,
        new: Obj,
        finalizers: list[str],
        grace: int | None,
        now: float,
    ) -> Obj | None:
        """A pod on a node with a grace period is marked for deletion and removed later by the
        kubelet; None when the pod can go at once."""
        meta, nmeta = old["metadata"], new["metadata"]
        spec_grace = int((old.get("spec") or {}).get("terminationGracePeriodSeconds", 30))
        grace_s = spec_grace if grace is None else grace
        phase = (old.get("status") or {}).get("phase")
        runtime = self.runtime.setdefault(meta["uid"], PodRuntime())
        running = bool((old.get("spec") or {}).get("nodeName")) and phase not in (
            "Succeeded",
            "Failed",
        )
        if running and grace_s > 0:
            deadline = now + min(grace_s, self.config.pod_termination_seconds)
            if runtime.terminate_at is None or deadline < runtime.terminate_at:
                runtime.terminate_at = deadline
            if meta.get("deletionTimestamp") and finalizers == list(meta.get("finalizers") or []):
                return old
            nmeta["deletionTimestamp"] = now_rfc3339(now + grace_s)
            nmeta["deletionGracePeriodSeconds"] = grace_s
            if finalizers:
                nmeta["finalizers"] = finalizers
            return self._write(res, old, new)
        return None

    def pod_still_terminating(self, pod: Obj) -> bool:
        runtime = self.runtime.get(pod["metadata"]["uid"])
        return (
            runtime is not None
            and runtime.terminate_at is not None
            and time.time() < runtime.terminate_at
        )

    def _orphan(self, uid: str) -> None:
        for key, ns, name in self.store.dependents(uid):
            child = self.store.get(key, ns, name)
            if child is None:
                continue
            new = copy.deepcopy(child)
            refs = [r for r in new["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
            if refs:
                new["metadata"]["ownerReferences"] = refs
            else:
                new["metadata"].pop("ownerReferences", None)
            self._write(self._res_for_key(key), child, new)

    def _res_for_key(self, key: tuple[str, str]) -> Resource:
        return self.registry.get(*key)

    def remove_finalizer(self, res: Resource, obj: Obj, finalizer: str) -> None:
        new = copy.deepcopy(obj)
        new["metadata"]["finalizers"] = [
            f for f in obj["metadata"].get("finalizers") or [] if f != finalizer
        ]
        if not new["metadata"]["finalizers"]:
            del new["metadata"]["finalizers"]
            self._remove(res, new)
        else:
            self._write(res, obj, new)


def _check_preconditions(res: Resource, name: str, meta: Obj, pre: dict[str, Any]) -> None:
    """A delete's preconditions (uid, resourceVersion) must match the stored object."""
    if pre.get("uid") and pre["uid"] != meta["uid"]:
        raise ApiError(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on {res.group_resource} "{name}": Precondition '
            f"failed: UID in precondition: {pre['uid']}, UID in object meta: {meta['uid']}",
            {"name": name, "group": res.group, "kind": res.plural},
        )
    if pre.get("resourceVersion") and pre["resourceVersion"] != meta["resourceVersion"]:
        raise ApiError(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on {res.group_resource} "{name}": Precondition '
            f"failed: ResourceVersion in precondition: {pre['resourceVersion']}, "
            f"ResourceVersion in object meta: {meta['resourceVersion']}",
            {"name": name, "group": res.group, "kind": res.plural},
        )


def _propagation(
    res: Resource, name: str, propagation: str | None, warnings: list[str] | None
) -> str:
    """The propagation policy asked for, or the kind's default (Orphan for Jobs, with the
    server's warning; Background otherwise)."""
    if propagation is None:
        propagation = "Orphan" if res.key == ("batch", "jobs") else "Background"
        if res.key == ("batch", "jobs") and warnings is not None:
            warnings.append(
                "child pods are preserved by default when jobs are deleted; set "
                "propagationPolicy=Background to remove them or set "
                "propagationPolicy=Orphan to suppress this warning"
            )
    if propagation not in ("Orphan", "Background", "Foreground"):
        raise invalid(
            res,
            name,
            [
                Cause(
                    "propagationPolicy",
                    "Unsupported value",
                    'supported values: "Foreground", "Background", "Orphan", "nil"',
                    propagation,
                )
            ],
        )
    return propagation
