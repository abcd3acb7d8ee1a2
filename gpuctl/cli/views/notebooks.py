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


def rows(
    cluster: ClusterAPI, notebooks: list[dict[str, Any]], at: datetime | None = None
) -> list[list[str]]:
    """NAME, STATUS, GPU, ADDRESS (http://<node-ip>:<nodePort>/?token=…), AGE.

    GPU is what the notebook's pod has (the StatefulSet's template only while it has no pod);
    ADDRESS goes through the node the pod runs on, <none> while it runs on none; its token is
    the command line's, else the one gpuctl generated (its Secret). Three list requests
    whatever the number of notebooks (services, pods, nodes), and one read of each running
    notebook's generated token."""
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
        url = _address(cluster, obj, service, own, placed) if placed else ""
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


def _address(
    cluster: ClusterAPI,
    obj: dict[str, Any],
    service: dict[str, Any] | None,
    pods: list[dict[str, Any]],
    nodes: dict[str, dict[str, Any]],
) -> str:
    containers = jobs.pod_template_containers(obj)
    meta = obj["metadata"]
    token = (
        jobs.generated_token(cluster, meta["name"], meta["namespace"])
        if service is not None and jobs.reads_generated_token(containers)
        else ""
    )
    return jobs.access_url(service, pods, nodes, containers, token)
