"""Kubernetes resource quantities (`500m`, `8Gi`, `4`) as exact fractions."""

from __future__ import annotations

import re
from fractions import Fraction

_SUFFIX = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
}
_MAX_EXPONENT = 100  # far beyond any resource (an Ei is 1e18); computing 10**1e9 never ends
_RE = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$")


def parse(value: object) -> Fraction:
    """A quantity as an exact number; sums already computed (Fractions) pass through."""
    if isinstance(value, Fraction | int | float):
        return Fraction(value)
    m = _RE.fullmatch(str(value).strip())
    if not m or m.group(2) not in _SUFFIX:
        raise ValueError(f"quantities must match the regular expression '{_RE.pattern}'")
    number = m.group(1)
    exponent = re.search(r"[eE]([+-]?[0-9]+)$", number)
    if exponent and abs(int(exponent.group(1)[:8])) > _MAX_EXPONENT:  # 1e999999999: no hang
        raise ValueError("quantity too large")
    return Fraction(number) * _SUFFIX[m.group(2)]


def is_quantity(value: object) -> bool:
    try:
        parse(value)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def format_quantity(value: Fraction, binary: bool = False) -> str:
    """Canonical-ish form: whole numbers plain, binary sizes with Ki/Mi/Gi, fractions in m."""
    if value == 0:
        return "0"
    if binary and value.denominator == 1:
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            if value.numerator % _SUFFIX[suffix].numerator == 0:
                return f"{value.numerator // _SUFFIX[suffix].numerator}{suffix}"
    if value.denominator == 1:
        return str(value.numerator)
    milli = value * 1000
    if milli.denominator == 1:
        return f"{milli.numerator}m"
    return f"{round(float(milli))}m"


def is_binary(value: object) -> bool:
    return str(value).rstrip().endswith("i")
