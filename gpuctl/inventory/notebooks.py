"""Notebooks: where to open them (`get notebook`) and changing their size (`scale notebook`).

Data only: rows and objects out, nothing printed.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cli import table
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.client import Cluster
from gpuctl.constants import Labels
from gpuctl.errors import GpuctlError
from gpuctl.inventory import jobs, status
from gpuctl.render.engine import Manifest
from gpuctl.spec import runtime
from gpuctl.spec.document import Document

NOTEBOOK = "notebook"
NOTEBOOK_KIND = workloads.STATEFUL_SET.kind  # the workload kind a notebook renders
HEADERS = ("NAME", "STATUS", "GPU", "ADDRESS", "AGE")


class NotANotebook(GpuctlError):
    pass


def _selector() -> str:
    return jobs.selector(kind=NOTEBOOK)


def list_notebooks(cluster: Cluster, namespace: str, name: str | None) -> list[dict[str, Any]]:
    """The notebook `name`, or every notebook in the namespace."""
    if name:
        return [find_notebook(cluster, name, namespace)]
    found = cluster.list(NOTEBOOK_KIND, namespace, label_selector=_selector())
    for obj in found:
        obj.setdefault("kind", NOTEBOOK_KIND)
    return sorted(found, key=lambda o: str(o["metadata"]["name"]))


def find_notebook(cluster: Cluster, name: str, namespace: str) -> dict[str, Any]:
    job = jobs.find_job(cluster, name, namespace)
    labels = (job.get("metadata") or {}).get("labels") or {}
    if job["kind"] != NOTEBOOK_KIND or labels.get(Labels.JOB_TYPE) != NOTEBOOK:
        kind = labels.get(Labels.JOB_TYPE, job["kind"].lower())
        raise NotANotebook(f"{name} is a {kind} job, not a notebook")
    return job


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    template = (obj.get("spec") or {}).get("template") or {}
    return list((template.get("spec") or {}).get("containers") or [])


def rows(
    cluster: ClusterAPI, notebooks: list[dict[str, Any]], at: datetime | None = None
) -> list[list[str]]:
    """NAME, STATUS, GPU, ADDRESS (http://<node-ip>:<nodePort>/?token=…), AGE.

    GPU is what the notebook's pod has (the StatefulSet's template only while it has no pod);
    ADDRESS goes through the node the pod runs on, <none> while it runs on none. Three list
    requests whatever the number of notebooks: services, pods, nodes."""
    if not notebooks:
        return []
    namespace = notebooks[0]["metadata"]["namespace"]
    services = {
        s["metadata"]["name"]: s
        for s in cluster.list("Service", namespace, label_selector=_selector())
    }
    pods = cluster.list("Pod", namespace, label_selector=_selector())
    nodes = {n["metadata"]["name"]: n for n in cluster.list("Node")}
    result = []
    for obj in notebooks:
        name = obj["metadata"]["name"]
        own = [
            p
            for p in pods
            if (p["metadata"].get("labels") or {}).get(Labels.APP) == name
            and not p["metadata"].get("deletionTimestamp")
        ]
        placed = {
            node: nodes[node]
            for p in own
            if (node := (p.get("spec") or {}).get("nodeName")) and node in nodes
        }
        service = services.get(c.SERVICE_PREFIX + name)
        url = jobs.access_url(service, own, placed, _containers(obj)) if placed else ""
        gpus = sum(status.pod_gpus(p) for p in own) if own else status.workload_gpus(obj)
        result.append(
            [
                name,
                status.workload_status(obj),
                str(gpus),
                url or "<none>",
                table.age(obj["metadata"].get("creationTimestamp"), at),
            ]
        )
    return result


# ---------------------------------------------------------------------------- scale


@dataclass(frozen=True)
class Size:
    """What `scale notebook` changes; None leaves it as it is."""

    gpus: int | None = None
    cpu: str | None = None
    memory: str | None = None

    def words(self) -> str:
        """`2 GPU(s), cpu 4, memory 8Gi`: the asked size, for messages."""
        parts = [f"{self.gpus} GPU(s)"] if self.gpus is not None else []
        parts += [f"{key} {value}" for key, value in (("cpu", self.cpu), ("memory", self.memory))]
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
        "kind": NOTEBOOK_KIND,
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
    pod = obj["spec"]["template"]["spec"]
    container = pod["containers"][0]
    resources = container.setdefault("resources", {})
    for part in ("requests", "limits"):
        amounts = resources.setdefault(part, {})
        amounts.update(container_amounts(size))
        if size.gpus == 0:
            amounts.pop(c.GPU_RESOURCE, None)
    if size.gpus:
        _ensure_shm(pod, container)
    return obj


def container_amounts(size: Size) -> dict[str, str]:
    """The resources `size` sets in the container's requests and limits (GPUs 0: none)."""
    amounts = {"cpu": size.cpu, "memory": size.memory}
    if size.gpus:
        amounts[c.GPU_RESOURCE] = str(size.gpus)
    return {key: value for key, value in amounts.items() if value is not None}


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
