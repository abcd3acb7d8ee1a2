"""Defaulting as the API server does it, for the fields gpuctl's objects and kubectl show."""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from typing import Any

from gpuctl.sandbox import quantity


def _containers(spec: dict[str, Any], is_pod: bool) -> None:
    for field in ("containers", "initContainers"):
        for c in spec.get(field) or []:
            if "imagePullPolicy" not in c:
                latest = _image_tag(str(c.get("image", ""))) == "latest"
                c["imagePullPolicy"] = "Always" if latest else "IfNotPresent"
            c.setdefault("terminationMessagePath", "/dev/termination-log")
            c.setdefault("terminationMessagePolicy", "File")
            for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
                if isinstance(c.get(kind), dict):
                    _probe(c[kind])
            for handler in ((c.get("lifecycle") or {}).get(h) for h in ("postStart", "preStop")):
                if isinstance(handler, dict):
                    _handler(handler)
            resources = c.setdefault("resources", {})
            if is_pod and resources.get("limits"):
                # requests default to limits for whatever is only limited (Pods, not templates)
                requests = resources.setdefault("requests", {})
                for name, value in resources["limits"].items():
                    requests.setdefault(name, value)
            for port in c.get("ports") or []:
                port.setdefault("protocol", "TCP")
            for env in c.get("env") or []:
                _field_ref(env.get("valueFrom") or {})


def _image_tag(image: str) -> str:
    """The image's tag; "latest" when it names neither a tag nor a digest (an empty image
    has no tag at all), as the kubelet's image-name parser reads it."""
    if not image:
        return ""
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.rpartition(":")[2] if ":" in last else ""
    return tag or ("" if digest else "latest")


def _field_ref(holder: dict[str, Any]) -> None:
    """A fieldRef (in an env var's valueFrom or a downward API item) names API version v1."""
    field_ref = holder.get("fieldRef")
    if isinstance(field_ref, dict):
        field_ref.setdefault("apiVersion", "v1")


def _probe(probe: dict[str, Any]) -> None:
    probe.setdefault("timeoutSeconds", 1)
    probe.setdefault("periodSeconds", 10)
    probe.setdefault("successThreshold", 1)
    probe.setdefault("failureThreshold", 3)
    _handler(probe)


def _handler(handler: dict[str, Any]) -> None:
    """A probe's or lifecycle hook's action: an httpGet checks "/" over HTTP unless told."""
    http_get = handler.get("httpGet")
    if isinstance(http_get, dict):
        http_get.setdefault("path", "/")
        http_get.setdefault("scheme", "HTTP")


def pod_spec(spec: dict[str, Any], is_pod: bool = False) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    _containers(spec, is_pod)
    for volume in spec.get("volumes") or []:
        if "hostPath" in volume:
            volume["hostPath"].setdefault("type", "")
        for kind in ("configMap", "secret", "downwardAPI", "projected"):
            if isinstance(volume.get(kind), dict):
                volume[kind].setdefault("defaultMode", 420)
        downward = [volume.get("downwardAPI") or {}] + [
            source.get("downwardAPI") or {}
            for source in (volume.get("projected") or {}).get("sources") or []
        ]
        for item in (item for d in downward for item in d.get("items") or []):
            _field_ref(item)
    if is_pod:
        spec.setdefault("serviceAccountName", "default")
        spec.setdefault("serviceAccount", spec["serviceAccountName"])
        spec.setdefault("priority", 0)
        spec.setdefault("enableServiceLinks", True)
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
        spec.setdefault(
            "tolerations",
            [
                {
                    "key": f"node.kubernetes.io/{what}",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                }
                for what in ("not-ready", "unreachable")
            ],
        )


def _template(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.setdefault("spec", {})
    template = spec.setdefault("template", {})
    template.setdefault("metadata", {})
    pod_spec(template.setdefault("spec", {}))
    result: dict[str, Any] = spec
    return result


def schema_defaults(schema: dict[str, Any], value: Any) -> None:
    """A custom resource's structural defaulting: every field its CRD schema gives a
    `default` is filled in where missing, then defaulted itself (objects and array items)."""
    if isinstance(value, dict):
        for name, child in (schema.get("properties") or {}).items():
            if not isinstance(child, dict):
                continue
            if name not in value and "default" in child:
                value[name] = copy.deepcopy(child["default"])
            if name in value:
                schema_defaults(child, value[name])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            schema_defaults(schema["items"], item)


def apply_defaults(kind: str, obj: dict[str, Any], uid: str, creating: bool = True) -> None:
    """Defaults for `kind`; `creating` adds what only creation does (a Job's selector)."""
    if kind == "Pod":
        pod_spec(obj.setdefault("spec", {}), is_pod=True)
    elif kind == "Job":
        _job(obj, uid, creating)
    else:
        default = _KIND_DEFAULTS.get(kind)
        if default is not None:
            default(obj)


def _job(obj: dict[str, Any], uid: str, creating: bool) -> None:
    spec = _template(obj)
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    # with a podFailurePolicy only failed pods are replaced, not terminating ones
    spec.setdefault(
        "podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed"
    )
    # the server generates a Job's selector and labels on create only: a replace without
    # them fails validation, as on a real cluster
    if creating and not spec.get("manualSelector"):
        labels = spec["template"]["metadata"].setdefault("labels", {})
        job_uid = (
            spec.get("selector", {})
            .get("matchLabels", {})
            .get("batch.kubernetes.io/controller-uid", uid)
        )
        name = obj["metadata"]["name"]
        labels.setdefault("batch.kubernetes.io/controller-uid", job_uid)
        labels.setdefault("batch.kubernetes.io/job-name", name)
        labels.setdefault("controller-uid", job_uid)
        labels.setdefault("job-name", name)
        spec.setdefault(
            "selector", {"matchLabels": {"batch.kubernetes.io/controller-uid": job_uid}}
        )


def _deployment(obj: dict[str, Any]) -> None:
    spec = _template(obj)
    spec.setdefault("replicas", 1)
    strategy = spec.setdefault("strategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)


def _replicaset(obj: dict[str, Any]) -> None:
    _template(obj).setdefault("replicas", 1)


def _statefulset(obj: dict[str, Any]) -> None:
    spec = _template(obj)
    spec.setdefault("replicas", 1)
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        strategy.setdefault("rollingUpdate", {}).setdefault("partition", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault(
        "persistentVolumeClaimRetentionPolicy",
        {"whenDeleted": "Retain", "whenScaled": "Retain"},
    )


def _service(obj: dict[str, Any]) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if spec["sessionAffinity"] == "ClientIP" and spec.get("sessionAffinityConfig") is None:
        spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}  # 3 hours
    if spec["type"] == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)
    for port in spec.get("ports") or []:
        port.setdefault("protocol", "TCP")
        port.setdefault("targetPort", port.get("port"))
    spec.setdefault("internalTrafficPolicy", "Cluster")
    if spec["type"] in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    spec.setdefault("ipFamilies", ["IPv4"])
    spec.setdefault("ipFamilyPolicy", "SingleStack")


def _namespace(obj: dict[str, Any]) -> None:
    obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    labels = obj["metadata"].setdefault("labels", {})
    labels["kubernetes.io/metadata.name"] = obj["metadata"]["name"]


def _priority_class(obj: dict[str, Any]) -> None:
    obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _secret(obj: dict[str, Any]) -> None:
    obj.setdefault("type", "Opaque")
    string_data = obj.pop("stringData", None) or {}
    data = obj.setdefault("data", {}) if string_data else obj.get("data")
    for key, value in string_data.items():
        assert data is not None
        data[key] = base64.b64encode(str(value).encode()).decode()


def _hpa(obj: dict[str, Any]) -> None:
    obj.setdefault("spec", {}).setdefault("minReplicas", 1)


_KIND_DEFAULTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "Deployment": _deployment,
    "ReplicaSet": _replicaset,
    "StatefulSet": _statefulset,
    "Service": _service,
    "Namespace": _namespace,
    "PriorityClass": _priority_class,
    "Secret": _secret,
    "HorizontalPodAutoscaler": _hpa,
}


def qos_class(spec: dict[str, Any]) -> str:
    """The pod's QoS class, from CPU and memory only (extended resources such as GPUs do not
    count): none asked for, BestEffort; limits of both equal to the requests, Guaranteed."""
    requests_any = False
    guaranteed = True
    for c in spec.get("containers") or []:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for name in ("cpu", "memory"):
            if name in req or name in lim:
                requests_any = True
            if name not in lim or quantity.parse(req.get(name, lim[name])) != quantity.parse(
                lim[name]
            ):
                guaranteed = False
    if not requests_any:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
