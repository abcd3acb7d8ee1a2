"""`get quotas` rows and `describe quota` text, coloured on a terminal."""

from __future__ import annotations

import re
from datetime import datetime

from gpuctl.cli import table
from gpuctl.inventory.quotas import (
    ACCELERATOR_KEYS,
    CPU_KEYS,
    MEMORY_KEYS,
    Quota,
    Usage,
    without_managed_fields,
)

HEADERS = ("USER", "QUOTA", "CPU", "MEMORY", "GPU", "AGE")


WIDE_HEADERS = (*HEADERS[:-1], "CPU LIMIT", "MEMORY LIMIT", "DESCRIPTION", "AGE")


WARN_PERCENT = 70  # yellow from here


FULL_PERCENT = 90  # red from here


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def rows(
    quotas: list[Quota], *, wide: bool = False, colour: bool = False, at: datetime | None = None
) -> list[list[str]]:
    """The `get quotas` table rows (headers: HEADERS, or WIDE_HEADERS when `wide`)."""
    result = []
    for quota in quotas:
        row = [
            quota.user,
            quota.name,
            cell(quota.usage(CPU_KEYS), colour),
            cell(quota.usage(MEMORY_KEYS), colour),
            cell(quota.usage(ACCELERATOR_KEYS), colour),
        ]
        if wide:
            row += [
                cell(quota.usage(("limits.cpu",)), colour),
                cell(quota.usage(("limits.memory",)), colour),
                quota.description or "-",
            ]
        row.append(table.age(quota.created, at))
        result.append(row)
    return result


def render_table(
    quotas: list[Quota],
    *,
    wide: bool = False,
    no_headers: bool = False,
    colour: bool = False,
    at: datetime | None = None,
) -> str:
    headers = WIDE_HEADERS if wide else HEADERS
    return table.table(
        headers, rows(quotas, wide=wide, colour=colour, at=at), no_headers=no_headers
    )


def render_objects(quotas: list[Quota], output: str) -> str:
    """`-o yaml|json|name`: the ResourceQuotas as the server has them (no managedFields)."""
    if output == "name":
        return "".join(f"resourcequota/{q.name}\n" for q in quotas)
    items = [without_managed_fields(q.obj) for q in quotas]
    return table.as_list(items, output)


def describe(quota: Quota, *, colour: bool = False, at: datetime | None = None) -> str:
    """`describe quota`: who, which quota, and per resource used/hard and percent."""
    lines = table.fields(
        [
            ("User", quota.user),
            ("Quota", quota.name),
            ("Description", quota.description or "-"),
            ("Age", table.age(quota.created, at)),
        ],
    )
    lines.append("")
    resources = [["Resource", "Used/Hard", "Usage"]]
    for usage in quota.usages:
        resources.append([usage.resource, usage.fraction(), percent_text(usage, colour)])
    lines += _columns(resources)
    return "\n".join(lines) + "\n"


def cell(usage: Usage | None, colour: bool) -> str:
    """`used/hard` in the usage's colour, `-` when the resource is not limited."""
    if usage is None:
        return "-"
    return table.paint(usage.fraction(), usage_colour(usage.percent), colour)


def percent_text(usage: Usage, colour: bool) -> str:
    percent = usage.percent
    if percent is None:
        return "-"
    return table.paint(f"{percent}%", usage_colour(percent), colour)


def usage_colour(percent: int | None) -> str:
    if percent is None:
        return ""
    if percent >= FULL_PERCENT:
        return "red"
    if percent >= WARN_PERCENT:
        return "yellow"
    return ""


def _columns(lines: list[list[str]]) -> list[str]:
    """Columns two spaces apart, as kubectl describe's tabwriter."""
    lines = [[table.cell_text(cell) for cell in line] for line in lines]
    plain = [[_ANSI.sub("", cell) for cell in line] for line in lines]
    widths = [max(len(line[i]) for line in plain) for i in range(len(lines[0]))]
    out = []
    for line, bare in zip(lines, plain, strict=True):
        cells = [
            text + " " * (widths[i] - len(bare[i])) if i < len(line) - 1 else text
            for i, text in enumerate(line)
        ]
        out.append("  ".join(cells).rstrip())
    return out
