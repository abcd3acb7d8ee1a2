"""What the API machinery does to an object's fields whatever the verb: decoding a request
body, the names it generates, the status a new object starts with, what an update keeps from the
stored object, and when metadata.generation moves."""

from __future__ import annotations

import copy
import random
from typing import Any

from gpuctl.sandbox import defaults
from gpuctl.sandbox.errors import bad_request, conflict
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.store import Obj

_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
GENERATION_KINDS = {
    "Pod",  # since 1.33: a resize moves it
    "Job",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    "CustomResourceDefinition",
}


def random_suffix(n: int = 5) -> str:
    return "".join(random.choice(_ALPHANUMS) for _ in range(n))


def decode(res: Resource, body: Any) -> Obj:
    if not isinstance(body, dict):
        raise bad_request(
            f'{res.kind} in version "{res.version}" cannot be handled as a {res.kind}: '
            "json: cannot unmarshal into Go value of type struct"
        )
    # decoding into the typed object turns a null into "not set"
    obj: Obj = without_nulls(body) if res.crd_schema is None else copy.deepcopy(body)
    api_version = obj.setdefault("apiVersion", res.api_version)
    kind = obj.setdefault("kind", res.kind)
    if kind != res.kind or api_version != res.api_version:
        raise bad_request(
            f"the API version in the data ({api_version}) does not match the expected API "
            f"version ({res.api_version})"
            if api_version != res.api_version
            else f"the kind in the data ({kind}) does not match the expected kind ({res.kind})"
        )
    if not isinstance(obj.get("metadata", {}), dict):
        raise bad_request("metadata must be an object")
    return obj


def place_in_namespace(res: Resource, meta: dict[str, Any], namespace: str) -> None:
    """A new object's namespace: the request's, which the body may repeat but not contradict
    ("default" when neither names one); none for a cluster-scoped kind."""
    if res.namespaced:
        body_ns = meta.get("namespace")
        if body_ns and namespace and body_ns != namespace:
            raise bad_request(
                "the namespace of the provided object does not match the namespace sent on "
                "the request"
            )
        meta["namespace"] = namespace or body_ns or "default"
    else:
        meta.pop("namespace", None)


def clear_server_fields(meta: dict[str, Any]) -> None:
    """Drop the metadata a client may not set on a new object: the server sets it."""
    for key in (
        "resourceVersion",
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "selfLink",
        "managedFields",
    ):
        meta.pop(key, None)


def check_update_target(res: Resource, old: Obj, meta: dict[str, Any], name: str) -> None:
    """An update names the stored object's namespace (or none, which it takes) and, when it
    names a resourceVersion, the stored one."""
    if res.namespaced:
        if meta.get("namespace") and meta["namespace"] != old["metadata"]["namespace"]:
            raise bad_request(
                "the namespace of the provided object does not match the namespace sent "
                "on the request"
            )
        meta["namespace"] = old["metadata"]["namespace"]
    if (
        meta.get("resourceVersion")
        and meta["resourceVersion"] != old["metadata"]["resourceVersion"]
    ):
        raise conflict(res, name)


def initial_status(res: Resource, obj: Obj) -> None:
    if res.kind == "Namespace":
        obj["status"] = {"phase": "Active"}
    elif res.kind == "Pod":
        status = obj.get("status") or {}
        status.setdefault("phase", "Pending")
        status.setdefault("qosClass", defaults.qos_class(obj["spec"]))
        obj["status"] = status
    elif res.kind == "Service":
        obj["status"] = {"loadBalancer": {}}
    elif res.kind in (
        "Job",
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "HorizontalPodAutoscaler",
    ):
        obj["status"] = {"replicas": 0} if res.kind in ("ReplicaSet", "StatefulSet") else {}
        if res.kind == "HorizontalPodAutoscaler":
            obj["status"] = {"currentReplicas": 0, "desiredReplicas": 0}
    elif res.kind == "PodDisruptionBudget":  # counted by the disruption controller later
        obj["status"] = {
            "disruptionsAllowed": 0,
            "currentHealthy": 0,
            "desiredHealthy": 0,
            "expectedPods": 0,
        }


def without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def generation_moves(res: Resource, old: Obj, new: Obj) -> bool:
    """A change to the spec moves metadata.generation; so does a change to a Deployment's
    annotations, which the real API server counts because its ReplicaSets copy them (its own
    controller writes the revision annotation through the status subresource, which moves
    nothing)."""
    if _spec_of(new) != _spec_of(old):
        return True
    annotations = [(obj["metadata"].get("annotations") or {}) for obj in (old, new)]
    return res.key == ("apps", "deployments") and annotations[0] != annotations[1]


def _spec_of(obj: Obj) -> Any:
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


def same_object(old: Obj, new: Obj) -> bool:
    a = dict(old, metadata={k: v for k, v in old["metadata"].items() if k != "resourceVersion"})
    b = dict(new, metadata={k: v for k, v in new["metadata"].items() if k != "resourceVersion"})
    return a == b


def carry_over(res: Resource, old: Obj, new: Obj, subresource: str) -> Obj:
    """What a write keeps from the stored object: the server-set metadata; the status unless it
    writes the status subresource (which keeps everything else); a Namespace's spec unless it
    writes the finalize subresource."""
    meta, old_meta = new["metadata"], old["metadata"]
    for key in (
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "generateName",
    ):
        if key in old_meta:
            meta[key] = old_meta[key]
        else:
            meta.pop(key, None)
    if subresource == "status":
        status, annotations = new.get("status"), meta.get("annotations")
        new = copy.deepcopy(old)
        new["status"] = status
        if status is None:  # a merge patch that removes it
            new.pop("status")
        if res.key == ("apps", "deployments"):  # the Deployment controller writes its revision
            new["metadata"].pop("annotations", None)  # annotation this way
            if annotations:
                new["metadata"]["annotations"] = annotations
    elif "status" in res.subresources or res.kind == "Namespace":
        if "status" in old:
            new["status"] = copy.deepcopy(old["status"])
        else:
            new.pop("status", None)
    if res.kind == "Namespace" and subresource != "finalize":
        new["spec"] = copy.deepcopy(old.get("spec", {}))
    return new
