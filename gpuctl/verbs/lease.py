"""One writer per job at a time: a Lease per job (gpuctl.cluster.lease), held while a verb
writes the job's objects (two terminals or two CI runs applying the same job).

The Lease is named `gpuctl-lock-<job>` in the job's namespace, renewed on a thread of its own
while the run lasts (however long it waits for objects to go) and deleted when the run ends. A
run that finds it held by someone else waits, saying so, until it is released or has gone
unchanged for the lease duration on this run's own clock (a crashed holder blocks no one for
longer than that, however its clock was set), and fails with a clear message at its deadline.
Nothing is written before every lease is held.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError
from gpuctl.cluster.lease import Lease
from gpuctl.verbs.common import Progress, no_progress
from gpuctl.verbs.errors import LockTimeout

LEASE_PREFIX = "gpuctl-lock-"
LEASE_SECONDS = 40  # a run that vanished blocks others at most this long (renewed every 10 s)
POLL_SECONDS = 0.5


def holder_identity() -> str:
    """Who holds a lock, in the words a waiting run shows: user@host and a run's suffix."""
    return f"{os.environ.get('USER', 'gpuctl')}@{socket.gethostname()}/{uuid.uuid4().hex[:8]}"


class JobLocks:
    """The leases of several jobs, taken in name order (so two runs cannot deadlock)."""

    def __init__(
        self,
        cluster: ClusterAPI,
        jobs: list[tuple[str, str]],  # (namespace, job name)
        deadline: float,
        progress: Progress = no_progress,
        lease_seconds: int = LEASE_SECONDS,
    ) -> None:
        self.cluster = cluster
        self.jobs = sorted(set(jobs))
        self.deadline = deadline
        self.progress = progress
        self.lease_seconds = lease_seconds
        self.holder = holder_identity()
        self.held: list[Lease] = []

    @contextlib.contextmanager
    def held_for_run(self) -> Iterator[None]:
        done = threading.Event()
        renewer = threading.Thread(target=self._renew, args=(done,), name="job-locks", daemon=True)
        try:
            for namespace, job in self.jobs:
                self._acquire(namespace, job)
            renewer.start()
            yield
        finally:
            done.set()
            if renewer.is_alive():
                renewer.join()  # no renewal after the release: it would take the lock again
            self.release()

    def _renew(self, done: threading.Event) -> None:
        """Renew every held lease a few times per duration until the run is done, so that
        a run longer than the duration keeps its locks (a renewal that fails is tried again
        at the next turn; one lost to another run is not taken back)."""
        while not done.wait(self.lease_seconds / 4):
            for lease in self.held:
                if lease.held():
                    with contextlib.suppress(KubeError):
                        lease.try_acquire_or_renew()

    def _lease(self, namespace: str, job: str) -> Lease:
        labels = {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE, c.Labels.INSTANCE: job}
        name = LEASE_PREFIX + job
        return Lease(self.cluster, namespace, name, self.holder, self.lease_seconds, labels=labels)

    def _acquire(self, namespace: str, job: str) -> None:
        lease = self._lease(namespace, job)
        started = time.monotonic()
        while not lease.try_acquire_or_renew():
            who = lease.holder or "someone"
            if time.monotonic() >= self.deadline:
                raise LockTimeout(
                    f"another gpuctl run ({who}) is changing job {job} in namespace {namespace}"
                    f" and still was after {time.monotonic() - started:.0f}s; nothing was "
                    f"changed (its lock is lease/{lease.name}, released when that run ends)"
                )
            self.progress(f"waiting for {who} to finish changing job {job}")
            time.sleep(POLL_SECONDS)
        self.held.append(lease)

    def release(self) -> None:
        for lease in reversed(self.held):
            with contextlib.suppress(KubeError):
                lease.release(delete=True)
        self.held.clear()
