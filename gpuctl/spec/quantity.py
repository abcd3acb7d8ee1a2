"""Kubernetes resource quantities (`500m`, `32Gi`, `1e3`) as exact numbers.

Parsing is bounded: text longer than MAX_QUANTITY_CHARS, or an exponent further from 0 than
MAX_QUANTITY_EXPONENT, is refused before any arithmetic, so a hostile value costs nothing.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

from gpuctl.constants import MAX_QUANTITY_CHARS, MAX_QUANTITY_EXPONENT

_SUFFIXES = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}
_QUANTITY = re.compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$"
)


def parse(value: str | int | float) -> Decimal:
    """The quantity's value in base units (cores, bytes, devices); ValueError when malformed,
    too long (more than MAX_QUANTITY_CHARS characters) or not finite."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    if isinstance(value, int) and abs(value) >= 10**MAX_QUANTITY_CHARS:
        raise ValueError(f"quantity is too long (more than {MAX_QUANTITY_CHARS} digits)")
    if isinstance(value, int | float):
        value = str(value)
    text = value.strip()
    if len(text) > MAX_QUANTITY_CHARS:
        raise ValueError(
            f"quantity is too long ({len(text)} characters, at most {MAX_QUANTITY_CHARS})"
        )
    match = _QUANTITY.fullmatch(text)
    if not match:
        raise ValueError(f"not a quantity: {value!r}")
    number, exponent, suffix = match.groups()
    try:
        result = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - the pattern admits only numbers
        raise ValueError(f"not a quantity: {value!r}") from exc
    if exponent:
        power = int(exponent[1:])
        if abs(power) > MAX_QUANTITY_EXPONENT:
            raise ValueError(
                f"quantity exponent {exponent} is out of range (at most ±{MAX_QUANTITY_EXPONENT})"
            )
        return result * (Decimal(10) ** power)
    return result * _SUFFIXES[suffix or ""]


def same(a: object, b: object) -> bool:
    """True when both are quantities of the same amount (`0.5` and `500m`)."""
    if not isinstance(a, str | int | float) or not isinstance(b, str | int | float):
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    try:
        return parse(a) == parse(b)
    except ValueError:
        return False
