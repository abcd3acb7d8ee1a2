"""Quotas as users see them: per user namespace, used/hard of CPU, memory and GPUs.

Reads gpuctl-managed ResourceQuotas (status.used, status.hard) with one list request and turns
them into rows and lines; never prints. Quantities are compared exactly (gpuctl.spec.quantity).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.errors import GpuctlError
from gpuctl.spec import accelerators, quantity

DESCRIPTION_ANNOTATION = c.ANNOTATION_PREFIX + "description"
MANAGED_SELECTOR = f"{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE}"

# What a quota renders, in the order a person reads it; other keys follow, sorted.
RESOURCE_ORDER = (
    "requests.cpu",
    "limits.cpu",
    "requests.memory",
    "limits.memory",
    *(key for vendor in accelerators.VENDORS for key in vendor.quota_keys),
)
# The key each table column shows, first present wins (a hand-edited quota may use another).
CPU_KEYS = ("requests.cpu", "cpu", "limits.cpu")
MEMORY_KEYS = ("requests.memory", "memory", "limits.memory")
GPU_KEYS = (f"requests.{c.GPU_RESOURCE}", f"limits.{c.GPU_RESOURCE}")
# Every vendor's accelerator keys (gpuctl.spec.accelerators), NVIDIA's first.
ACCELERATOR_KEYS = (
    *GPU_KEYS,
    *(key for vendor in accelerators.VENDORS[1:] for key in vendor.quota_keys),
)


_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL = ("k", "M", "G", "T", "P", "E")


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


def list_quotas(cluster: ClusterAPI, user: str | None = None) -> list[Quota]:
    """Every gpuctl quota (across all namespaces, or the user's), sorted by user and name:
    one list request whatever the number of users."""
    items = cluster.list("ResourceQuota", user, label_selector=MANAGED_SELECTOR)
    quotas = [quota_of(item) for item in items]
    return sorted(quotas, key=lambda q: (q.user, q.name))


def user_quotas(cluster: ClusterAPI, user: str) -> list[Quota]:
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


def without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    # kubectl hides managedFields unless asked (--show-managed-fields)
    copy: dict[str, Any] = json.loads(json.dumps(obj))
    (copy.get("metadata") or {}).pop("managedFields", None)
    head = {"apiVersion": copy.pop("apiVersion", "v1"), "kind": copy.pop("kind", "ResourceQuota")}
    return {**head, **copy}
