"""Timestamps as the API server writes them (RFC 3339, whole seconds, UTC), of now unless
told otherwise."""

from __future__ import annotations

import time

from gpuctl.times import rfc3339


def now_rfc3339(ts: float | None = None) -> str:
    return rfc3339(time.time() if ts is None else ts)
