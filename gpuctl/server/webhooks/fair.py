"""The deliveries waiting for a worker, handed out fairly between owners and subscriptions.

- Each owner has at most `per_owner` deliveries in progress, each subscription at most
  `per_subscription` (one: a subscription's messages go one after the other). With fewer
  per owner than there are workers, an owner whose receivers are slow (or never answer within
  the timeout) holds some of the workers, never all: the others keep delivering to everyone
  else.
- Among the owners that may take one more, the one served longest ago goes first, and within
  an owner the subscription served longest ago (round robin): one owner's thousand queued
  messages wait behind another owner's one, not in front of it.
- Within a subscription, messages go in the order given (the outbox's: due first).

There is no round: a worker that finishes takes the next delivery at once (`take`), while the
others are still busy. `offer` replaces what waits (the outbox as listed now); a delivery in
progress is never handed out twice, and one that was just attempted is not handed out again
from a listing read before its attempt was written (`attempts` tells them apart).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")


@dataclass(frozen=True)
class Entry(Generic[Item]):
    owner: str
    subscription: str
    name: str  # the message's: one delivery of it at a time
    attempts: int  # attempts made before this one, as listed
    item: Item


class FairQueue(Generic[Item]):
    def __init__(self, per_owner: int, per_subscription: int = 1) -> None:
        self.per_owner = per_owner
        self.per_subscription = per_subscription
        self._lock = threading.Condition()
        self._waiting: list[Entry[Item]] = []
        self._busy: dict[str, Entry[Item]] = {}  # message name -> in progress
        self._attempted: dict[str, int] = {}  # message name -> attempts made, as far as known
        self._served: dict[tuple[str, str], int] = {}  # (what, which) -> when last served
        self._clock = itertools.count()
        self._closed = False

    def offer(self, entries: Iterable[Entry[Item]]) -> None:
        """What waits from now on: `entries`, less those in progress or already attempted."""
        with self._lock:
            listed = list(entries)
            names = {entry.name for entry in listed}
            self._attempted = {k: v for k, v in self._attempted.items() if k in names}
            self._waiting = [
                entry
                for entry in listed
                if entry.name not in self._busy
                and entry.attempts >= self._attempted.get(entry.name, 0)
            ]
            self._lock.notify_all()

    def take(self, wait: bool = True) -> Entry[Item] | None:
        """The next delivery this worker makes (marked in progress); None once closed, or,
        with `wait` False, when none may go now."""
        with self._lock:
            while not self._closed:
                entry = self._next()
                if entry is not None:
                    self._waiting.remove(entry)
                    self._busy[entry.name] = entry
                    stamp = next(self._clock)
                    self._served["owner", entry.owner] = stamp
                    self._served["subscription", entry.subscription] = stamp
                    return entry
                if not wait:
                    return None
                self._lock.wait()
            return None

    def done(self, entry: Entry[Item], *, written: bool = True) -> None:
        """The delivery is over; `written` False when its outcome may not have been written
        (then a listing that still shows it as it was hands it out again)."""
        with self._lock:
            self._busy.pop(entry.name, None)
            if written:
                self._attempted[entry.name] = entry.attempts + 1
            self._lock.notify_all()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._waiting = []
            self._lock.notify_all()

    def busy(self) -> int:
        with self._lock:
            return len(self._busy)

    def _next(self) -> Entry[Item] | None:
        owners: dict[str, int] = {}
        subscriptions: dict[str, int] = {}
        for entry in self._busy.values():
            owners[entry.owner] = owners.get(entry.owner, 0) + 1
            subscriptions[entry.subscription] = subscriptions.get(entry.subscription, 0) + 1
        ready = [
            entry
            for entry in self._waiting
            if owners.get(entry.owner, 0) < self.per_owner
            and subscriptions.get(entry.subscription, 0) < self.per_subscription
        ]
        if not ready:
            return None
        # the first of the owner served longest ago, then of its subscription served longest
        # ago; min keeps the first of equals, so the given order within a subscription holds
        return min(
            ready,
            key=lambda e: (
                self._served.get(("owner", e.owner), -1),
                self._served.get(("subscription", e.subscription), -1),
            ),
        )
