"""core/v1 Events, recorded as the real event recorder does: a repeat of the same reason and
message about the same object bumps the count of the first event."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable

from gpuctl.sandbox.errors import ApiError
from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.store import Obj, Store
from gpuctl.sandbox.timestamps import now_rfc3339


class EventRecorder:
    """Events about objects; `create` and `write` are the API's own (an event is an object)."""

    def __init__(
        self,
        registry: Registry,
        store: Store,
        create: Callable[[Resource, str, Obj], Obj],
        write: Callable[[Resource, Obj, Obj], Obj],
    ) -> None:
        self.registry = registry
        self.store = store
        self._create = create
        self._write = write
        self._index: dict[tuple[str, str, str], str] = {}

    def emit(
        self,
        obj: Obj,
        type_: str,
        reason: str,
        message: str,
        component: str,
        related: Obj | None = None,
    ) -> None:
        """Record a core/v1 Event about `obj` (and `related`, the other object it concerns);
        repeats bump the count, as the real recorder does."""
        meta = obj["metadata"]
        namespace = meta.get("namespace") or "default"
        events = self.registry.get("", "events")
        key = (meta.get("uid", ""), reason, message)
        ts = now_rfc3339()
        with self.store.lock:
            existing_name = self._index.get(key)
            existing = (
                self.store.get(events.key, namespace, existing_name) if existing_name else None
            )
            if existing is not None:
                new = copy.deepcopy(existing)
                new["count"] = int(existing.get("count", 1)) + 1
                new["lastTimestamp"] = ts
                self._write(events, existing, new)
                return
            name = f"{meta['name']}.{uuid.uuid4().hex[:16]}"
            event: Obj = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": name, "namespace": namespace},
                "involvedObject": {
                    "kind": obj.get("kind"),
                    "namespace": meta.get("namespace"),
                    "name": meta["name"],
                    "uid": meta.get("uid"),
                    "apiVersion": obj.get("apiVersion"),
                    "resourceVersion": meta.get("resourceVersion"),
                },
                "reason": reason,
                "message": message,
                "source": {"component": component},
                "firstTimestamp": ts,
                "lastTimestamp": ts,
                "count": 1,
                "type": type_,
                "eventTime": None,
                "reportingComponent": component,
                "reportingInstance": "",
            }
            if not meta.get("namespace"):
                del event["involvedObject"]["namespace"]
            if related is not None:
                event["related"] = {
                    "apiVersion": related.get("apiVersion", "v1"),
                    "kind": related.get("kind", "Pod"),
                    "namespace": related["metadata"].get("namespace"),
                    "name": related["metadata"]["name"],
                    "uid": related["metadata"].get("uid"),
                    "resourceVersion": related["metadata"].get("resourceVersion"),
                }
            try:
                self._create(events, namespace, event)
            except ApiError:
                return
            self._index[key] = name
