"""Times as Kubernetes writes them: RFC 3339 in UTC, to the second (`2026-11-28T10:00:00Z`,
a Time: creationTimestamp, lastTransitionTime) or to the microsecond
(`2026-11-28T10:00:00.123456Z`, a MicroTime: a Lease's renewTime, an event's eventTime).
Pure: the caller passes the Unix time (the clock stays the caller's, so tests can set it).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final

SECONDS_LAYOUT: Final = "%Y-%m-%dT%H:%M:%SZ"
MICRO_LAYOUT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"
# Go's RFC3339Nano writes up to nine fractional digits; datetime keeps six.
_NANOSECONDS: Final = re.compile(r"(\.\d{6})\d{1,3}(?=[zZ]$)")


def rfc3339(at: float) -> str:
    """`at` (Unix seconds) as a Kubernetes Time: whole seconds, the fraction dropped."""
    return datetime.fromtimestamp(at, UTC).strftime(SECONDS_LAYOUT)


def micro_rfc3339(at: float) -> str:
    """`at` (Unix seconds) as a Kubernetes MicroTime: always six fractional digits."""
    return datetime.fromtimestamp(at, UTC).strftime(MICRO_LAYOUT)


def parse_rfc3339(text: str) -> float | None:
    """Unix seconds of a UTC RFC 3339 time, whole seconds or with a fraction (nanoseconds are
    cut to microseconds); None when `text` is not one (a time with another offset is not read:
    Kubernetes writes every time in UTC)."""
    text = _NANOSECONDS.sub(r"\1", text)
    for layout in (MICRO_LAYOUT, SECONDS_LAYOUT):
        try:
            return datetime.strptime(text, layout).replace(tzinfo=UTC).timestamp()
        except (TypeError, ValueError):
            continue
    return None
