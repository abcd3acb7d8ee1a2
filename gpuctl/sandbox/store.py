"""The in-memory object store: one index per (resource, namespace), a resourceVersion counter,
and a bounded history of changes for watches.

Stored objects are never mutated in place: writers store a fresh dict, so readers (and watch
events) can hold on to what they got without copying.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

Key = tuple[str, str]  # (group, plural)
Obj = dict[str, Any]


@dataclass(frozen=True)
class Event:
    rv: int
    key: Key
    namespace: str
    type: str  # ADDED | MODIFIED | DELETED
    obj: Obj
    prev: Obj | None = None  # the object before a MODIFIED or DELETED


class Store:
    def __init__(self, history: int = 10000) -> None:
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.rv = 0
        self._objects: dict[Key, dict[str, dict[str, Obj]]] = {}
        self._events: list[Event] = []
        self._history = history
        # rv of the oldest event still kept; watches from before it get 410 Gone
        self.oldest_rv = 1
        self._dependents: dict[str, set[tuple[Key, str, str]]] = {}  # owner uid → children
        self.terminating: set[tuple[Key, str, str]] = set()
        self.generation = 0  # bumped on every write; the controller loop watches it

    def get(self, key: Key, namespace: str, name: str) -> Obj | None:
        return self._objects.get(key, {}).get(namespace, {}).get(name)

    def objects(self, key: Key, namespace: str | None) -> list[Obj]:
        by_ns = self._objects.get(key, {})
        if namespace is not None:
            return list(by_ns.get(namespace, {}).values())
        return [o for objs in by_ns.values() for o in objs.values()]

    def count(self, key: Key, namespace: str | None) -> int:
        by_ns = self._objects.get(key, {})
        if namespace is not None:
            return len(by_ns.get(namespace, {}))
        return sum(len(objs) for objs in by_ns.values())

    def dependents(self, uid: str) -> list[tuple[Key, str, str]]:
        return sorted(self._dependents.get(uid, ()))

    def next_rv(self) -> int:
        self.rv += 1
        return self.rv

    def put(self, key: Key, obj: Obj, event_type: str) -> Obj:
        """Store `obj` (its resourceVersion already set by the caller) and record the event."""
        meta = obj["metadata"]
        namespace, name = meta.get("namespace", ""), meta["name"]
        old = self.get(key, namespace, name)
        if old is not None:
            self._unindex(key, old)
        self._objects.setdefault(key, {}).setdefault(namespace, {})[name] = obj
        self._index(key, obj)
        self._record(Event(int(meta["resourceVersion"]), key, namespace, event_type, obj, old))
        return obj

    def remove(self, key: Key, obj: Obj) -> None:
        """Delete `obj` (its final state, with a fresh resourceVersion) and record the event."""
        meta = obj["metadata"]
        namespace, name = meta.get("namespace", ""), meta["name"]
        old = self._objects.get(key, {}).get(namespace, {}).pop(name, None)
        if old is not None:
            self._unindex(key, old)
        self._record(Event(int(meta["resourceVersion"]), key, namespace, "DELETED", obj, old))

    def _index(self, key: Key, obj: Obj) -> None:
        meta = obj["metadata"]
        ident = (key, meta.get("namespace", ""), meta["name"])
        for ref in meta.get("ownerReferences") or ():
            self._dependents.setdefault(ref["uid"], set()).add(ident)
        if meta.get("deletionTimestamp"):
            self.terminating.add(ident)

    def _unindex(self, key: Key, obj: Obj) -> None:
        meta = obj["metadata"]
        ident = (key, meta.get("namespace", ""), meta["name"])
        for ref in meta.get("ownerReferences") or ():
            deps = self._dependents.get(ref["uid"])
            if deps is not None:
                deps.discard(ident)
                if not deps:
                    del self._dependents[ref["uid"]]
        self.terminating.discard(ident)

    def _record(self, event: Event) -> None:
        self._events.append(event)
        if len(self._events) > 2 * self._history:
            drop = len(self._events) - self._history
            self.oldest_rv = self._events[drop].rv
            del self._events[:drop]
        self.generation += 1
        self.changed.notify_all()

    def events_after(self, rv: int) -> list[Event]:
        """Events with a resourceVersion above `rv` (caller holds the lock)."""
        events = self._events
        lo, hi = 0, len(events)
        while lo < hi:  # binary search: resourceVersions only grow
            mid = (lo + hi) // 2
            if events[mid].rv <= rv:
                lo = mid + 1
            else:
                hi = mid
        return events[lo:]

    def objects_at(self, key: Key, namespace: str | None, rv: int) -> list[Obj]:
        """The objects of `key` as they were at resourceVersion `rv` (the current ones with the
        later changes undone); the caller holds the lock and has checked `expired(rv)`."""
        current = {
            (o["metadata"].get("namespace", ""), o["metadata"]["name"]): o
            for o in self.objects(key, namespace)
        }
        for event in reversed(self.events_after(rv)):
            if event.key != key or (namespace is not None and event.namespace != namespace):
                continue
            ident = (event.namespace, event.obj["metadata"]["name"])
            if event.type == "ADDED":
                current.pop(ident, None)
            elif event.prev is not None:
                current[ident] = event.prev
        return list(current.values())

    def wait_for_rv(self, rv: int, timeout: float) -> bool:
        """Wait (the caller holds the lock) until the store has reached resourceVersion `rv`;
        False when it has not within `timeout` seconds."""
        return self.changed.wait_for(lambda: self.rv >= rv, timeout)

    def expired(self, rv: int) -> bool:
        """Whether changes after `rv` are no longer all in the history."""
        return rv + 1 < self.oldest_rv
