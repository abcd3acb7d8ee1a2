"""`get notebook` rows: where to open each notebook."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.cluster.api import ClusterAPI
from gpuctl.constants import Labels
from gpuctl.inventory import jobs, status
from gpuctl.inventory.notebooks import selector

HEADERS = ("NAME", "STATUS", "GPU", "ADDRESS", "AGE")


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
        for s in cluster.list("Service", namespace, label_selector=selector())
    }
    pods = cluster.list("Pod", namespace, label_selector=selector())
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
