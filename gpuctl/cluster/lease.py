"""A coordination.k8s.io/v1 Lease held by one candidate at a time: taken, renewed, given up.
The one primitive behind gpuctl's job locks, the controller's leader election and the webhook
deliverer's leader.

The clock rule is client-go's leaderelection (tools/leaderelection/leaderelection.go): an
observer judges expiry by its OWN monotonic clock, never by the times written in the Lease. It
remembers the Lease's record (holderIdentity, leaseDurationSeconds, acquireTime, renewTime,
leaseTransitions) and when it last saw that record change; the Lease is expired once the
record has gone unchanged for leaseDurationSeconds on the observer's clock. The stored
renewTime is written (for people and for other tools) but never compared with the observer's
wall clock: clocks of two machines may disagree by any amount, and a holder whose clock runs
an hour ahead or behind is judged the same as any other. The price: an observer that meets a
Lease for the first time waits one whole duration, even when its holder crashed long ago. A
Lease without a holder (given up) is free at once.

Every write is optimistic: a Lease is created (AlreadyExists: another candidate created it
first) or replaced at the resourceVersion just read (Conflict or NotFound: another candidate
wrote or deleted it first). A lost race changes nothing and is simply not winning.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuctl import shapes
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Conflict, NotFound
from gpuctl.times import micro_rfc3339

Record = tuple[str, int, str, str, int]  # holder, duration, acquired, renewed, transitions


def unique_identity(name: str | None = None) -> str:
    """A holder identity no other candidate has: `name` (a pod's name; the host's name when
    none), the process id and a random suffix, as client-go's `<hostname>_<uuid>`. Two
    processes on one host (or a pod restarted in place) are two candidates, never one holder
    twice."""
    return f"{name or socket.gethostname()}_{os.getpid()}_{secrets.token_hex(4)}"


def record_of(lease: Mapping[str, Any]) -> Record:
    """What an observer compares between two reads of a Lease."""
    spec = shapes.lease(lease).get("spec") or {}
    return (
        str(spec.get("holderIdentity") or ""),
        int(spec.get("leaseDurationSeconds") or 0),
        str(spec.get("acquireTime") or ""),
        str(spec.get("renewTime") or ""),
        int(spec.get("leaseTransitions") or 0),
    )


@dataclass(frozen=True)
class Observation:
    record: Record
    at: float  # the observer's monotonic clock when it first saw this record


class Lease:
    """One candidate's view of the Lease `namespace/name`."""

    def __init__(
        self,
        cluster: ClusterAPI,
        namespace: str,
        name: str,
        identity: str,
        duration_seconds: int,
        *,
        labels: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.cluster = cluster
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.duration_seconds = duration_seconds
        self.labels = dict(labels or {})
        self.clock = clock  # judges expiry
        self.wall = wall  # only stamps acquireTime and renewTime
        self.observed: Observation | None = None

    @property
    def holder(self) -> str:
        """The holder last observed ("" for none, or before the first read)."""
        return self.observed.record[0] if self.observed else ""

    def held(self) -> bool:
        """This candidate was the holder at its last read or write."""
        return self.holder == self.identity

    def expired(self) -> bool:
        """The observed record went unchanged for its duration on this observer's clock (True
        before anything was observed)."""
        if self.observed is None:
            return True
        duration = self.observed.record[1] or self.duration_seconds
        return self.clock() - self.observed.at > duration

    def _observe(self, lease: Mapping[str, Any]) -> None:
        record = record_of(lease)
        if self.observed is None or self.observed.record != record:
            self.observed = Observation(record, self.clock())

    def try_acquire_or_renew(self) -> bool:
        """Take the Lease when it is missing, has no holder or expired; renew it when it is
        this candidate's. True when this candidate holds it after the attempt, False when
        another holds it or won a race. Other cluster errors (NotFound of a namespace not
        there yet, Forbidden, Unreachable) are raised."""
        current = self.cluster.find("Lease", self.name, self.namespace)
        if current is None:
            try:
                written = self.cluster.create(self._object(None))
            except AlreadyExists:
                return False
            self._observe(written)
            return True
        self._observe(current)
        holder = self.holder
        if holder and holder != self.identity and not self.expired():
            return False
        try:
            written = self.cluster.replace(self._object(current))
        except (Conflict, NotFound):
            return False
        self._observe(written)
        return True

    def _object(self, current: Mapping[str, Any] | None) -> dict[str, Any]:
        now = micro_rfc3339(self.wall())
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.labels:
            metadata["labels"] = dict(self.labels)
        acquired, transitions = now, 0
        if current is not None:
            metadata = dict(current["metadata"])  # its resourceVersion: the write is optimistic
            holder, _, acquire_time, _, transitions = record_of(current)
            if holder == self.identity:
                acquired = acquire_time or now  # a renewal keeps the time it was taken
            else:
                transitions += 1
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": metadata,
            "spec": {
                "holderIdentity": self.identity,
                "leaseDurationSeconds": self.duration_seconds,
                "acquireTime": acquired,
                "renewTime": now,
                "leaseTransitions": transitions,
            },
        }

    def release(self, *, delete: bool = False) -> bool:
        """Give the Lease up when this candidate holds it, so no one need wait for it to
        expire: either delete it (a lock that ends with its run), or keep it without a holder
        and with a duration of 1 s, its transitions kept (client-go's release, for a Lease
        that lives as long as its candidates). False when another holds it or won a race;
        other cluster errors are raised."""
        current = self.cluster.find("Lease", self.name, self.namespace)
        if current is None:
            return False
        self._observe(current)
        if not self.held():
            return False
        if delete:
            # ClusterAPI.delete has no resourceVersion precondition: the Lease read as this
            # candidate's is deleted; another could have taken it over in between only had it
            # expired (gone unrenewed for its whole duration) first.
            self.cluster.delete("Lease", self.name, self.namespace, propagation="Background")
            self.observed = None
            return True
        given_up = self._object(current)
        given_up["spec"].update(holderIdentity="", leaseDurationSeconds=1)
        try:
            written = self.cluster.replace(given_up)
        except (Conflict, NotFound):
            return False
        self._observe(written)
        return True
