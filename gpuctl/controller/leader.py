"""Leader election of the controller's replicas on a coordination.k8s.io/v1 Lease
(gpuctl.cluster.lease: client-go's rule, expiry judged on each replica's own clock): one
replica holds the Lease and renews it every few seconds; the others wait until it has not
changed for a whole lease duration, then take it over. A leader that cannot renew for its
renew deadline steps down; a clean shutdown gives the Lease up so a standby need not wait.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError
from gpuctl.cluster.lease import Lease

log = logging.getLogger("gpuctl.controller.leader")


@dataclass(frozen=True)
class Timing:
    lease_seconds: float = 15.0  # how long a silent leader's Lease stays its own
    renew_deadline: float = 10.0  # a leader that cannot renew for this long steps down
    retry_period: float = 2.0  # between attempts to take or renew the Lease


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
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.timing = timing or Timing()
        self.clock = clock
        self.lease = Lease(
            cluster, namespace, name, identity, int(self.timing.lease_seconds), clock=clock
        )

    def try_acquire_or_renew(self) -> bool:
        """True when this replica holds the Lease after the attempt."""
        return self.lease.try_acquire_or_renew()

    def release(self) -> None:
        """Give the Lease up at once (on a clean shutdown), so a standby need not wait; the
        Lease stays, without a holder."""
        try:
            self.lease.release()
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
