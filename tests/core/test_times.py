"""The RFC 3339 times gpuctl writes and reads, as Kubernetes writes them."""

from __future__ import annotations

import pytest

from gpuctl import times

AT = 1795860000.123456  # 2026-11-28T10:00:00.123456Z


def test_a_time_is_written_to_the_second_milli_micro_and_nanosecond() -> None:
    assert times.rfc3339(AT) == "2026-11-28T10:00:00Z"
    assert times.milli_rfc3339(AT) == "2026-11-28T10:00:00.123Z"
    assert times.milli_rfc3339(1795860000.0) == "2026-11-28T10:00:00.000Z"
    assert times.micro_rfc3339(AT) == "2026-11-28T10:00:00.123456Z"
    assert times.micro_rfc3339(1795860000.0) == "2026-11-28T10:00:00.000000Z"
    assert times.nano_rfc3339(1795860000.5) == "2026-11-28T10:00:00.5Z"  # zeros trimmed
    assert times.nano_rfc3339(1795860000.0) == "2026-11-28T10:00:00Z"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2026-11-28T10:00:00Z", 1795860000.0),
        ("2026-11-28T10:00:00.123456Z", AT),
        ("2026-11-28T10:00:00.5Z", 1795860000.5),
        ("2026-11-28T10:00:00.123456789Z", AT),  # Go's RFC3339Nano: cut to microseconds
        ("2026-11-28T12:00:00+02:00", 1795860000.0),  # an offset, as Go's RFC3339 reads it
        ("2026-11-28T09:30:00.5-00:30", 1795860000.5),
    ],
)
def test_times_with_fractions_and_offsets_are_read(text: str, seconds: float) -> None:
    assert times.parse_rfc3339(text) == pytest.approx(seconds, abs=1e-6)


@pytest.mark.parametrize(
    "text",
    ["", "None", "2026-11-28", "2026-11-28T10:00:00", "2026-11-28T10:00Z", "2026-13-28T10:00:00Z"],
)
def test_what_is_not_an_rfc3339_time_reads_as_none(text: str) -> None:
    assert times.parse_rfc3339(text) is None


def test_a_written_time_reads_back() -> None:
    assert times.parse_rfc3339(times.micro_rfc3339(AT)) == pytest.approx(AT, abs=1e-6)
    assert times.parse_rfc3339(times.rfc3339(AT)) == 1795860000.0
    assert times.parse_rfc3339(times.milli_rfc3339(AT)) == pytest.approx(AT, abs=1e-3)
    assert times.parse_rfc3339(times.nano_rfc3339(AT)) == pytest.approx(AT, abs=1e-6)
