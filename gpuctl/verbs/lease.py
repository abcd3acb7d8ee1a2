"""One writer per job at a time: a `coordination.k8s.io` Lease per job, held while a verb
writes the job's objects (two terminals or two CI runs applying the same job).

The Lease is named `gpuctl-lock-<job>` in the job's namespace. A run that finds it held by
someone else waits, saying so, until it is released or has expired (a crashed holder does not
block anyone for longer than the lease duration), and fails with a clear message at its
deadline. Nothing is written before every lease is held.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Conflict, KubeError, NotFound
from gpuctl.times import micro_rfc3339, parse_rfc3339
from gpuctl.verbs.common import Progress, no_progress
from gpuctl.verbs.errors import LockTimeout

LEASE_PREFIX = "gpuctl-lock-"
LEASE_SECONDS = 120  # a holder that vanished blocks others at most this long
POLL_SECONDS = 0.5


def holder_identity() -> str:
    return f"{os.environ.get('USER', 'gpuctl')}@{socket.gethostname()}/{uuid.uuid4().hex[:8]}"


def _now() -> str:
    return micro_rfc3339(time.time())


def _expired(lease: dict[str, Any]) -> bool:
    spec = lease.get("spec") or {}
    renewed = parse_rfc3339(str(spec.get("renewTime") or spec.get("acquireTime") or ""))
    if renewed is None:  # never renewed, or unreadable: no holder can be told apart
        return True
    return time.time() - renewed > int(spec.get("leaseDurationSeconds") or LEASE_SECONDS)


def _body(name: str, namespace: str, holder: str, job: str) -> dict[str, Any]:
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE, c.Labels.INSTANCE: job},
        },
        "spec": {
            "holderIdentity": holder,
            "leaseDurationSeconds": LEASE_SECONDS,
            "acquireTime": _now(),
            "renewTime": _now(),
        },
    }


class JobLocks:
    """The leases of several jobs, taken in name order (so two runs cannot deadlock)."""

    def __init__(
        self,
        cluster: ClusterAPI,
        jobs: list[tuple[str, str]],  # (namespace, job name)
        deadline: float,
        progress: Progress = no_progress,
    ) -> None:
        self.cluster = cluster
        self.jobs = sorted(set(jobs))
        self.deadline = deadline
        self.progress = progress
        self.holder = holder_identity()
        self.held: list[tuple[str, str]] = []

    @contextlib.contextmanager
    def held_for_run(self) -> Iterator[None]:
        try:
            for namespace, job in self.jobs:
                self._acquire(namespace, job)
            yield
        finally:
            self.release()

    def _acquire(self, namespace: str, job: str) -> None:
        name = LEASE_PREFIX + job
        started = time.monotonic()
        while True:
            if self._try(name, namespace, job):
                self.held.append((namespace, name))
                return
            current = self.cluster.find("Lease", name, namespace) or {}
            who = (current.get("spec") or {}).get("holderIdentity") or "someone"
            if time.monotonic() >= self.deadline:
                raise LockTimeout(
                    f"another gpuctl run ({who}) is changing job {job} in namespace {namespace}"
                    f" and still was after {time.monotonic() - started:.0f}s; nothing was "
                    f"changed (its lock is lease/{name}, released when that run ends)"
                )
            self.progress(f"waiting for {who} to finish changing job {job}")
            time.sleep(POLL_SECONDS)

    def _try(self, name: str, namespace: str, job: str) -> bool:
        """Take the lease if it is free or expired; False when someone else holds it."""
        body = _body(name, namespace, self.holder, job)
        try:
            self.cluster.create(body)
            return True
        except AlreadyExists:
            pass
        current = self.cluster.find("Lease", name, namespace)
        if current is None:
            return False  # released just now: the next attempt creates it
        if not _expired(current):
            return False
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        try:
            self.cluster.replace(body)
        except (Conflict, NotFound):
            return False  # another run took it over first
        return True

    def release(self) -> None:
        for namespace, name in reversed(self.held):
            with contextlib.suppress(KubeError):
                self.cluster.delete("Lease", name, namespace, propagation="Background")
        self.held.clear()
