"""What every simulated controller shares: the API and store, the resources they work on, and
helpers that create, update and delete objects and set conditions as the real controllers do."""

from __future__ import annotations

import contextlib
import copy
import hashlib
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gpuctl.sandbox import quantity
from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.errors import ApiError
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339

TERMINAL_PHASES = ("Succeeded", "Failed")
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


class Controller:
    """One simulated controller; the loop calls `reconcile` on every pass."""

    name = ""

    def __init__(self, api: Api, config: SandboxConfig, due: Callable[[float], None]) -> None:
        self.api = api
        self.config = config
        self.store = api.store
        self.due = due  # ask for a pass at this time even if nothing changes
        reg = api.registry
        self.pods = reg.get("", "pods")
        self.nodes = reg.get("", "nodes")
        self.namespaces = reg.get("", "namespaces")
        self.jobs = reg.get("batch", "jobs")
        self.deployments = reg.get("apps", "deployments")
        self.replicasets = reg.get("apps", "replicasets")
        self.statefulsets = reg.get("apps", "statefulsets")
        self.quotas = reg.get("", "resourcequotas")
        self.hpas = reg.get("autoscaling", "horizontalpodautoscalers")

    def reconcile(self, now: float) -> None:
        raise NotImplementedError

    def owned_pods(self, owner: Obj) -> list[Obj]:
        uid = owner["metadata"]["uid"]
        out = []
        for key, ns, name in self.store.dependents(uid):
            if key == self.pods.key:
                pod = self.store.get(key, ns, name)
                if pod is not None and owned_by(pod, uid):
                    out.append(pod)
        return out

    def create_pod(
        self,
        owner_res: Resource,
        owner: Obj,
        template: Obj,
        *,
        name: str = "",
        labels: dict[str, str] | None = None,
        annotations: dict[str, str] | None = None,
        hostname: str = "",
        subdomain: str = "",
        env: list[Obj] | None = None,
        generate_name: str = "",
    ) -> Obj | None:
        """A pod from `template` owned by `owner`; None (and a FailedCreate event) if refused."""
        meta = copy.deepcopy(template.get("metadata") or {})
        meta.pop("name", None)
        meta.pop("namespace", None)
        meta["labels"] = {**(meta.get("labels") or {}), **(labels or {})}
        if annotations or meta.get("annotations"):
            meta["annotations"] = {**(meta.get("annotations") or {}), **(annotations or {})}
        if name:
            meta["name"] = name
        else:
            meta["generateName"] = generate_name or f"{owner['metadata']['name']}-"
        meta["ownerReferences"] = [owner_ref(owner_res, owner)]
        spec = copy.deepcopy(template.get("spec") or {})
        if hostname:
            spec["hostname"] = hostname
        if subdomain:
            spec["subdomain"] = subdomain
        if env:
            for c in spec.get("containers") or []:
                c["env"] = [*env, *(c.get("env") or [])]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        try:
            return self.api.create(self.pods, owner["metadata"]["namespace"], pod, internal=True)
        except ApiError as err:
            message = f"Error creating: {err.message}"
            if owner_res.kind == "StatefulSet":
                owner_name = owner["metadata"]["name"]
                message = (
                    f"create Pod {name} in StatefulSet {owner_name} failed error: {err.message}"
                )
            self.api.emit_event(owner, "Warning", "FailedCreate", message, component(owner_res))
            return None

    def delete(self, res: Resource, obj: Obj, propagation: str = "Background") -> None:
        with contextlib.suppress(ApiError):
            self.api.deletion.delete(
                res,
                obj["metadata"].get("namespace", ""),
                obj["metadata"]["name"],
                propagation=propagation,
            )

    def set_status(self, res: Resource, obj: Obj, status: Obj) -> Obj:
        if obj.get("status") == status:
            return obj
        new = copy.deepcopy(obj)
        new["status"] = status
        try:
            return self.api.update(
                res,
                obj["metadata"].get("namespace", ""),
                obj["metadata"]["name"],
                new,
                subresource="status",
                internal=True,
            )
        except ApiError:
            return obj

    def update(self, res: Resource, obj: Obj, subresource: str = "") -> Obj | None:
        try:
            return self.api.update(
                res,
                obj["metadata"].get("namespace", ""),
                obj["metadata"]["name"],
                obj,
                subresource=subresource,
                internal=True,
            )
        except ApiError:
            return None


def template_hash(template: Any) -> str:
    digest = hashlib.sha256(repr(sorted(_flatten(template))).encode()).digest()
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:10])


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [
            item for k, v in value.items() if v is not None for item in _flatten(v, f"{prefix}.{k}")
        ]
    if isinstance(value, list):
        return [item for i, v in enumerate(value) for item in _flatten(v, f"{prefix}[{i}]")]
    return [(prefix, repr(value))]


def set_condition(
    conditions: list[Obj],
    type_: str,
    status: str,
    reason: str = "",
    message: str = "",
    probe: bool = False,
) -> list[Obj]:
    """Set one condition, keeping lastTransitionTime when the status does not change."""
    now = now_rfc3339()
    out = [c for c in conditions if c.get("type") != type_]
    old = next((c for c in conditions if c.get("type") == type_), None)
    cond: Obj = {"type": type_, "status": status}
    if probe:
        cond["lastProbeTime"] = None
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    unchanged = old is not None and old.get("status") == status
    cond["lastTransitionTime"] = old.get("lastTransitionTime", now) if unchanged and old else now
    if (old is not None and "lastUpdateTime" in old) or type_ in ("Available", "Progressing"):
        same = (
            unchanged
            and old is not None
            and old.get("reason") == reason
            and old.get("message") == message
        )
        cond["lastUpdateTime"] = old.get("lastUpdateTime", now) if same and old else now
    if old is not None and {k: v for k, v in old.items()} == cond:
        cond = old
    out.append(cond)
    return out


def has_condition(conditions: list[Obj], type_: str) -> bool:
    """Whether a condition of this type is present with status True."""
    return any(c.get("type") == type_ and c.get("status") == "True" for c in conditions)


def owned_by(obj: Obj, uid: str) -> bool:
    return any(
        r.get("uid") == uid and r.get("controller")
        for r in obj["metadata"].get("ownerReferences") or []
    )


def owner_ref(res: Resource, owner: Obj) -> Obj:
    return {
        "apiVersion": res.api_version,
        "kind": res.kind,
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def pod_ready(pod: Obj) -> bool:
    return has_condition((pod.get("status") or {}).get("conditions") or [], "Ready")


def phase(pod: Obj) -> str:
    return str((pod.get("status") or {}).get("phase", "Pending"))


def pod_requests(pod: Obj) -> dict[str, Fraction]:
    """What a pod asks of a node: requests, defaulting to limits, plus one pod slot."""
    total: dict[str, Fraction] = {"pods": Fraction(1)}
    for c in (pod.get("spec") or {}).get("containers") or []:
        resources = c.get("resources") or {}
        merged = dict(resources.get("limits") or {})
        merged.update(resources.get("requests") or {})
        for name, value in merged.items():
            total[name] = total.get(name, Fraction(0)) + quantity.parse(value)
    return total


def component(res: Resource) -> str:
    """The event source of the controller that manages `res`'s pods."""
    return {
        "Job": "job-controller",
        "ReplicaSet": "replicaset-controller",
        "StatefulSet": "statefulset-controller",
    }.get(res.kind, "controller-manager")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
