"""Leader election on a coordination.k8s.io/v1 Lease, the way client-go's leaderelection does it:
one replica holds the Lease and renews it every few seconds; the others wait until it has not
changed for a whole lease duration (measured on their own clock, so clocks may disagree), then
take it over. Optimistic concurrency (resourceVersion) decides every race: a write on a stale
Lease is a Conflict and changes nothing.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Conflict, KubeError
from gpuctl.times import micro_rfc3339

log = logging.getLogger("gpuctl.controller.leader")


@dataclass(frozen=True)
class Timing:
    lease_seconds: float = 15.0  # how long a silent leader's Lease stays its own
    renew_deadline: float = 10.0  # a leader that cannot renew for this long steps down
    retry_period: float = 2.0  # between attempts to take or renew the Lease


def unique_identity(name: str | None = None) -> str:
    """A holder identity no other candidate has: `name` (the pod's name; the host's name
    outside a pod), the process id and a random suffix, as client-go's `<hostname>_<uuid>`.
    Two `controller run` on one host (or a pod restarted in place) are two candidates, never
    one leader twice."""
    return f"{name or socket.gethostname()}_{os.getpid()}_{secrets.token_hex(4)}"


class LeaseElector:
    def __init__(
        self,
        cluster: ClusterAPI,
        namespace: str,
        name: str,
        identity: str,
        timing: Timing | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cluster = cluster
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.timing = timing or Timing()
        self.clock = clock
        self._observed: tuple[str, float] | None = None  # (resourceVersion, when we saw it)

    # -- one attempt ------------------------------------------------------------------------

    def try_acquire_or_renew(self) -> bool:
        """True when this replica holds the Lease after the attempt."""
        try:
            lease = self.cluster.find("Lease", self.name, self.namespace)
            if lease is None:
                self.cluster.create(self._lease_object(None, transitions=0))
                return True
            spec = lease.get("spec") or {}
            holder = spec.get("holderIdentity") or ""
            version = str(lease["metadata"].get("resourceVersion", ""))
            if self._observed is None or self._observed[0] != version:
                self._observed = (version, self.clock())
            if holder and holder != self.identity and not self._expired(spec):
                return False
            transitions = int(spec.get("leaseTransitions") or 0)
            if holder != self.identity:
                transitions += 1
            updated = self._lease_object(lease, transitions)
            if holder == self.identity:
                updated["spec"]["acquireTime"] = spec.get("acquireTime")
            written = self.cluster.replace(updated)
            self._observed = (str(written["metadata"].get("resourceVersion", "")), self.clock())
            return True
        except (AlreadyExists, Conflict):
            return False

    def _expired(self, spec: dict[str, Any]) -> bool:
        duration = float(spec.get("leaseDurationSeconds") or self.timing.lease_seconds)
        assert self._observed is not None
        return self.clock() - self._observed[1] > duration

    def _lease_object(self, current: dict[str, Any] | None, transitions: int) -> dict[str, Any]:
        now = micro_rfc3339(time.time())
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if current is not None:
            metadata = dict(current["metadata"])
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": metadata,
            "spec": {
                "holderIdentity": self.identity,
                "leaseDurationSeconds": int(self.timing.lease_seconds),
                "acquireTime": now,
                "renewTime": now,
                "leaseTransitions": transitions,
            },
        }

    def release(self) -> None:
        """Give the Lease up at once (on a clean shutdown), so a standby need not wait."""
        try:
            lease = self.cluster.find("Lease", self.name, self.namespace)
            if lease is None or (lease.get("spec") or {}).get("holderIdentity") != self.identity:
                return
            lease["spec"]["holderIdentity"] = ""
            lease["spec"]["leaseDurationSeconds"] = 1
            self.cluster.replace(lease)
        except KubeError as exc:
            log.warning("could not release the lease: %s", exc)

    # -- loops ------------------------------------------------------------------------------

    def acquire(self, stop: threading.Event) -> bool:
        """Block until this replica leads (True) or `stop` is set (False)."""
        while not stop.is_set():
            try:
                if self.try_acquire_or_renew():
                    log.info("became the leader (%s/%s)", self.namespace, self.name)
                    return True
            except KubeError as exc:
                log.warning("leader election: %s", exc)
            stop.wait(self.timing.retry_period)
        return False

    def keep(self, stop: threading.Event) -> None:
        """Renew until `stop` is set (then release) or until renewing fails for longer than
        the renew deadline (then return: leadership is lost)."""
        last_renewed = self.clock()
        while not stop.wait(self.timing.retry_period):
            try:
                if self.try_acquire_or_renew():
                    last_renewed = self.clock()
                    continue
                log.error("lost the lease to another replica")
                return
            except KubeError as exc:
                log.warning("could not renew the lease: %s", exc)
            if self.clock() - last_renewed > self.timing.renew_deadline:
                log.error("could not renew the lease for %.0fs", self.timing.renew_deadline)
                return
        self.release()
