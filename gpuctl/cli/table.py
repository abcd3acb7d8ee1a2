"""Output the way kubectl prints it: aligned columns, AGE, -o wide|yaml|json|name, colour
only on a terminal (and never with NO_COLOR). Pure text in, text out: the CLI prints it.

The table and describe printers here show every cell and value through gpuctl.terminal.shown
(control characters escaped), so that no user-written text reaches a terminal raw; only the
colour this module paints (Painted) is printed as it is."""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import yaml

from gpuctl.terminal import shown
from gpuctl.times import parse_rfc3339

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_COLOURS = {"green": "32", "yellow": "33", "red": "31"}
# Status words in colour: what is fine, what waits, what needs a look.
_STATUS_COLOUR = {
    "Running": "green",
    "Succeeded": "green",
    "Ready": "green",
    "Completed": "green",
    "Pending": "yellow",
    "Paused": "yellow",
    "Queued": "yellow",
    "Preempted": "yellow",
    "Partially Running": "yellow",
    "Starting": "yellow",
    "Terminating": "yellow",
    "NotReady": "red",
    "Failed": "red",
}


def colour_enabled(stream: Any = None) -> bool:
    """Colour on a terminal only, and never when NO_COLOR is set (no-color.org)."""
    if "NO_COLOR" in os.environ:
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


class Painted(str):
    """A cell coloured by `paint`: its text already shown safely, its colour codes our own."""

    __slots__ = ()


def paint(text: str, colour: str, enabled: bool) -> str:
    """`text` (shown safely) in `colour` when `enabled`; a Painted cell the printers keep."""
    safe = text if isinstance(text, Painted) else shown(text)
    if enabled and colour in _COLOURS:
        return Painted(f"\x1b[{_COLOURS[colour]}m{safe}\x1b[0m")
    return Painted(safe)


def cell_text(cell: object) -> str:
    """A cell as printed: its text with control characters escaped, unless we painted it."""
    return str(cell) if isinstance(cell, Painted) else shown(str(cell))


def fields(
    pairs: Sequence[tuple[str, str]], *, gap: int = 3, repeat_keys: bool = True
) -> list[str]:
    """`Key:   value` lines aligned as kubectl describe aligns them, `gap` spaces past the
    longest key. Each value is shown safely; one of several lines (a description) continues
    under the first. Without `repeat_keys`, a key the line before has too is left out."""
    width = max((len(key) for key, _ in pairs), default=0) + gap
    lines = []
    for index, (key, value) in enumerate(pairs):
        label = key + ":" if repeat_keys or index == 0 or key != pairs[index - 1][0] else ""
        text = str(value) if isinstance(value, Painted) else shown(str(value), multiline=True)
        first, *more = text.split("\n")
        lines.append(f"{label:<{width}}{first}".rstrip())
        lines += [f"{'':<{width}}{line}".rstrip() for line in more]
    return lines


def status_colour(status: str) -> str:
    """The colour for a status word; anything unknown that is not fine reads as red."""
    if status in _STATUS_COLOUR:
        return _STATUS_COLOUR[status]
    return "red" if status else ""


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    no_headers: bool = False,
) -> str:
    """Columns padded to their widest cell and three spaces apart, as kubectl's tabwriter."""
    lines = [list(headers)] if not no_headers else []
    lines += [[cell_text(cell) for cell in row] for row in rows]
    if not lines:
        return ""
    if _plain(lines, len(headers)):  # the common case, at C speed: str.ljust, len
        widths = [max(map(len, column)) for column in zip(*lines, strict=True)]
        return "".join(
            "   ".join([*map(str.ljust, line[:-1], widths), line[-1]]).rstrip() + "\n"
            for line in lines
        )
    sizes = [[width(cell) for cell in line] for line in lines]
    widths = [max(size[i] for size in sizes if i < len(size)) for i in range(len(headers))]
    out = []
    for line, size in zip(lines, sizes, strict=True):
        last = len(line) - 1
        cells = [
            cell + " " * (widths[i] - size[i]) if i < last else cell for i, cell in enumerate(line)
        ]
        out.append("   ".join(cells).rstrip())
    return "\n".join(out) + "\n"


def _plain(lines: list[list[str]], columns: int) -> bool:
    """Every line has every column, and every cell is ASCII without colour codes."""
    if any(len(line) != columns for line in lines):
        return False
    text = "".join(["".join(line) for line in lines])
    return text.isascii() and "\x1b" not in text


def width(text: str) -> int:
    """Columns `text` takes on a terminal: colour codes take none, CJK characters two."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def as_list(items: list[dict[str, Any]], output: str) -> str:
    """`-o yaml|json`: the objects as one v1 List, as kubectl prints several."""
    document = {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {}}
    if output == "json":
        return json.dumps(document, indent=4, ensure_ascii=False) + "\n"
    return yaml.dump(document, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)


def now() -> datetime:
    return datetime.now(UTC)


def parse_time(stamp: str | None) -> datetime | None:
    seconds = parse_rfc3339(stamp or "")
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def age(stamp: str | None, at: datetime | None = None) -> str:
    """kubectl's AGE (apimachinery duration.HumanDuration): 45s, 5m30s, 3h, 2d, 3y."""
    then = parse_time(stamp)
    if then is None:
        return "<unknown>"
    seconds = int(((at or now()) - then).total_seconds())
    if seconds < -1:
        return "<invalid>"
    seconds = max(seconds, 0)
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"
