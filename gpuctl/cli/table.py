"""Output the way kubectl prints it: aligned columns, AGE, -o wide|yaml|json|name, colour
only on a terminal (and never with NO_COLOR). Pure text in, text out: the CLI prints it."""

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


def paint(text: str, colour: str, enabled: bool) -> str:
    return f"\x1b[{_COLOURS[colour]}m{text}\x1b[0m" if enabled and colour in _COLOURS else text


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
    lines += [[str(cell) for cell in row] for row in rows]
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
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


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
