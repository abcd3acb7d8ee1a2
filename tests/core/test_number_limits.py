"""The caps on numbers: the schemas' maximums for amounts written as numbers equal the
constants that cap the same amounts written as quantities, and parsing stays bounded."""

from __future__ import annotations

from typing import Any

import pytest

from gpuctl import constants as c
from gpuctl.spec import quantity, schema


def _number_maximum(definition: str) -> Any:
    (number,) = [
        option
        for option in schema.load(schema.COMMON)["$defs"][definition]["oneOf"]
        if option["type"] in ("number", "integer")
    ]
    return number["maximum"]


@pytest.mark.parametrize(
    ("definition", "cap"),
    [
        ("cpu", c.MAX_POD_CPU),
        ("memory", c.MAX_POD_MEMORY),
        ("quotaCpu", c.MAX_QUOTA_CPU),
        ("quotaMemory", c.MAX_QUOTA_MEMORY),
    ],
)
def test_schema_maximum_is_the_constant(definition: str, cap: int) -> None:
    assert _number_maximum(definition) == cap


@pytest.mark.parametrize(
    "text",
    ["9" * 5000, "1" + "0" * 40 + "m", "1e400", "1e-99", float("inf"), 10**5000],
    ids=["5000-digits", "41-digits", "1e400", "1e-99", "inf", "int-5001-digits"],
)
def test_quantity_parse_refuses_absurd_values(text: Any) -> None:
    with pytest.raises(ValueError, match=r"too long|out of range|finite"):
        quantity.parse(text)


def test_quantity_parse_still_reads_ordinary_values() -> None:
    assert quantity.parse("500m") * 2 == 1
    assert quantity.parse("1e3") == 1000
    assert quantity.parse(64 * 2**40) == c.MAX_POD_MEMORY
