"""Timestamps as the API server writes them (RFC 3339, whole seconds, UTC)."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_rfc3339(ts: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if ts is None else ts, UTC).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )
