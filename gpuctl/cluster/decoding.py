"""The cluster's answers as dicts, with one unreadable object set apart rather than failing all.

orjson decodes every answer (fast). A number it cannot read (beyond a float64: a 4,000-digit
integer that a lax server stored) makes it refuse the whole answer, so one such object would
stop every list of its kind. Then, and only then, the answer is decoded again with the
standard json module, each number it cannot represent kept as an `Unreadable` marker: a list's
items (a Table's rows) holding one are left out and logged, once per object and
resourceVersion; any other answer holding one is the error `UnreadableObject`.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from typing import Any

import orjson

from gpuctl.cluster.errors import KubeError

log = logging.getLogger("gpuctl.cluster")

SHOWN_DIGITS = 12  # of an unreadable number, the first digits a message shows
_REMEMBERED = 10_000  # objects already logged as skipped (forgotten all at once when full)
_warned: set[tuple[str, str, str, str]] = set()
_warned_lock = threading.Lock()


class UnreadableObject(KubeError):
    """The answer is one object that holds a number gpuctl cannot read."""


class Unreadable:
    """A JSON number no float64 holds (or NaN/Infinity), as the server wrote it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        if len(self.text) <= SHOWN_DIGITS:
            return self.text
        return f"{self.text[:SHOWN_DIGITS]}… ({len(self.text)} characters)"


def _integer(text: str) -> Any:
    """As orjson reads one: an int within 64 bits, else a float, else Unreadable."""
    if len(text) <= 20:
        number = int(text)
        if -(2**63) <= number < 2**64:
            return number
    as_float = float(text)  # float() of any length is cheap; int() of thousands of digits not
    return as_float if math.isfinite(as_float) else Unreadable(text)


def _float(text: str) -> Any:
    number = float(text)
    return number if math.isfinite(number) else Unreadable(text)


def loads(data: bytes, kind: str = "") -> Any:
    """An answer's JSON; objects holding a number orjson cannot read are set apart (see the
    module's docstring), a list's named as `kind` objects. Malformed JSON raises orjson's
    error."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return readable(_lax(data, exc), kind)


def watch_event(line: bytes) -> dict[str, Any]:
    """One watch event's JSON. An event whose object holds a number gpuctl cannot read is
    logged and becomes a BOOKMARK at the object's resourceVersion: the watch moves on past it,
    as a list leaves the object out."""
    try:
        event: dict[str, Any] = orjson.loads(line)
        return event
    except orjson.JSONDecodeError as exc:
        event = _lax(line, exc)
    obj = event.get("object")
    found = unreadable_at(obj)
    if found is None:
        return event
    skipped(obj, "", *found)
    meta = (obj.get("metadata") if isinstance(obj, dict) else None) or {}
    version = meta.get("resourceVersion")
    return {
        "type": "BOOKMARK",
        "object": {"metadata": {"resourceVersion": version if isinstance(version, str) else ""}},
    }


def _lax(data: bytes, refused: orjson.JSONDecodeError) -> Any:
    """`data` decoded by the standard json module, every number beyond a float64 (and NaN,
    Infinity) kept as Unreadable; orjson's error when it is not JSON at all."""
    try:
        return json.loads(data, parse_int=_integer, parse_float=_float, parse_constant=Unreadable)
    except ValueError:
        raise refused from None


def unreadable_at(value: Any, path: str = "") -> tuple[str, Unreadable] | None:
    """Where in `value` the first Unreadable number is (a dotted path), and the number."""
    if isinstance(value, Unreadable):
        return path, value
    if isinstance(value, dict):
        children: Any = ((f"{path}.{key}" if path else str(key), v) for key, v in value.items())
    elif isinstance(value, list):
        children = ((f"{path}[{index}]", v) for index, v in enumerate(value))
    else:
        return None
    for child_path, child in children:
        found = unreadable_at(child, child_path)
        if found is not None:
            return found
    return None


def readable(answer: Any, kind: str = "") -> Any:
    """`answer` without what cannot be read: a list's items (or a Table's rows) holding an
    Unreadable number are left out and logged (as `kind` objects, else as the list's kind
    names them); anything else holding one is UnreadableObject."""
    if isinstance(answer, dict):
        kind = kind or str(answer.get("kind") or "").removesuffix("List")
        for entries in ("items", "rows"):
            if isinstance(answer.get(entries), list):
                answer[entries] = _readable_entries(answer[entries], kind)
    found = unreadable_at(answer)
    if found is not None:
        raise UnreadableObject(
            f"{describe(answer)} holds a number gpuctl cannot read at {found[0]} "
            f"({found[1]}); fix or delete it with kubectl"
        )
    return answer


def _readable_entries(entries: list[Any], kind: str) -> list[Any]:
    kept = []
    for entry in entries:
        found = unreadable_at(entry)
        if found is None:
            kept.append(entry)
        else:
            skipped(entry, kind, *found)
    return kept


def _metadata(obj: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the object, its metadata) of an object, or of a Table row's object; {} when absent."""
    inner = obj.get("object") if isinstance(obj, dict) else None
    if not isinstance(inner, dict):
        inner = obj if isinstance(obj, dict) else {}
    meta = inner.get("metadata")
    return inner, meta if isinstance(meta, dict) else {}


def describe(obj: Any, kind: str = "") -> str:
    """`Deployment default/big` of an object (or of a Table row's object)."""
    inner, meta = _metadata(obj)
    name = "/".join(str(part) for part in (meta.get("namespace"), meta.get("name")) if part)
    own = inner.get("kind")
    named = own if own and own != "PartialObjectMetadata" else kind  # a Table row's object
    return f"{named or 'object'} {name or '(no name)'}"


def skipped(obj: Any, kind: str, path: str, number: Unreadable) -> None:
    """Log, once per object and resourceVersion, that `obj` was left out of an answer."""
    _, meta = _metadata(obj)
    key = (
        kind,
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
        str(meta.get("resourceVersion") or ""),
    )
    with _warned_lock:
        if key in _warned:
            return
        if len(_warned) >= _REMEMBERED:
            _warned.clear()
        _warned.add(key)
    log.warning(
        "%s skipped: it holds a number gpuctl cannot read at %s (%s); "
        "fix or delete it with kubectl",
        describe(obj, kind),
        path,
        number,
    )
