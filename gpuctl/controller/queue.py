"""The controller's work queue, the way client-go's workqueue keeps one: keys (namespace, name)
to reconcile, each waiting at most once and handled by one worker at a time; a key added while
a worker has it is handled again once that worker is done (with the object as it is then). A
key can also be added after a delay (a retry that is due later): one pending delay per key,
the last asked for; adding the key at once cancels it.

With an `order`, the ready key that orders first is handed out first (the controller's:
priority, then age), ties in the order added; without one, the order added.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

Key = tuple[str, str]  # (namespace, name)
Order = Callable[[Key], Any]  # a key's rank: smaller goes first (compared with <)


class WorkQueue:
    def __init__(
        self, clock: Callable[[], float] = time.monotonic, order: Order | None = None
    ) -> None:
        self.clock = clock
        self.order = order
        self._lock = threading.Condition()
        self._ready: deque[Key] = deque()  # in the order added
        self._waiting: set[Key] = set()  # in _ready, or to be put back there when done
        self._busy: set[Key] = set()  # a worker has it
        self._due: dict[Key, float] = {}  # key -> when its delay ends (self.clock)
        self._closed = False

    def add(self, key: Key) -> None:
        """Handle `key` as soon as a worker is free (and no other worker has it)."""
        with self._lock:
            self._due.pop(key, None)
            self._add(key)

    def _add(self, key: Key) -> None:
        if self._closed or key in self._waiting:
            return
        self._waiting.add(key)
        if key not in self._busy:
            self._ready.append(key)
            self._lock.notify()

    def add_after(self, key: Key, seconds: float) -> None:
        """Handle `key` in `seconds` (replacing a delay asked for before)."""
        with self._lock:
            self._due[key] = self.clock() + max(0.0, seconds)
            self._lock.notify_all()  # a worker may wait for an earlier end

    def forget(self, key: Key) -> None:
        """Drop the key's pending delay (its object is gone)."""
        with self._lock:
            self._due.pop(key, None)

    def get(self) -> Key | None:
        """The next key to handle (the caller must call `done` with it), waiting until there
        is one; None once the queue is shut down."""
        with self._lock:
            while not self._closed:
                wait = self._move_due()
                if self._ready:
                    key = self._next()
                    self._waiting.discard(key)
                    self._busy.add(key)
                    return key
                self._lock.wait(wait)
            return None

    def _next(self) -> Key:
        """Take the ready key to hand out: the first by `order`, else the oldest added."""
        if self.order is None or len(self._ready) == 1:
            return self._ready.popleft()
        ranks = [(self.order(key), index) for index, key in enumerate(self._ready)]
        _, index = min(ranks)
        key = self._ready[index]
        del self._ready[index]
        return key

    def _move_due(self) -> float | None:
        """Add the keys whose delay has ended; seconds until the next one ends (None: none)."""
        now = self.clock()
        for key, due in list(self._due.items()):
            if due <= now:
                del self._due[key]
                self._add(key)
        return min(self._due.values()) - now if self._due else None

    def done(self, key: Key) -> None:
        with self._lock:
            self._busy.discard(key)
            if key in self._waiting:
                self._ready.append(key)
                self._lock.notify()

    def shut_down(self) -> None:
        """Every `get` returns None; keys not handled yet are dropped."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def __len__(self) -> int:
        """Keys waiting now (not those delayed)."""
        with self._lock:
            return len(self._waiting)
