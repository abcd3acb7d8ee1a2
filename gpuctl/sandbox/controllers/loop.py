"""The simulated control plane's loop: one background thread runs every controller's pass.

The loop wakes every `tick_seconds` and works only when the store changed or a timed transition
(a pod starting, a job pod finishing, a grace period ending) is due. Each controller's pass runs
on its own: one that raises is recorded (see `ControllerError`) and the others still run.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers.base import Controller
from gpuctl.sandbox.controllers.bootstrap import bootstrap
from gpuctl.sandbox.controllers.deployments import DeploymentController
from gpuctl.sandbox.controllers.garbage_collector import GarbageCollector
from gpuctl.sandbox.controllers.hpas import HorizontalPodAutoscalerController
from gpuctl.sandbox.controllers.jobs import JobController
from gpuctl.sandbox.controllers.kubelet import Kubelet
from gpuctl.sandbox.controllers.namespaces import NamespaceController
from gpuctl.sandbox.controllers.quotas import ResourceQuotaController
from gpuctl.sandbox.controllers.replicasets import ReplicaSetController
from gpuctl.sandbox.controllers.scheduler import Scheduler
from gpuctl.sandbox.controllers.statefulsets import StatefulSetController
from gpuctl.sandbox.timestamps import now_rfc3339

# the order of one pass: owners before what they own, the scheduler before the kubelet
CONTROLLERS: tuple[type[Controller], ...] = (
    NamespaceController,
    GarbageCollector,
    JobController,
    DeploymentController,
    ReplicaSetController,
    StatefulSetController,
    Scheduler,
    Kubelet,
    ResourceQuotaController,
    HorizontalPodAutoscalerController,
)


@dataclass
class ControllerError:
    """An exception a controller raised during its passes; the same one repeated counts once."""

    controller: str
    error: str  # "ExceptionType: message"
    first_at: float
    last_at: float
    count: int
    traceback: str

    def describe(self) -> str:
        times = f" ({self.count} times)" if self.count > 1 else ""
        return f"{self.controller} raised {self.error} at {now_rfc3339(self.first_at)}{times}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "controller": self.controller,
            "error": self.error,
            "firstTime": now_rfc3339(self.first_at),
            "lastTime": now_rfc3339(self.last_at),
            "count": self.count,
            "traceback": self.traceback,
        }


class Controllers:
    def __init__(self, api: Api, config: SandboxConfig, stopping: threading.Event) -> None:
        self.api = api
        self.config = config
        self.store = api.store
        self.stopping = stopping
        self.next_due = 0.0
        self._seen = -1  # the store generation the last pass started from
        self.controllers = [kind(api, config, self.due) for kind in CONTROLLERS]
        # each controller's pass, in the order the loop runs them, by the real component's name
        self.passes: dict[str, Callable[[float], None]] = {
            c.name: c.reconcile for c in self.controllers
        }
        self._errors: dict[tuple[str, str], ControllerError] = {}
        self._errors_lock = threading.Lock()

    def bootstrap(self) -> None:
        bootstrap(self.api, self.config)

    def run(self) -> None:
        while not self.stopping.is_set():
            now = time.time()
            with self.store.lock:
                if self.store.generation != self._seen or now >= self.next_due:
                    self.next_due = float("inf")
                    # our own writes count as changes: the next pass sees what this one did
                    self._seen = self.store.generation
                    self.reconcile(now)
            self.stopping.wait(self.config.tick_seconds)

    def errors(self) -> list[ControllerError]:
        """Every distinct exception a controller raised so far, oldest first."""
        with self._errors_lock:
            return sorted(self._errors.values(), key=lambda e: e.first_at)

    def idle(self) -> bool:
        """No change since the last pass and nothing timed ahead (caller holds the lock)."""
        return self._seen == self.store.generation and self.next_due == float("inf")

    def due(self, when: float) -> None:
        self.next_due = min(self.next_due, when)

    def reconcile(self, now: float) -> None:
        """One pass of every controller; one that raises is recorded and the others still run."""
        for name, run_pass in list(self.passes.items()):
            try:
                run_pass(now)
            except Exception as exc:
                self._record(name, exc, now)
                # retry a second later even if nothing changes, as a work queue re-queues a key
                self.due(now + 1.0)

    def _record(self, controller: str, exc: Exception, now: float) -> None:
        text = f"{type(exc).__name__}: {exc}"
        trace = traceback.format_exc()
        with self._errors_lock:
            known = self._errors.get((controller, text))
            if known is None:
                self._errors[(controller, text)] = ControllerError(
                    controller, text, now, now, 1, trace
                )
                print(f"sandbox: {controller} raised\n{trace}", file=sys.stderr, flush=True)
            else:
                known.count += 1
                known.last_at = now
