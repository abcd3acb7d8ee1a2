"""Retry delays: exponential backoff with a cap and 0–10 % jitter, so that workloads that
failed together do not all retry together."""

from __future__ import annotations

import random
from typing import Final

CAP_SECONDS: Final = 300.0
JITTER: Final = 0.10


def delay(base_seconds: float, attempt: int, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry number `attempt` (0 for the first retry):
    min(300, base·2^attempt), plus a random 0–10 % of that."""
    if attempt < 0:
        raise ValueError(f"attempt must be 0 or more, got {attempt}")
    # 2**attempt grows without bound; past the cap the exact power does not matter.
    exponent = min(attempt, 64)
    capped = min(CAP_SECONDS, base_seconds * 2.0**exponent)
    return capped * (1.0 + (rng or random).uniform(0.0, JITTER))
