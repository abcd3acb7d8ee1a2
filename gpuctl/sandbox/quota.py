"""ResourceQuota: what an object counts against a quota, what a namespace uses, and the
admission check that refuses an object going over a quota's hard limits."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from gpuctl.sandbox import quantity
from gpuctl.sandbox.errors import forbidden
from gpuctl.sandbox.resources import Registry, Resource
from gpuctl.sandbox.store import Obj, Store

# Core resources a quota counts by their plural (`pods: 10`) besides count/<resource>.
_COUNTED = {"pods", "services", "configmaps", "secrets", "resourcequotas"}


class Quotas:
    """The ResourceQuotas of the store, as the quota admission plugin and controller see them."""

    def __init__(self, registry: Registry, store: Store) -> None:
        self.registry = registry
        self.store = store

    def usage_of(self, res: Resource, obj: Obj) -> dict[str, Fraction]:
        """What one object counts against a ResourceQuota."""
        usage: dict[str, Fraction] = {}
        usage[f"count/{res.group_resource}"] = Fraction(1)
        if res.plural in _COUNTED and not res.group:
            usage[res.plural] = Fraction(1)
        if res.kind == "Service":
            spec = obj.get("spec") or {}
            if spec.get("type") in ("NodePort", "LoadBalancer"):
                usage["services.nodeports"] = Fraction(len(spec.get("ports") or []))
            if spec.get("type") == "LoadBalancer":
                usage["services.loadbalancers"] = Fraction(1)
        if res.kind == "Pod":
            if (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                return {}
            for c in (obj.get("spec") or {}).get("containers") or []:
                resources = c.get("resources") or {}
                requests = dict(resources.get("limits") or {})
                requests.update(resources.get("requests") or {})
                for rname, value in requests.items():
                    amount = quantity.parse(value)
                    keys = [f"requests.{rname}"]
                    if rname in ("cpu", "memory", "ephemeral-storage"):
                        keys.append(rname)
                    for key in keys:
                        usage[key] = usage.get(key, Fraction(0)) + amount
                for rname, value in (resources.get("limits") or {}).items():
                    key = f"limits.{rname}"
                    usage[key] = usage.get(key, Fraction(0)) + quantity.parse(value)
        return usage

    def used(self, namespace: str, hard: dict[str, Any]) -> dict[str, Fraction]:
        used = {key: Fraction(0) for key in hard}
        for res in self.registry.all():
            if not res.namespaced:
                continue
            if res.kind != "Pod" and not any(
                k
                in (
                    f"count/{res.group_resource}",
                    res.plural,
                    "services.nodeports",
                    "services.loadbalancers",
                )
                for k in hard
            ):
                continue
            for obj in self.store.objects(res.key, namespace):
                if res.kind == "Pod" and obj["metadata"].get("deletionTimestamp"):
                    continue
                for key, amount in self.usage_of(res, obj).items():
                    if key in used:
                        used[key] += amount
        return used

    def admit(self, res: Resource, namespace: str, obj: Obj) -> None:
        if not namespace or res.kind == "Event":
            return
        quota_res = self.registry.get("", "resourcequotas")
        quotas = self.store.objects(quota_res.key, namespace)
        if not quotas:
            return
        requested = self.usage_of(res, obj)
        name = obj["metadata"].get("name") or obj["metadata"].get("generateName", "")
        for quota in sorted(quotas, key=lambda q: q["metadata"]["name"]):
            hard = (quota.get("spec") or {}).get("hard") or {}
            if res.kind == "Pod":
                missing = _unspecified(hard, obj)
                if missing:
                    raise forbidden(
                        res,
                        name,
                        f"failed quota: {quota['metadata']['name']}: "
                        f"must specify {','.join(missing)}",
                    )
            relevant = {k: v for k, v in requested.items() if k in hard}
            if not relevant:
                continue
            used = self.used(namespace, hard)
            failed = sorted(k for k, v in relevant.items() if used[k] + v > quantity.parse(hard[k]))
            if failed:

                def fmt(values: dict[str, Any], keys: list[str] = failed) -> str:
                    return ",".join(
                        f"{k}={quantity.format_quantity(quantity.parse(values[k]), 'memory' in k)}"
                        for k in keys
                    )

                raise forbidden(
                    res,
                    name,
                    f"exceeded quota: {quota['metadata']['name']}, requested: {fmt(relevant)}, "
                    f"used: {fmt(used)}, limited: {fmt(hard)}",
                )


def _unspecified(hard: dict[str, Any], pod: Obj) -> list[str]:
    """The cpu and memory quotas a pod's containers do not all name a request or limit for:
    a quota on them makes the pod name them."""
    return sorted(
        k
        for k in hard
        if k
        in (
            "requests.cpu",
            "requests.memory",
            "limits.cpu",
            "limits.memory",
            "cpu",
            "memory",
        )
        and any(
            k.split(".")[-1]
            not in (
                (c.get("resources") or {}).get("limits" if k.startswith("limits") else "requests")
                or {}
            )
            for c in (pod.get("spec") or {}).get("containers") or []
        )
    )
