"""The scale subresource: a workload's replicas as an autoscaling/v1 Scale, read and written."""

from __future__ import annotations

import copy
from typing import Any

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.errors import ApiError, conflict
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.selectors import selector_string


def scale_of(res: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj["metadata"]
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: meta[k]
            for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if k in meta
        },
        "spec": {"replicas": (obj.get("spec") or {}).get("replicas", 0)},
        "status": {
            "replicas": (obj.get("status") or {}).get("replicas", 0),
            "selector": selector_string((obj.get("spec") or {}).get("selector")),
        },
    }


def set_scale(
    api: Api, res: Resource, ns: str, name: str, scale: Any, dry_run: bool
) -> dict[str, Any]:
    replicas = (scale.get("spec") or {}).get("replicas") if isinstance(scale, dict) else None
    if not isinstance(replicas, int) or replicas < 0:
        raise ApiError(
            422,
            "Invalid",
            f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: '
            f"{replicas}: must be greater than or equal to 0",
        )
    with api.store.lock:
        obj = copy.deepcopy(api.get(res, ns, name))
        rv = (scale.get("metadata") or {}).get("resourceVersion")
        if rv and rv != obj["metadata"]["resourceVersion"]:
            raise conflict(res, name)
        obj["spec"]["replicas"] = replicas
        updated = api.update(res, ns, name, obj, dry_run=dry_run, internal=True)
    return scale_of(res, updated)
