"""Backoff: base·2^attempt, capped at 300 s, plus 0–10 % jitter."""

from __future__ import annotations

import random

import pytest

from gpuctl.controller import backoff


@pytest.mark.parametrize(
    ("base", "attempt", "floor"),
    [(30, 0, 30), (30, 1, 60), (30, 2, 120), (30, 3, 240), (30, 4, 300), (1, 100, 300)],
)
def test_delay_doubles_up_to_the_cap_with_at_most_ten_percent_jitter(
    base: float, attempt: int, floor: float
) -> None:
    rng = random.Random(7)
    delays = [backoff.delay(base, attempt, rng) for _ in range(2000)]
    assert min(delays) >= floor
    assert max(delays) <= floor * 1.1
    # the jitter really spreads retries over the whole 10 %
    assert min(delays) < floor * 1.01
    assert max(delays) > floor * 1.09


def test_same_seed_same_delays() -> None:
    first = [backoff.delay(10, 2, random.Random(3)) for _ in range(3)]
    assert first == [backoff.delay(10, 2, random.Random(3)) for _ in range(3)]


def test_negative_attempt_is_refused() -> None:
    with pytest.raises(ValueError, match="attempt must be 0 or more"):
        backoff.delay(10, -1)
