"""The rules of a job's pushed values (names, numbers) and of the PROGRESS column, on their own."""

from __future__ import annotations

import pytest

from gpuctl.monitoring import custom


@pytest.mark.parametrize("name", ["loss", "tokensPerSecond", "_x", "a" * 64])
def test_metric_names_that_are_taken(name: str) -> None:
    assert custom.checked({name: 1}) == {name: 1.0}


@pytest.mark.parametrize("name", ["", "9lives", "bad-name", "a:b", "ünicode", "a" * 65])
def test_metric_names_that_are_refused(name: str) -> None:
    with pytest.raises(custom.InvalidValues) as raised:
        custom.checked({name: 1})
    assert raised.value.field == f"metrics.{name}"


def test_progress_column_only_when_a_listed_job_reports_one() -> None:
    listed = [("a", "one"), ("a", "two")]
    assert custom.progress_cells(listed, {("b", "one"): 5.0}) is None
    assert custom.progress_cells(listed, {("a", "two"): 42.5}) == ["-", "42.5%"]
    assert custom.progress_cells(listed, {("a", "one"): 100.0}) == ["100%", "-"]
