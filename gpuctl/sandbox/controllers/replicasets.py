"""The ReplicaSet controller: keeps `replicas` live pods, deleting unready and newest first."""

from __future__ import annotations

from gpuctl.sandbox.controllers.base import TERMINAL_PHASES, Controller, phase, pod_ready
from gpuctl.sandbox.store import Obj


class ReplicaSetController(Controller):
    name = "replicaset-controller"

    def reconcile(self, now: float) -> None:
        for rs in self.store.objects(self.replicasets.key, None):
            if not rs["metadata"].get("deletionTimestamp"):
                self._sync(rs)

    def _sync(self, rs: Obj) -> None:
        replicas = int(rs["spec"].get("replicas", 1))
        pods = [
            p
            for p in self.owned_pods(rs)
            if phase(p) not in TERMINAL_PHASES and not p["metadata"].get("deletionTimestamp")
        ]
        for _ in range(replicas - len(pods)):
            pod = self.create_pod(self.replicasets, rs, rs["spec"]["template"])
            if pod is None:
                break
            pods.append(pod)
            self._event(rs, "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}")
        if len(pods) > replicas:
            pods.sort(key=lambda p: (pod_ready(p), p["metadata"]["creationTimestamp"]))
            for pod in pods[: len(pods) - replicas]:
                self.delete(self.pods, pod)
                self._event(rs, "SuccessfulDelete", f"Deleted pod: {pod['metadata']['name']}")
            pods = pods[len(pods) - replicas :]
        ready = sum(1 for p in pods if pod_ready(p))
        status: Obj = {
            "replicas": len(pods),
            "fullyLabeledReplicas": len(pods),
            "readyReplicas": ready,
            "availableReplicas": ready,
            "observedGeneration": rs["metadata"].get("generation", 1),
        }
        for key in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
            if not status[key]:
                del status[key]
        self.set_status(self.replicasets, rs, status)

    def _event(self, rs: Obj, reason: str, message: str) -> None:
        self.api.emit_event(rs, "Normal", reason, message, "replicaset-controller")
