"""Deterministic pod logs: one line per interval while a container runs, and the log request's
options (sinceSeconds, sinceTime, tailLines, limitBytes, timestamps) as the kubelet applies
them."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from gpuctl.sandbox.errors import ApiError, bad_request
from gpuctl.sandbox.runtime import PodRuntime
from gpuctl.times import nano_rfc3339, parse_rfc3339

LogLine = tuple[float, str]  # (timestamp, text)


def log_lines(
    pod_name: str,
    container: str,
    runtime: PodRuntime | None,
    interval: float,
    now: float | None = None,
    script: Sequence[str] | None = None,
) -> list[LogLine]:
    """(timestamp, text) for every line the container has written so far: the lines its
    script prints (gpuctl.sandbox.script), at its start, or one line per interval."""
    if runtime is None or runtime.started_at is None:
        return []
    if script is not None:
        started = runtime.container_started_at or runtime.started_at
        return [(started, text) for text in script]
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


def previous_log_lines(
    pod_name: str,
    container: str,
    runtime: PodRuntime,
    interval: float,
    running: bool,
    script: Sequence[str] | None = None,
) -> list[LogLine]:
    """The lines of the container's instance before the current one: the one that last
    exited (the one before it while a restarted instance runs)."""
    started = runtime.previous_started_at if running else runtime.container_started_at
    started = started or runtime.started_at
    if script is not None:
        return [(started or 0.0, text) for text in script]
    window = PodRuntime(started_at=started, finished_at=runtime.container_finished_at)
    return log_lines(pod_name, container, window, interval)


@dataclass
class LogOptions:
    """A pod log request's query, checked as the API server checks PodLogOptions."""

    since: float | None = None  # only lines stamped at or after this time
    tail: int | None = None  # only the last this many lines (after `since`)
    limit_bytes: int | None = None
    timestamps: bool = False
    follow: bool = False

    @classmethod
    def of(cls, query: dict[str, str], pod_name: str, now: float | None = None) -> LogOptions:
        def number(key: str) -> int | None:
            text = query.get(key)
            if text in (None, ""):
                return None
            try:
                return int(text)
            except ValueError:
                raise bad_request(f'strconv.ParseInt: parsing "{text}": invalid syntax') from None

        options = cls(
            tail=number("tailLines"),
            limit_bytes=number("limitBytes"),
            timestamps=query.get("timestamps") in ("true", "1"),
            follow=query.get("follow") in ("true", "1"),
        )
        since_seconds, since_time = number("sinceSeconds"), query.get("sinceTime") or None

        def refuse(field: str, message: str) -> ApiError:
            return ApiError(
                422, "Invalid", f'PodLogOptions "{pod_name}" is invalid: {field}: {message}'
            )

        if options.limit_bytes is not None and options.limit_bytes < 1:
            raise refuse(
                "limitBytes", f"Invalid value: {options.limit_bytes}: must be greater than 0"
            )
        if since_seconds is not None and since_time is not None:
            raise refuse(
                "", "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"
            )
        if since_seconds is not None:
            if since_seconds < 1:
                raise refuse(
                    "sinceSeconds", f"Invalid value: {since_seconds}: must be greater than 0"
                )
            options.since = (time.time() if now is None else now) - since_seconds
        elif since_time is not None:
            options.since = _parse_rfc3339(since_time)
        return options

    def select(self, lines: list[LogLine]) -> list[LogLine]:
        """The lines since `since`, then the last `tail` of them."""
        shown = [line for line in lines if self.since is None or line[0] >= self.since]
        if self.tail is None or self.tail < 0:
            return shown
        return shown[-self.tail :] if self.tail > 0 else []

    def render(self, lines: list[LogLine]) -> bytes:
        return b"".join(
            ((nano_rfc3339(ts) + " ") if self.timestamps else "").encode() + text.encode() + b"\n"
            for ts, text in lines
        )


def _parse_rfc3339(text: str) -> float:
    seconds = parse_rfc3339(text)
    if seconds is None:
        raise bad_request(
            f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse "{text}"'
        )
    return seconds
