"""The StatefulSet controller: pods NAME-0, NAME-1, … created in order (OrderedReady waits for
each to be ready) or all at once (Parallel), removed from the highest ordinal down, and
replaced one at a time, highest first, when the template changes (never, with updateStrategy
OnDelete: a pod of an old template is replaced only once someone deletes it)."""

from __future__ import annotations

from gpuctl.sandbox.controllers.base import Controller, pod_ready, template_hash
from gpuctl.sandbox.store import Obj

REVISION_LABEL = "controller-revision-hash"


class StatefulSetController(Controller):
    name = "statefulset-controller"

    def reconcile(self, now: float) -> None:
        for sts in self.store.objects(self.statefulsets.key, None):
            if not sts["metadata"].get("deletionTimestamp"):
                self._sync(sts)

    def _sync(self, sts: Obj) -> None:
        spec = sts["spec"]
        name = sts["metadata"]["name"]
        replicas = int(spec.get("replicas", 1))
        start = int((spec.get("ordinals") or {}).get("start", 0))
        ordered = spec.get("podManagementPolicy", "OrderedReady") == "OrderedReady"
        revision = f"{name}-{template_hash(spec['template'])}"
        pods: dict[int, Obj] = {}
        for pod in self.owned_pods(sts):
            suffix = pod["metadata"]["name"][len(name) + 1 :]
            if suffix.isdigit():
                pods[int(suffix)] = pod
        wanted = range(start, start + replicas)
        blocked = self._create_missing(sts, pods, wanted, ordered, revision)
        extra = sorted((o for o in pods if o not in wanted), reverse=True)
        for ordinal in extra[:1] if ordered else extra:
            self._delete_pod(sts, pods[ordinal])
        live = {o: p for o, p in pods.items() if o in wanted}
        on_delete = (spec.get("updateStrategy") or {}).get("type") == "OnDelete"
        if not blocked and not on_delete and all(pod_ready(p) for p in live.values()):
            self._replace_one_stale(live, revision)
        self._write_status(sts, live, revision)

    def _create_missing(
        self, sts: Obj, pods: dict[int, Obj], wanted: range, ordered: bool, revision: str
    ) -> bool:
        """Create the missing ordinals; True if an OrderedReady set must wait for a pod."""
        name = sts["metadata"]["name"]
        blocked = False
        for ordinal in wanted:
            existing = pods.get(ordinal)
            if existing is not None:
                if ordered and not pod_ready(existing):
                    blocked = True
                continue
            if blocked:
                break
            pod_name = f"{name}-{ordinal}"
            created = self.create_pod(
                self.statefulsets,
                sts,
                sts["spec"]["template"],
                name=pod_name,
                labels={
                    "statefulset.kubernetes.io/pod-name": pod_name,
                    "apps.kubernetes.io/pod-index": str(ordinal),
                    REVISION_LABEL: revision,
                },
                hostname=pod_name,
                subdomain=str(sts["spec"].get("serviceName") or ""),
            )
            if created is not None:
                pods[ordinal] = created
                self._event(sts, "SuccessfulCreate", f"create Pod {pod_name} in StatefulSet {name}")
            if ordered:
                blocked = True
        return blocked

    def _delete_pod(self, sts: Obj, pod: Obj) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            return
        self.delete(self.pods, pod)
        name = sts["metadata"]["name"]
        self._event(
            sts, "SuccessfulDelete", f"delete Pod {pod['metadata']['name']} in StatefulSet {name}"
        )

    def _replace_one_stale(self, live: dict[int, Obj], revision: str) -> None:
        stale = sorted(
            (o for o, p in live.items() if _revision(p) != revision),
            reverse=True,
        )
        if stale and not live[stale[0]]["metadata"].get("deletionTimestamp"):
            self.delete(self.pods, live[stale[0]])

    def _write_status(self, sts: Obj, live: dict[int, Obj], revision: str) -> None:
        active = [p for p in live.values() if not p["metadata"].get("deletionTimestamp")]
        ready = sum(1 for p in active if pod_ready(p))
        updated = sum(1 for p in active if _revision(p) == revision)
        status: Obj = {
            "observedGeneration": sts["metadata"].get("generation", 1),
            "replicas": len(active),
            "readyReplicas": ready,
            "currentReplicas": updated,
            "updatedReplicas": updated,
            "availableReplicas": ready,
            "currentRevision": revision,
            "updateRevision": revision,
            "collisionCount": 0,
        }
        for key in ("readyReplicas", "currentReplicas", "updatedReplicas"):
            if not status[key]:
                del status[key]
        self.set_status(self.statefulsets, sts, status)

    def _event(self, sts: Obj, reason: str, message: str) -> None:
        self.api.emit_event(
            sts, "Normal", reason, f"{message} successful", "statefulset-controller"
        )


def _revision(pod: Obj) -> str:
    return str(pod["metadata"].get("labels", {}).get(REVISION_LABEL))
