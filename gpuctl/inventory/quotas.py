"""Quotas as users see them: per user namespace, used/hard of CPU, memory and GPUs.

Reads gpuctl-managed ResourceQuotas (status.used, status.hard) with one list request and turns
them into rows and lines; never prints. Quantities are compared exactly (gpuctl.spec.quantity).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_FLOOR, Decimal
from typing import Any, Protocol

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.errors import GpuctlError
from gpuctl.spec import quantity

DESCRIPTION_ANNOTATION = c.ANNOTATION_PREFIX + "description"
MANAGED_SELECTOR = f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE}"

# What a quota renders, in the order a person reads it; other keys follow, sorted.
RESOURCE_ORDER = (
    "requests.cpu",
    "limits.cpu",
    "requests.memory",
    "limits.memory",
    f"requests.{c.GPU_RESOURCE}",
)
# The key each table column shows, first present wins (a hand-edited quota may use another).
CPU_KEYS = ("requests.cpu", "cpu", "limits.cpu")
MEMORY_KEYS = ("requests.memory", "memory", "limits.memory")
GPU_KEYS = (f"requests.{c.GPU_RESOURCE}", f"limits.{c.GPU_RESOURCE}")

HEADERS = ("USER", "QUOTA", "CPU", "MEMORY", "GPU", "AGE")
WIDE_HEADERS = (*HEADERS[:-1], "CPU LIMIT", "MEMORY LIMIT", "DESCRIPTION", "AGE")

WARN_PERCENT = 70  # yellow from here
FULL_PERCENT = 90  # red from here

_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL = ("k", "M", "G", "T", "P", "E")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Lister(Protocol):
    """The part of gpuctl.cluster.client.Cluster this module uses."""

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[dict[str, Any]]: ...


class NoQuota(GpuctlError):
    """The user has no gpuctl quota."""


@dataclass(frozen=True)
class Usage:
    """One limited resource: what is used of how much."""

    resource: str  # the ResourceQuota key, e.g. requests.nvidia.com/gpu
    used: str  # as the server reported it
    hard: str

    @property
    def percent(self) -> int | None:
        """Used as a whole percentage of hard, rounded down (100 means really full); None
        when it cannot be said (a hard limit of 0, or a value that is not a quantity)."""
        try:
            used, hard = quantity.parse(self.used), quantity.parse(self.hard)
        except ValueError:
            return None
        if hard <= 0:
            return None
        return int((used * 100 / hard).to_integral_value(rounding=ROUND_FLOOR))

    def fraction(self) -> str:
        """`used/hard`, the used amount written in the unit of the hard limit when that is
        exact (`1.5Gi/20Gi`, `2.5/10`), else as the server wrote it (never rounded)."""
        return f"{in_unit_of(self.used, self.hard)}/{self.hard}"


@dataclass(frozen=True)
class Quota:
    """A gpuctl ResourceQuota in a user's namespace."""

    user: str  # the namespace, which is the user's name
    name: str
    description: str
    created: str | None
    usages: tuple[Usage, ...]
    obj: dict[str, Any]

    def usage(self, keys: tuple[str, ...]) -> Usage | None:
        by_key = {u.resource: u for u in self.usages}
        return next((by_key[k] for k in keys if k in by_key), None)


# --------------------------------------------------------------------------- queries


def list_quotas(cluster: Lister, user: str | None = None) -> list[Quota]:
    """Every gpuctl quota (across all namespaces, or the user's), sorted by user and name:
    one list request whatever the number of users."""
    items = cluster.list("ResourceQuota", user, label_selector=MANAGED_SELECTOR)
    quotas = [quota_of(item) for item in items]
    return sorted(quotas, key=lambda q: (q.user, q.name))


def user_quotas(cluster: Lister, user: str) -> list[Quota]:
    """The user's quotas; NoQuota when there is none."""
    quotas = list_quotas(cluster, user)
    if not quotas:
        raise NoQuota(f"no quota for user {user!r}")
    return quotas


def quota_of(obj: dict[str, Any]) -> Quota:
    metadata = obj.get("metadata") or {}
    status = obj.get("status") or {}
    # status.hard lags spec.hard until the quota controller has seen the object
    hard: dict[str, Any] = {**(status.get("hard") or {})} or {
        **((obj.get("spec") or {}).get("hard") or {})
    }
    used: dict[str, Any] = status.get("used") or {}
    usages = tuple(Usage(key, str(used.get(key, "0")), str(hard[key])) for key in _ordered(hard))
    return Quota(
        user=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        description=str((metadata.get("annotations") or {}).get(DESCRIPTION_ANNOTATION) or ""),
        created=metadata.get("creationTimestamp"),
        usages=usages,
        obj=obj,
    )


def _ordered(keys: dict[str, Any]) -> list[str]:
    known = [k for k in RESOURCE_ORDER if k in keys]
    return known + sorted(k for k in keys if k not in RESOURCE_ORDER)


# --------------------------------------------------------------------------- output


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
            cell(quota.usage(GPU_KEYS), colour),
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
    items = [_without_managed_fields(q.obj) for q in quotas]
    return table.as_list(items, output)


def describe(quota: Quota, *, colour: bool = False, at: datetime | None = None) -> str:
    """`describe quota`: who, which quota, and per resource used/hard and percent."""
    lines = [
        f"User:         {quota.user}",
        f"Quota:        {quota.name}",
        f"Description:  {quota.description or '-'}",
        f"Age:          {table.age(quota.created, at)}",
        "",
    ]
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


def in_unit_of(used: str, hard: str) -> str:
    """`used` written with `hard`'s suffix when that is exact to two decimals, else as is:
    2Gi of 20Gi reads `2Gi`, 2500m of 10 reads `2.5`, 1 byte of 20Gi stays `1`."""
    try:
        amount = quantity.parse(used)
        quantity.parse(hard)
    except ValueError:
        return used
    suffix = _suffix(hard)
    if suffix is None:
        return used
    scaled = amount / quantity.parse("1" + suffix)
    if scaled != scaled.quantize(Decimal("0.01")):
        return used
    if scaled == 0:
        return "0"
    return format(scaled.normalize(), "f") + suffix


def _suffix(value: str) -> str | None:
    """The unit suffix of a plain quantity (`Gi`, `k`, "" for whole units); None for
    exponents and milli-units, which gain nothing from rescaling."""
    value = value.strip()
    for suffix in (*_BINARY, *_DECIMAL):
        if value.endswith(suffix):
            return suffix
    if value and value[-1].isdigit() and "e" not in value.lower():
        return ""
    return None


def _columns(lines: list[list[str]]) -> list[str]:
    """Columns two spaces apart, as kubectl describe's tabwriter."""
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


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    # kubectl hides managedFields unless asked (--show-managed-fields)
    copy: dict[str, Any] = json.loads(json.dumps(obj))
    (copy.get("metadata") or {}).pop("managedFields", None)
    head = {"apiVersion": copy.pop("apiVersion", "v1"), "kind": copy.pop("kind", "ResourceQuota")}
    return {**head, **copy}
