"""The HorizontalPodAutoscaler controller: min/max enforcement as the real HPA does it. There is
no metrics server, so no metric-based scaling: ScalingActive says why, in the real words."""

from __future__ import annotations

import copy

from gpuctl.sandbox.controllers.base import Controller, set_condition
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339

ABOVE_MAX = "Current number of replicas above Spec.MaxReplicas"
BELOW_MIN = "Current number of replicas below Spec.MinReplicas"


class HorizontalPodAutoscalerController(Controller):
    name = "horizontal-pod-autoscaler"

    def reconcile(self, now: float) -> None:
        for hpa in self.store.objects(self.hpas.key, None):
            self._sync(hpa)

    def _target(self, hpa: Obj) -> tuple[Resource | None, Obj | None]:
        ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        target_res = {
            "Deployment": self.deployments,
            "StatefulSet": self.statefulsets,
            "ReplicaSet": self.replicasets,
        }.get(ref.get("kind", ""))
        if target_res is None:
            return None, None
        ns = hpa["metadata"]["namespace"]
        return target_res, self.store.get(target_res.key, ns, ref.get("name", ""))

    def _sync(self, hpa: Obj) -> None:
        spec = hpa.get("spec") or {}
        status = copy.deepcopy(hpa.get("status") or {})
        conditions = status.get("conditions") or []
        target_res, target = self._target(hpa)
        if target is None or target_res is None:
            ref = spec.get("scaleTargetRef") or {}
            kind = str(ref.get("kind", "")).lower()
            status["conditions"] = set_condition(
                conditions,
                "AbleToScale",
                "False",
                "FailedGetScale",
                "the HPA controller was unable to get the target's current scale: "
                f'{kind}s.apps "{ref.get("name", "")}" not found',
            )
            self.set_status(self.hpas, hpa, status)
            return
        current = int((target.get("spec") or {}).get("replicas", 1))
        low, high = int(spec.get("minReplicas", 1)), int(spec.get("maxReplicas", 1))
        desired, reason = current, ""
        if current > high:
            desired, reason = high, ABOVE_MAX
        elif 0 < current < low:
            desired, reason = low, BELOW_MIN
        conditions = _able_to_scale(conditions, desired, bool(reason))
        if current == 0 and low != 0:
            conditions = set_condition(
                conditions,
                "ScalingActive",
                "False",
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero",
            )
        else:
            conditions = set_condition(conditions, "ScalingActive", "False", *_metric_failure(spec))
        if reason:
            self._rescale(hpa, target_res, target, desired, reason)
            status["lastScaleTime"] = now_rfc3339()
        conditions = set_condition(
            conditions, "ScalingLimited", *_limited(current, desired, low, high)
        )
        status["currentReplicas"] = current
        status["desiredReplicas"] = desired
        status["conditions"] = conditions
        self.set_status(self.hpas, hpa, status)

    def _rescale(
        self, hpa: Obj, target_res: Resource, target: Obj, desired: int, reason: str
    ) -> None:
        new = copy.deepcopy(target)
        new["spec"]["replicas"] = desired
        self.update(target_res, new)
        self.api.emit_event(
            hpa,
            "Normal",
            "SuccessfulRescale",
            f"New size: {desired}; reason: {reason}",
            "horizontal-pod-autoscaler",
        )


def _able_to_scale(conditions: list[Obj], desired: int, rescaled: bool) -> list[Obj]:
    return set_condition(
        conditions,
        "AbleToScale",
        "True",
        "SucceededRescale" if rescaled else "SucceededGetScale",
        f"the HPA controller was able to update the target scale to {desired}"
        if rescaled
        else "the HPA controller was able to get the target's current scale",
    )


def _limited(current: int, desired: int, low: int, high: int) -> tuple[str, str, str]:
    """The ScalingLimited condition's status, reason and message."""
    if desired <= low and current < low:
        return (
            "True",
            "TooFewReplicas",
            "the desired replica count is less than the minimum replica count",
        )
    if current > high:
        return (
            "True",
            "TooManyReplicas",
            "the desired replica count is more than the maximum replica count",
        )
    return ("False", "DesiredWithinRange", "the desired count is within the acceptable range")


def _metric_failure(spec: Obj) -> tuple[str, str]:
    """The reason and message the real HPA gives when no metrics API answers."""
    metric = (spec.get("metrics") or [{"type": "Resource", "resource": {"name": "cpu"}}])[0]
    kind = metric.get("type", "Resource")
    head = "the HPA was unable to compute the replica count: "
    if kind == "Resource":
        name = (metric.get("resource") or {}).get("name", "cpu")
        return (
            "FailedGetResourceMetric",
            f"{head}failed to get {name} utilization: unable to get metrics for resource {name}: "
            "unable to fetch metrics from resource metrics API: the server could not find the "
            "requested resource (get pods.metrics.k8s.io)",
        )
    section = metric.get(kind[0].lower() + kind[1:]) or {}
    name = (section.get("metric") or {}).get("name", "")
    api = "external.metrics.k8s.io" if kind == "External" else "custom.metrics.k8s.io"
    which = "external" if kind == "External" else "custom"
    return (
        f"FailedGet{kind}Metric",
        f"{head}unable to get metric {name}: unable to fetch metrics from {which} metrics API: "
        f"no {which} metrics API ({api}) registered",
    )
