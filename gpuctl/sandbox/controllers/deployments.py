"""The Deployment controller: one ReplicaSet per pod template, rolled out (RollingUpdate or
Recreate), old ones scaled down and pruned to revisionHistoryLimit, revisions numbered."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

from gpuctl.sandbox.controllers.base import (
    Controller,
    owned_by,
    owner_ref,
    set_condition,
    template_hash,
)
from gpuctl.sandbox.errors import ApiError
from gpuctl.sandbox.store import Obj

REVISION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"


class DeploymentController(Controller):
    name = "deployment-controller"

    def reconcile(self, now: float) -> None:
        for dep in self.store.objects(self.deployments.key, None):
            if not dep["metadata"].get("deletionTimestamp"):
                self._sync(dep)

    def _sync(self, dep: Obj) -> None:
        spec = dep["spec"]
        replicas = int(spec.get("replicas", 1))
        rs_name = f"{dep['metadata']['name']}-{template_hash(spec['template'])}"[:253]
        owned = self._owned_replicasets(dep)
        conditions = (dep.get("status") or {}).get("conditions") or []
        current = next((rs for rs in owned if rs["metadata"]["name"] == rs_name), None)
        if current is None:
            current = self._create_replicaset(dep, rs_name, owned)
            if current is None:
                return
            conditions = set_condition(
                conditions,
                "Progressing",
                "True",
                "NewReplicaSetCreated",
                f'Created new replica set "{rs_name}"',
            )
        elif int(current["spec"].get("replicas", 0)) != replicas:
            current = self._scale_current(dep, current, replicas)
        old = [rs for rs in owned if rs["metadata"]["name"] != rs_name]
        current, dep = self._sync_revision(dep, current, old)
        new_ready = int((current.get("status") or {}).get("availableReplicas", 0)) >= replicas
        recreate = (spec.get("strategy") or {}).get("type") == "Recreate"
        if new_ready or recreate:
            self._scale_down(dep, old)
        self._prune_history(old, int(spec.get("revisionHistoryLimit", 10)))
        self._write_status(dep, current, old, conditions, new_ready)

    def _owned_replicasets(self, dep: Obj) -> list[Obj]:
        uid = dep["metadata"]["uid"]
        return [
            rs
            for key, ns, n in self.store.dependents(uid)
            if key == self.replicasets.key
            for rs in [self.store.get(key, ns, n)]
            if rs is not None and owned_by(rs, uid)
        ]

    def _create_replicaset(self, dep: Obj, rs_name: str, owned: list[Obj]) -> Obj | None:
        spec = dep["spec"]
        replicas = int(spec.get("replicas", 1))
        pod_hash = rs_name.rsplit("-", 1)[-1]
        rs_template = copy.deepcopy(spec["template"])
        rs_template.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = (
            pod_hash
        )
        selector = copy.deepcopy(spec["selector"])
        selector.setdefault("matchLabels", {})["pod-template-hash"] = pod_hash
        revision = max((_revision(rs) for rs in owned), default=0) + 1
        rs_obj: Obj = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": rs_name,
                "labels": dict(rs_template["metadata"]["labels"]),
                "annotations": {
                    DESIRED_REPLICAS: str(replicas),
                    "deployment.kubernetes.io/max-replicas": str(replicas + 1),
                    REVISION: str(revision),
                },
                "ownerReferences": [owner_ref(self.deployments, dep)],
            },
            "spec": {"replicas": replicas, "selector": selector, "template": rs_template},
        }
        try:
            created = self.api.create(
                self.replicasets, dep["metadata"]["namespace"], rs_obj, internal=True
            )
        except ApiError:
            return None
        self._scaled(dep, f"Scaled up replica set {rs_name} from 0 to {replicas}")
        return created

    def _scale_current(self, dep: Obj, current: Obj, replicas: int) -> Obj:
        before = int(current["spec"].get("replicas", 0))
        new = copy.deepcopy(current)
        new["spec"]["replicas"] = replicas
        new["metadata"].setdefault("annotations", {})[DESIRED_REPLICAS] = str(replicas)
        updated = self.update(self.replicasets, new) or current
        direction = "up" if replicas > before else "down"
        name = current["metadata"]["name"]
        self._scaled(dep, f"Scaled {direction} replica set {name} from {before} to {replicas}")
        return updated

    def _sync_revision(self, dep: Obj, current: Obj, old: list[Obj]) -> tuple[Obj, Obj]:
        """The live ReplicaSet carries the highest revision (a rollback re-numbers an old one),
        and the Deployment repeats it, as the real controller does."""
        others = [_revision(rs) for rs in old]
        revision = _revision(current)
        if others and revision <= max(others):
            renumbered = copy.deepcopy(current)
            revision = max(others) + 1
            renumbered["metadata"].setdefault("annotations", {})[REVISION] = str(revision)
            current = self.update(self.replicasets, renumbered) or current
        if dep["metadata"].get("annotations", {}).get(REVISION) != str(revision):
            annotated = copy.deepcopy(dep)
            annotated["metadata"].setdefault("annotations", {})[REVISION] = str(revision)
            # through the status subresource, as the real controller does: no new generation
            dep = self.update(self.deployments, annotated, "status") or dep
        return current, dep

    def _scale_down(self, dep: Obj, old: list[Obj]) -> None:
        for rs in old:
            before = int(rs["spec"].get("replicas", 0))
            if not before:
                continue
            new = copy.deepcopy(rs)
            new["spec"]["replicas"] = 0
            self.update(self.replicasets, new)
            self._scaled(
                dep, f"Scaled down replica set {rs['metadata']['name']} from {before} to 0"
            )

    def _prune_history(self, old: list[Obj], limit: int) -> None:
        idle = sorted(
            (
                rs
                for rs in old
                if not rs["spec"].get("replicas") and not (rs.get("status") or {}).get("replicas")
            ),
            key=_revision,
        )
        for rs in idle[: max(len(idle) - limit, 0)]:
            self.delete(self.replicasets, rs)

    def _scaled(self, dep: Obj, message: str) -> None:
        self.api.emit_event(dep, "Normal", "ScalingReplicaSet", message, "deployment-controller")

    def _write_status(
        self, dep: Obj, current: Obj, old: list[Obj], conditions: list[Obj], new_ready: bool
    ) -> None:
        spec = dep["spec"]
        replicas = int(spec.get("replicas", 1))
        all_rs = [current, *old]

        def total(field: str) -> int:
            return sum(int((rs.get("status") or {}).get(field, 0)) for rs in all_rs)

        available = total("availableReplicas")
        updated = int((current.get("status") or {}).get("replicas", 0))
        max_unavailable = _percent_or_int(
            (spec.get("strategy") or {}).get("rollingUpdate", {}).get("maxUnavailable", 0),
            replicas,
            round_up=False,
        )
        conditions = _available(conditions, available >= replicas - max_unavailable)
        conditions = _progressing(
            conditions,
            current["metadata"]["name"],
            new_ready and updated == replicas and total("replicas") == replicas,
            updated,
        )
        order = {"Available": 0, "Progressing": 1}
        status: Obj = {
            "observedGeneration": dep["metadata"].get("generation", 1),
            "replicas": total("replicas"),
            "updatedReplicas": updated,
            "readyReplicas": total("readyReplicas"),
            "availableReplicas": available,
            "conditions": sorted(conditions, key=lambda c: order.get(c["type"], 9)),
        }
        if replicas - available > 0:
            status["unavailableReplicas"] = replicas - available
        for key in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"):
            if not status[key]:
                del status[key]
        self.set_status(self.deployments, dep, status)


def _available(conditions: list[Obj], available: bool) -> list[Obj]:
    if available:
        return set_condition(
            conditions,
            "Available",
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
        )
    return set_condition(
        conditions,
        "Available",
        "False",
        "MinimumReplicasUnavailable",
        "Deployment does not have minimum availability.",
    )


def _progressing(conditions: list[Obj], rs_name: str, complete: bool, updated: int) -> list[Obj]:
    if complete:
        return set_condition(
            conditions,
            "Progressing",
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{rs_name}" has successfully progressed.',
        )
    just_created = any(
        c["type"] == "Progressing" and c.get("reason") == "NewReplicaSetCreated" for c in conditions
    )
    if just_created and not updated:
        return conditions
    return set_condition(
        conditions,
        "Progressing",
        "True",
        "ReplicaSetUpdated",
        f'ReplicaSet "{rs_name}" is progressing.',
    )


def _revision(rs: Obj) -> int:
    return int(rs["metadata"].get("annotations", {}).get(REVISION, 0))


def _percent_or_int(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        raw = Fraction(int(value[:-1]) * total, 100)
        return int(-(-raw // 1)) if round_up else int(raw // 1)
    return int(value or 0)
