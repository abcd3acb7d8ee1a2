"""What the simulated kubelet knows about each pod beyond the pod's own status."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PodRuntime:
    """What the simulated kubelet knows about a pod beyond its status."""

    scheduled_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    terminate_at: float | None = None
    container_started_at: float | None = None  # the current run of restarted containers
    container_finished_at: float | None = None  # when crashing containers last exited
    previous_started_at: float | None = None  # when the instance before the current one started
    next_restart_at: float | None = None  # set while waiting out a crash loop's back-off
    failed_scheduling: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
