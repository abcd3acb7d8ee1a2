"""An in-process cluster for fast unit tests of the verbs, the inventory and the controller: a
dict of objects behind the core protocol, status writes (changing `status` only, as through
a status subresource) and log streams (every pod's log empty). Writes take effect at once (a
deletion is immediate, no controller runs); optimistic concurrency, AlreadyExists and NotFound
behave as on a real API server, and every call is recorded in `calls` as (verb, kind, name)."""

from __future__ import annotations

import builtins
import copy
import itertools
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from gpuctl.cluster.errors import AlreadyExists, Conflict, NotFound
from gpuctl.cluster.resources import RESOURCES, resource
from gpuctl.times import rfc3339

if TYPE_CHECKING:
    from gpuctl.cluster.client import LogEnds

Key = tuple[str, str, str]  # kind, namespace ("" when cluster-scoped), name
WRITES = ("create", "replace", "patch", "patch-status", "delete")  # recorded calls that write


def _matches(labels: dict[str, str], selector: str | None) -> bool:
    """Equality-based label selectors (`a=b,c=d`, `a!=b`, `a`): what gpuctl sends."""
    for term in filter(None, (selector or "").split(",")):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.split("=", 1)
            if labels.get(key) != value.lstrip("="):
                return False
        elif term not in labels:
            return False
    return True


class FakeCluster:
    def __init__(self, namespace: str = "default") -> None:
        self.namespace = namespace
        self.objects: dict[Key, dict[str, Any]] = {}
        # group -> the versions served; a group not here is served at its table version
        self.served: dict[str, tuple[str, ...]] = {}
        self.calls: list[tuple[str, str, str]] = []
        self._versions = itertools.count(1)

    def _key(self, kind: str, name: str, namespace: str | None) -> Key:
        return kind, (namespace or "") if resource(kind).namespaced else "", name

    def _stamp(self, obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj["metadata"]
        meta["resourceVersion"] = str(next(self._versions))
        meta.setdefault("uid", f"uid-{meta['resourceVersion']}")
        meta.setdefault("creationTimestamp", rfc3339(time.time()))
        return copy.deepcopy(obj)

    def add(self, *objects: dict[str, Any]) -> None:
        """Put objects in place as if someone else had created them (no call recorded)."""
        for obj in objects:
            meta = obj["metadata"]
            key = self._key(obj["kind"], meta["name"], meta.get("namespace"))
            self.objects[key] = self._stamp(copy.deepcopy(obj))

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        found = self.find(kind, name, namespace)
        if found is None:
            raise NotFound(f"{kind} {name} not found", status=404)
        return found

    def find(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        self.calls.append(("get", kind, name))
        obj = self.objects.get(self._key(kind, name, namespace))
        return copy.deepcopy(obj) if obj is not None else None

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[dict[str, Any]]:
        self.calls.append(("list", kind, ""))
        return [
            copy.deepcopy(obj)
            for (k, ns, _), obj in sorted(self.objects.items())
            if k == kind
            and (namespace is None or ns == namespace or not resource(kind).namespaced)
            and _matches(obj["metadata"].get("labels") or {}, label_selector)
        ]

    def served_versions(self, group: str) -> tuple[str, ...]:
        if group in self.served:
            return self.served[group]
        return tuple(sorted({r.version for r in RESOURCES.values() if r.group == group}))

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        meta = obj["metadata"]
        key = self._key(obj["kind"], meta["name"], meta.get("namespace"))
        self.calls.append(("create" + ("-dry-run" if dry_run else ""), obj["kind"], meta["name"]))
        if key in self.objects:
            raise AlreadyExists(f"{obj['kind']} {meta['name']} already exists", status=409)
        stored = copy.deepcopy(obj)
        stored["metadata"].pop("resourceVersion", None)
        if dry_run:
            return stored
        self.objects[key] = self._stamp(stored)
        return copy.deepcopy(self.objects[key])

    def replace(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        meta = obj["metadata"]
        key = self._key(obj["kind"], meta["name"], meta.get("namespace"))
        self.calls.append(("replace" + ("-dry-run" if dry_run else ""), obj["kind"], meta["name"]))
        current = self.objects.get(key)
        if current is None:
            raise NotFound(f"{obj['kind']} {meta['name']} not found", status=404)
        if meta.get("resourceVersion") != current["metadata"]["resourceVersion"]:
            raise Conflict("the object has been modified", status=409)
        if dry_run:
            return copy.deepcopy(obj)
        stored = copy.deepcopy(obj)
        stored["metadata"]["uid"] = current["metadata"]["uid"]
        self.objects[key] = self._stamp(stored)
        return copy.deepcopy(self.objects[key])

    def patch(
        self,
        kind: str,
        name: str,
        namespace: str | None,
        patch: Any,
        *,
        patch_type: str = "merge",
    ) -> dict[str, Any]:
        self.calls.append(("patch", kind, name))
        key = self._key(kind, name, namespace)
        if key not in self.objects:
            raise NotFound(f"{kind} {name} not found", status=404)
        self.objects[key] = self._stamp(_merge(self.objects[key], patch))
        return copy.deepcopy(self.objects[key])

    def patch_status(
        self, kind: str, name: str, namespace: str | None, status: Mapping[str, Any]
    ) -> dict[str, Any]:
        self.calls.append(("patch-status", kind, name))
        key = self._key(kind, name, namespace)
        if key not in self.objects:
            raise NotFound(f"{kind} {name} not found", status=404)
        self.objects[key] = self._stamp(_merge(self.objects[key], {"status": dict(status)}))
        return copy.deepcopy(self.objects[key])

    def delete(
        self,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Foreground",
        grace_period: int | None = None,
        dry_run: bool = False,
    ) -> None:
        self.calls.append(("delete", kind, name))
        key = self._key(kind, name, namespace)
        if key not in self.objects:
            raise NotFound(f"{kind} {name} not found", status=404)
        if not dry_run:
            del self.objects[key]

    def watch(
        self,
        kind: str,
        namespace: str | None,
        *,
        resource_version: str,
        field_selector: str | None = None,
        label_selector: str | None = None,
        timeout_seconds: int = 30,
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        return iter(())  # deletions are immediate: nothing is ever waited for

    def logs(
        self,
        pod: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        since_seconds: int | None = None,
        follow: bool = False,
        previous: bool = False,
        ends: LogEnds | None = None,
        limit_bytes: int | None = None,
        timestamps: bool = False,
    ) -> Iterator[str]:
        return iter(())

    def writes(self) -> builtins.list[tuple[str, str, str]]:
        """The calls that changed something (dry runs excluded)."""
        return [call for call in self.calls if call[0] in WRITES]


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 merge patch: null removes a key."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = _merge(result.get(key), value)
    return result
