"""`scale notebook`: change a notebook's GPUs.

The changed StatefulSet goes through apply (an in-place update, never pruning the rest of the
job). A GPU count that no node of the notebook's pool (and GPU type) could ever hold is refused
before anything is written. A StatefulSet with the default OrderedReady policy never replaces a
pod that is not Ready, so a notebook whose pod could not start (asked for too many GPUs, say)
would keep its old pod, Pending, for good: such a pod is deleted, and the StatefulSet
controller creates it again from the new template.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuctl.cluster.client import Cluster
from gpuctl.cluster.errors import NotFound
from gpuctl.inventory import notebooks
from gpuctl.inventory.status import pod_gpus
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.common import DEFAULT_TIMEOUT, Progress, VerbResult, no_progress


@dataclass
class ScaleResult:
    result: VerbResult
    changed: bool  # the StatefulSet was updated
    replaced_pod: str | None  # the pod that could not start and was deleted to be re-made


@dataclass
class ScaleNotebook:
    cluster: Cluster
    timeout: float = DEFAULT_TIMEOUT
    progress: Progress = no_progress

    def run(self, name: str, namespace: str, gpus: int) -> ScaleResult:
        live = notebooks.find_notebook(self.cluster, name, namespace)
        manifest = notebooks.scale_manifest(live, gpus)
        apply = Apply(
            self.cluster,
            timeout=self.timeout,
            progress=self.progress,
            prune=False,  # only the StatefulSet is sent: nothing else of the job may go
            oversize_is_error=True,
        )
        result = apply.run([manifest])
        changed = not result.errors and any(o.outcome != "unchanged" for o in result.objects)
        replaced = self._replace_stuck_pod(name, namespace, gpus) if not result.errors else None
        return ScaleResult(result, changed, replaced)

    def _replace_stuck_pod(self, name: str, namespace: str, gpus: int) -> str | None:
        """Delete the notebook's pod when it is not Ready and still has other GPUs than asked:
        the StatefulSet controller would wait for it forever instead of replacing it."""
        pod_name = f"{name}-0"
        pod = self.cluster.find("Pod", pod_name, namespace)
        if pod is None or (pod.get("metadata") or {}).get("deletionTimestamp"):
            return None
        if _ready(pod) or pod_gpus(pod) == gpus:
            return None
        try:
            self.cluster.delete("Pod", pod_name, namespace, propagation="Background")
        except NotFound:
            return None
        return pod_name


def _ready(pod: dict[str, object]) -> bool:
    status = pod.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    return any(
        isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
        for c in conditions or []
    )
