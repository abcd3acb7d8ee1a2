"""Watches: what one watch selects and how it writes its lines, where it starts (the objects
listed first, or a version), and the stream of changes until its deadline or its client leaves.
Lists at a version the store has not reached wait here too."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuctl.sandbox import tables
from gpuctl.sandbox.errors import ApiError, bad_request, too_large_resource_version
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.selectors import matches_labels
from gpuctl.sandbox.store import Obj, Store

TOO_LARGE_WAIT_SECONDS = 3.0  # how long a list at a future resourceVersion waits (the real: 3 s)
SHORTEST_BOOKMARKED_WATCH = 8.0  # seconds: a watch this short or shorter gets no bookmark


@dataclass
class WatchSelection:
    """What one watch shows: its resource, namespace and selectors, and how it writes a line."""

    res: Resource
    namespace: str | None
    labels: Any
    fields: Any
    table_include: str | None  # None: objects as they are; else Tables with this includeObject

    def matches(self, obj: dict[str, Any]) -> bool:
        meta = obj["metadata"]
        namespaced = self.namespace is not None and self.res.namespaced
        if namespaced and meta.get("namespace") != self.namespace:
            return False
        return matches_labels(self.labels, meta.get("labels")) and all(
            f.matches(obj) for f in self.fields
        )

    def line(self, kind: str, obj: dict[str, Any]) -> bytes:
        if self.table_include is not None and kind not in ("BOOKMARK", "ERROR"):
            rv = int(obj["metadata"]["resourceVersion"])
            obj = tables.table(self.res, [obj], rv, self.table_include)
        return json.dumps({"type": kind, "object": obj}, separators=(",", ":")).encode() + b"\n"

    def lines_for(self, kind: str, obj: dict[str, Any], prev: dict[str, Any] | None) -> list[bytes]:
        now_in = self.matches(obj)
        if kind == "MODIFIED" and prev is not None and (self.labels or self.fields):
            # leaving or entering the selection reads as deleted or added, as the real watch
            # cache reports it
            was_in = self.matches(prev)
            if was_in != now_in:
                return [self.line("ADDED" if now_in else "DELETED", obj)]
        return [self.line(kind, obj)] if now_in else []

    def bookmark(self, cursor: int, initial_events_end: bool = False) -> bytes:
        meta: dict[str, Any] = {"resourceVersion": str(cursor)}
        if initial_events_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return self.line(
            "BOOKMARK",
            {"kind": self.res.kind, "apiVersion": self.res.api_version, "metadata": meta},
        )


def wait_for_version(store: Store, query: dict[str, str]) -> None:
    """A list at a resourceVersion the store has not reached (NotOlderThan, the meaning of
    a non-zero one without resourceVersionMatch) waits for it a while, then is refused
    with 504 ResourceVersionTooLarge, as the real server's watch cache does: a client
    that remembers another cluster's version learns it at once."""
    text = query.get("resourceVersion", "")
    if text in ("", "0") or query.get("continue") or query.get("resourceVersionMatch") == "Exact":
        return
    try:
        asked = int(text)
    except ValueError:
        raise bad_request(f"invalid resource version: {text}") from None
    with store.lock:
        if not store.wait_for_rv(asked, TOO_LARGE_WAIT_SECONDS):
            raise too_large_resource_version(asked, store.rv)


@dataclass
class Watch:
    """One watch request, from where it starts to its deadline."""

    selection: WatchSelection
    cursor: int
    initial: list[Obj]  # listed first (ADDED), oldest first
    expired_before: int | None  # the store's oldest version, when `cursor` is older than it
    deadline: float  # time.monotonic()
    bookmarks: bool  # periodic BOOKMARKs
    initial_events_end: bool  # a BOOKMARK after the initial objects (sendInitialEvents)

    @classmethod
    def start(cls, store: Store, selection: WatchSelection, query: dict[str, str]) -> Watch:
        """Where the watch starts: now (listing the selected objects first) or a version."""
        rv_text = query.get("resourceVersion", "")
        lasts = float(query.get("timeoutSeconds") or 1800)
        # bookmarks are not promised: the API server often sends none to a short watch of a
        # set in which nothing changes (as short as 5 s), so neither does the sandbox
        asked = query.get("allowWatchBookmarks") in ("true", "1")
        send_initial = query.get("sendInitialEvents") == "true"
        res = selection.res
        with store.lock:
            initial: list[Obj] = []
            if rv_text in ("", "0") or send_initial:
                initial = [
                    o
                    for o in store.objects(res.key, selection.namespace if res.namespaced else None)
                    if selection.matches(o)
                ]
                cursor = store.rv
            else:
                try:
                    cursor = int(rv_text)
                except ValueError:
                    raise bad_request(f"invalid resource version: {rv_text}") from None
            expired = store.oldest_rv if store.expired(cursor) else None
        initial.sort(key=lambda o: int(o["metadata"]["resourceVersion"]))
        return cls(
            selection,
            cursor,
            initial,
            expired,
            time.monotonic() + lasts,
            asked and lasts > SHORTEST_BOOKMARKED_WATCH,
            send_initial and asked,
        )

    def run(
        self,
        store: Store,
        stopping: threading.Event,
        bookmark_seconds: float,
        send: Callable[[bytes], None],
        client_gone: Callable[[], bool],
    ) -> None:
        """Send the watch's lines: a 410 when it starts too far back, else the initial
        objects, then the changes until the deadline, the client leaves or the server stops."""
        selection = self.selection
        if self.expired_before is not None:
            message = f"too old resource version: {self.cursor} ({self.expired_before - 1})"
            status = ApiError(410, "Expired", message).status()
            send(selection.line("ERROR", status))
            return
        for obj in self.initial:
            send(selection.line("ADDED", obj))
        if self.initial_events_end:
            send(selection.bookmark(self.cursor, initial_events_end=True))
        self._changes(store, stopping, bookmark_seconds, send, client_gone)

    def _changes(
        self,
        store: Store,
        stopping: threading.Event,
        bookmark_seconds: float,
        send: Callable[[bytes], None],
        client_gone: Callable[[], bool],
    ) -> None:
        """Stream the selected changes after the cursor until the deadline or the client leaves."""
        selection, cursor, deadline = self.selection, self.cursor, self.deadline
        last_bookmark = time.monotonic()
        while not stopping.is_set():
            now = time.monotonic()
            if now >= deadline or client_gone():
                break
            with store.lock:
                events = store.events_after(cursor)
                if not events:
                    store.changed.wait(min(deadline - now, 0.25))
                    events = store.events_after(cursor)
            out = []
            for ev in events:
                cursor = ev.rv
                if ev.key == selection.res.key:
                    out.extend(selection.lines_for(ev.type, ev.obj, ev.prev))
            if out:
                send(b"".join(out))
            # a bookmark never names a version below the one asked for: a watch from a version
            # the store has not reached (another cluster's) hears nothing, as on the real server
            due = time.monotonic() - last_bookmark >= bookmark_seconds
            if self.bookmarks and due and store.rv >= cursor:
                last_bookmark = time.monotonic()
                send(selection.bookmark(cursor))
