"""Times as Kubernetes writes them: RFC 3339 in UTC, to the second (`2026-11-28T10:00:00Z`,
a Time: creationTimestamp, lastTransitionTime), to the microsecond
(`2026-11-28T10:00:00.123456Z`, a MicroTime: a Lease's renewTime, an event's eventTime), to the
millisecond (a webhook payload's timestamp) or, trailing zeros trimmed, to the nanosecond (Go's
RFC3339Nano: the kubelet's log line stamps). Every RFC 3339 time gpuctl writes or reads goes
through here. Pure: the caller passes the Unix time (the clock stays the caller's, so tests
can set it).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final

SECONDS_LAYOUT: Final = "%Y-%m-%dT%H:%M:%SZ"
MICRO_LAYOUT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"
_WHOLE_SECONDS: Final = "%Y-%m-%dT%H:%M:%S"
# RFC 3339's date-time: a fraction of any length, then Z or an offset (Go's time.RFC3339 and
# the API server read the same). datetime keeps six fractional digits.
_RFC3339: Final = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})"
)


def _utc(at: float) -> datetime:
    return datetime.fromtimestamp(at, UTC)


def rfc3339(at: float) -> str:
    """`at` (Unix seconds) as a Kubernetes Time: whole seconds, the fraction dropped."""
    return _utc(at).strftime(SECONDS_LAYOUT)


def milli_rfc3339(at: float) -> str:
    """`at` (Unix seconds) to the millisecond: always three fractional digits."""
    moment = _utc(at)
    return f"{moment.strftime(_WHOLE_SECONDS)}.{moment.microsecond // 1000:03d}Z"


def micro_rfc3339(at: float) -> str:
    """`at` (Unix seconds) as a Kubernetes MicroTime: always six fractional digits."""
    return _utc(at).strftime(MICRO_LAYOUT)


def nano_rfc3339(at: float) -> str:
    """`at` (Unix seconds) as Go's time.RFC3339Nano writes it: up to nine fractional digits,
    trailing zeros trimmed (none at all on a whole second)."""
    moment = _utc(at)
    fraction = f"{moment.microsecond:06d}000".rstrip("0")
    return moment.strftime(_WHOLE_SECONDS) + (f".{fraction}" if fraction else "") + "Z"


def parse_rfc3339(text: str) -> float | None:
    """Unix seconds of an RFC 3339 time, whole seconds or with a fraction (nanoseconds are cut
    to microseconds), in UTC (`Z`) or with an offset (`+02:00`); None when `text` is not one
    (a date alone, or a time without a zone, is not)."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        return None
    date, clock, fraction, zone = match.groups()
    fraction = f".{fraction[:6]:0<6}" if fraction else ""
    zone = "+00:00" if zone in ("Z", "z") else zone
    try:
        return datetime.fromisoformat(f"{date}T{clock}{fraction}{zone}").timestamp()
    except ValueError:  # a month 13, a 25th hour
        return None
