"""`scale notebook`: change a notebook's GPUs, CPU and memory.

A change of CPU and memory only resizes the running pod in place (its `resize` subresource,
Kubernetes 1.33 and later), so the notebook keeps running, and writes the new size into the
StatefulSet's template for the pod's next start. So that the StatefulSet controller does not
replace the pod for the new template, the template is written with updateStrategy OnDelete,
the resized pod is labelled with the set's new revision (an up-to-date pod is never replaced),
and the previous strategy is written back.

The pod is replaced instead (the notebook restarts), and the result says why, when the GPUs
change, when the pod is not running, when the cluster has no resize subresource (404), or when
it refuses the resize (422: the pod's QoS class would change, a memory limit would go down, the
node's kubelet cannot resize).

A notebook takes whole GPUs (`gpu`) or a share of one (`gpu-share`, GPU memory from the
GPU-share device plugin), never both, as its spec says: `--gpu` on a notebook with a share,
and `--gpu-share` on one with whole GPUs, are refused with the way to switch (edit the spec and
apply it), rather than converted: a pod asking for both is one `validate` refuses in a file.

The changed StatefulSet goes through apply (an in-place update, never pruning the rest of the
job). A GPU count that no node of the notebook's pool (and GPU type) could ever hold is refused
before anything is written. A StatefulSet with the default OrderedReady policy never replaces a
pod that is not Ready, so a notebook whose pod could not start (asked for too many GPUs, say)
would keep its old pod, Pending, for good: such a pod is deleted, and the StatefulSet
controller creates it again from the new template.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl.cluster.api import SubresourceCluster
from gpuctl.cluster.errors import Invalid, KubeError, NotFound
from gpuctl.inventory import notebooks
from gpuctl.inventory.status import pod_gpus
from gpuctl.placement.affinity import required_gpu_type
from gpuctl.render.engine import Manifest
from gpuctl.spec import accelerators, quantity, runtime
from gpuctl.spec.document import Document
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.common import DEFAULT_TIMEOUT, Progress, VerbResult, no_progress
from gpuctl.verbs.errors import ScaleRefused
from gpuctl.workloads.adapter import container_gpu_resource, pod_spec_of

ON_DELETE = {"type": "OnDelete"}
# How long the StatefulSet controller may take to name the new template's revision.
REVISION_WAIT = 30.0


@dataclass(frozen=True)
class Size:
    """What `scale notebook` changes; None leaves it as it is."""

    gpus: int | None = None
    cpu: str | None = None
    memory: str | None = None
    gpu_share: str | None = None  # GPU memory on one shared GPU, as the spec writes it: 4Gi

    def words(self) -> str:
        """`2 GPU(s), cpu 4, memory 8Gi`: the asked size, for messages."""
        parts = [f"{self.gpus} GPU(s)"] if self.gpus is not None else []
        named = (("gpu-share", self.gpu_share), ("cpu", self.cpu), ("memory", self.memory))
        parts += [f"{key} {value}" for key, value in named]
        return ", ".join(p for p in parts if not p.endswith(" None"))


def with_size(
    live: dict[str, Any], size: Size, update_strategy: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The notebook's StatefulSet as gpuctl would send it, with `size` in its container (as
    request and limit alike, as gpuctl renders them) and `update_strategy` when given.

    Everything else is kept as it is live, the workdir volumes included. A notebook that gets
    its first GPU also gets the memory-backed /dev/shm every GPU pod has.
    """
    meta = live["metadata"]
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items() if k != c.RENDER_HASH_ANNOTATION
    }
    obj: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": notebooks.NOTEBOOK_KIND,
        "metadata": {
            "name": meta["name"],
            "namespace": meta["namespace"],
            "labels": dict(meta.get("labels") or {}),
            **({"annotations": annotations} if annotations else {}),
        },
        "spec": copy.deepcopy(live["spec"]),
    }
    if update_strategy is not None:
        obj["spec"]["updateStrategy"] = copy.deepcopy(update_strategy)
    pod = pod_spec_of(obj)
    container = pod["containers"][0]
    resources = container.setdefault("resources", {})
    # GPUs of the vendor the notebook has, else of its GPU type's (NVIDIA's without one)
    resource = container_gpu_resource(container) or (
        accelerators.lookup(required_gpu_type(pod)).resource
    )
    for part in ("requests", "limits"):
        amounts = resources.setdefault(part, {})
        amounts.update(container_amounts(size, resource))
        if size.gpus == 0:
            amounts.pop(resource, None)
    if size.gpus or size.gpu_share:
        _ensure_shm(pod, container)
    return obj


def container_amounts(size: Size, gpu_resource: str = c.GPU_RESOURCE) -> dict[str, str]:
    """The resources `size` sets in the container's requests and limits (GPUs 0: none), GPUs
    as `gpu_resource` (the vendor's device-plugin resource), a GPU share in GiB as the
    GPU-share device plugin counts it (as render writes it)."""
    amounts = {"cpu": size.cpu, "memory": size.memory}
    if size.gpus:
        amounts[gpu_resource] = str(size.gpus)
    if size.gpu_share:
        amounts[c.GPU_SHARE_RESOURCE] = size.gpu_share.removesuffix("Gi")
    return {key: value for key, value in amounts.items() if value is not None}


def gpu_share_of(container: dict[str, Any]) -> str | None:
    """The container's GPU share as the spec writes it (`2Gi`); None without one."""
    resources = container.get("resources") or {}
    for part in ("limits", "requests"):
        amount = (resources.get(part) or {}).get(c.GPU_SHARE_RESOURCE)
        if amount is not None:
            return f"{amount}Gi"
    return None


def check_gpu_kind(live: dict[str, Any], size: Size) -> None:
    """Refuse (ScaleRefused) a change of whole GPUs on a notebook with a GPU share, a share on
    one with whole GPUs, or both at once: a notebook has one or the other, as its spec says."""
    name = live["metadata"]["name"]
    pod = pod_spec_of(live)
    container = pod["containers"][0]
    share, whole = gpu_share_of(container), pod_gpus({"spec": pod})
    if size.gpus is not None and size.gpu_share is not None:
        raise ScaleRefused(
            "--gpu (whole GPUs) and --gpu-share (a share of one GPU) exclude each other: give one"
        )
    if size.gpus is not None and share is not None:
        raise ScaleRefused(
            f"notebook {name} takes a share of one GPU (gpu-share {share}), and --gpu changes "
            "whole GPUs; change the share with --gpu-share (such as --gpu-share 4Gi), or for "
            "whole GPUs edit its spec (remove gpu-share, set gpu) and run `gpuctl apply -f FILE`"
        )
    if size.gpu_share is not None and whole:
        raise ScaleRefused(
            f"notebook {name} takes {whole} whole GPU(s), and --gpu-share asks for a share of "
            "one; change its GPUs with --gpu, or for a share edit its spec (set gpu-share, "
            "remove gpu or set gpu: 1) and run `gpuctl apply -f FILE`"
        )


def _ensure_shm(pod: dict[str, Any], container: dict[str, Any]) -> None:
    mounts = container.setdefault("volumeMounts", [])
    if any(m.get("mountPath") == c.SHM_PATH for m in mounts):
        return
    memory = ((container.get("resources") or {}).get("limits") or {}).get("memory")
    if memory is None:
        return
    mounts.append({"name": "dshm", "mountPath": c.SHM_PATH})
    pod.setdefault("volumes", []).append(
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": runtime.shm_size(memory)}}
    )


def scale_manifest(
    live: dict[str, Any], size: Size, update_strategy: dict[str, Any] | None = None
) -> Manifest:
    """The changed StatefulSet as a manifest for the apply verb."""
    obj = with_size(live, size, update_strategy)
    name = obj["metadata"]["name"]
    origin = Document(f"<scale notebook {name}>", 0, 1, None)
    return Manifest(obj, yaml.safe_dump(obj, sort_keys=False), origin, "scale notebook")


@dataclass
class ScaleResult(VerbResult):
    """The verb's result (the StatefulSet as apply reports it), and what became of the pod."""

    changed: bool = False  # the StatefulSet was updated
    replaced_pod: str | None = None  # the pod that could not start and was deleted to be re-made
    resized_pod: str | None = None  # the running pod resized in place (it keeps running)
    restart_reason: str = ""  # why the pod is replaced rather than resized in place

    @classmethod
    def of(
        cls,
        applied: VerbResult,
        changed: bool,
        replaced_pod: str | None = None,
        *,
        resized_pod: str | None = None,
        restart_reason: str = "",
    ) -> ScaleResult:
        return cls(
            objects=applied.objects,
            errors=applied.errors,
            warnings=applied.warnings,
            dry_run=applied.dry_run,
            causes=applied.causes,
            changed=changed,
            replaced_pod=replaced_pod,
            resized_pod=resized_pod,
            restart_reason=restart_reason,
        )

    @property
    def in_place(self) -> bool:
        return self.resized_pod is not None


@dataclass
class ScaleNotebook:
    cluster: SubresourceCluster
    timeout: float = DEFAULT_TIMEOUT
    progress: Progress = no_progress

    def run(self, name: str, namespace: str, size: Size) -> ScaleResult:
        live = notebooks.find_notebook(self.cluster, name, namespace)
        check_gpu_kind(live, size)
        if with_size(live, size)["spec"] == live["spec"]:
            return ScaleResult()
        pod = self._running_pod(f"{name}-0", namespace)
        reason = _restart_reason(pod, size)
        if pod is not None and not reason:
            return self._in_place(live, pod, size)
        return self._restart(live, size, reason)

    def _apply(self, live: dict[str, Any], size: Size, strategy: Any = None) -> VerbResult:
        apply = Apply(
            self.cluster,
            timeout=self.timeout,
            progress=self.progress,
            prune=False,  # only the StatefulSet is sent: nothing else of the job may go
        )
        return apply.run([scale_manifest(live, size, strategy)])

    def _restart(self, live: dict[str, Any], size: Size, reason: str) -> ScaleResult:
        """Write the new template; the StatefulSet controller replaces the pod."""
        meta = live["metadata"]
        result = self._apply(live, size)
        changed = not result.errors and any(o.outcome != "unchanged" for o in result.objects)
        replaced = None
        if not result.errors:
            replaced = self._replace_stuck_pod(meta["name"], meta["namespace"], size)
        return ScaleResult.of(result, changed, replaced, restart_reason=reason)

    def _in_place(self, live: dict[str, Any], pod: dict[str, Any], size: Size) -> ScaleResult:
        """Template with OnDelete, resize the pod, mark it up to date, strategy back. When the
        resize is refused, writing the strategy back makes the controller replace the pod."""
        meta = live["metadata"]
        name, namespace = meta["name"], meta["namespace"]
        strategy = (live.get("spec") or {}).get("updateStrategy") or {"type": "RollingUpdate"}
        held = self._apply(live, size, ON_DELETE)
        if held.errors:
            return ScaleResult.of(held, False)
        refused = self._resize(pod, size)
        if not refused:
            refused = self._mark_up_to_date(pod, name, namespace)
        current = notebooks.find_notebook(self.cluster, name, namespace)
        result = self._apply(current, size, strategy)
        if refused:
            return ScaleResult.of(result, True, restart_reason=refused)
        return ScaleResult.of(result, True, resized_pod=pod["metadata"]["name"])

    def _resize(self, pod: dict[str, Any], size: Size) -> str:
        """Resize the running pod's CPU and memory in place; "" when done, else why not."""
        container = pod["spec"]["containers"][0]["name"]
        amounts = container_amounts(Size(cpu=size.cpu, memory=size.memory))
        body = {
            "spec": {
                "containers": [
                    {"name": container, "resources": {"requests": amounts, "limits": amounts}}
                ]
            }
        }
        meta = pod["metadata"]
        try:
            self.cluster.patch_subresource(
                "Pod", meta["name"], meta["namespace"], "resize", body, patch_type="strategic"
            )
        except NotFound:
            if self.cluster.find("Pod", meta["name"], meta["namespace"]) is None:
                return "its pod went away meanwhile"
            return "the cluster cannot resize a pod in place (Kubernetes 1.33 or later can)"
        except Invalid as exc:
            why = "; ".join(
                f"{cause.get('field', '')}: {cause.get('message', '')}".lstrip(": ")
                for cause in exc.causes
            )
            return f"the cluster refused to resize the pod in place ({why or exc})"
        return ""

    def _mark_up_to_date(self, pod: dict[str, Any], name: str, namespace: str) -> str:
        """Label the resized pod with the StatefulSet's revision of the new template, so that
        the controller keeps it; "" when done, else why not (the pod will be replaced)."""
        deadline = time.monotonic() + min(self.timeout, REVISION_WAIT)
        revision = ""
        while not revision:
            sts = self.cluster.get(notebooks.NOTEBOOK_KIND, name, namespace)
            status = sts.get("status") or {}
            if status.get("observedGeneration", 0) >= sts["metadata"].get("generation", 0):
                revision = str(status.get("updateRevision") or "")
            if not revision:
                if time.monotonic() > deadline:
                    return "the StatefulSet controller did not name the new template's revision"
                time.sleep(0.2)
        labels = {"metadata": {"labels": {c.Labels.CONTROLLER_REVISION: revision}}}
        try:
            self.cluster.patch("Pod", pod["metadata"]["name"], namespace, labels)
        except KubeError as exc:
            return f"labelling its pod failed ({exc})"
        return ""

    def _running_pod(self, pod_name: str, namespace: str) -> dict[str, Any] | None:
        pod = self.cluster.find("Pod", pod_name, namespace)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return None
        return pod if (pod.get("status") or {}).get("phase") == "Running" else None

    def _replace_stuck_pod(self, name: str, namespace: str, size: Size) -> str | None:
        """Delete the notebook's pod when it is not Ready and still has another size than
        asked: the StatefulSet controller would wait for it forever instead of replacing it."""
        pod_name = f"{name}-0"
        pod = self.cluster.find("Pod", pod_name, namespace)
        if pod is None or (pod.get("metadata") or {}).get("deletionTimestamp"):
            return None
        if _ready(pod) or not _other_size(pod, size):
            return None
        try:
            self.cluster.delete("Pod", pod_name, namespace, propagation="Background")
        except NotFound:
            return None
        return pod_name


def _restart_reason(pod: dict[str, Any] | None, size: Size) -> str:
    """Why the change cannot be made to the running pod in place; "" when it can."""
    if pod is None:
        return "its pod is not running"
    if size.gpus is not None and pod_gpus(pod) != size.gpus:
        return "the GPUs change (only CPU and memory change in place)"
    if size.gpu_share is not None and gpu_share_of(pod["spec"]["containers"][0]) != size.gpu_share:
        return "the GPU share changes (only CPU and memory change in place)"
    return ""


def _other_size(pod: dict[str, Any], size: Size) -> bool:
    """Does the pod's container have other limits than `size` asks for?"""
    containers = (pod.get("spec") or {}).get("containers") or [{}]
    limits = (containers[0].get("resources") or {}).get("limits") or {}
    if size.gpus is not None and pod_gpus(pod) != size.gpus:
        return True
    if size.gpu_share is not None and gpu_share_of(containers[0]) != size.gpu_share:
        return True
    asked = container_amounts(Size(cpu=size.cpu, memory=size.memory))
    return any(not quantity.same(limits.get(key), value) for key, value in asked.items())


def _ready(pod: dict[str, object]) -> bool:
    status = pod.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    return any(
        isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
        for c in conditions or []
    )
