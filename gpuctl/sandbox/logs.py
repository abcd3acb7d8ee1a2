"""Deterministic pod logs: one line per interval while a container runs."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from gpuctl.sandbox.api import PodRuntime


def log_lines(
    pod_name: str,
    container: str,
    runtime: PodRuntime | None,
    interval: float,
    now: float | None = None,
) -> list[tuple[float, str]]:
    """(timestamp, text) for every line the container has written so far."""
    if runtime is None or runtime.started_at is None:
        return []
    end = (
        runtime.finished_at
        if runtime.finished_at is not None
        else (time.time() if now is None else now)
    )
    count = 1 + int(max(end - runtime.started_at, 0) / interval)
    if runtime.finished_at is not None:
        count += 1  # the closing line
    lines = []
    for i in range(count):
        ts = runtime.started_at + i * interval
        if runtime.finished_at is not None and i == count - 1:
            lines.append((runtime.finished_at, f"{pod_name}/{container}: done"))
        elif i == 0:
            lines.append((ts, f"{pod_name}/{container}: started"))
        else:
            lines.append((ts, f"{pod_name}/{container}: step {i}"))
    return lines


def rfc3339_nano(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")
