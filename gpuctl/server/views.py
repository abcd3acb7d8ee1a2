"""Inventory records as the API's camelCase bodies. Every status word comes from
gpuctl.inventory (the CLI's rules), only written in the API's lower-case spelling."""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl.errors import GpuctlError
from gpuctl.inventory import jobs, nodes, pools, quotas, status, visibility
from gpuctl.inventory.pools import Inventory, Pool
from gpuctl.inventory.visibility import Sees
from gpuctl.placement.affinity import required_gpu_type
from gpuctl.placement.capacity import free_of
from gpuctl.spec.jobref import job_id
from gpuctl.workloads import pod_spec_of


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return list(pod_spec_of(obj).get("containers") or [])


def status_word(job: dict[str, Any]) -> str:
    """The CLI's STATUS in lower case, spaces as hyphens: `partially-running`."""
    return _word(status.workload_status(job))


def _word(shown: str) -> str:
    return shown.lower().replace(" ", "-")


JOB_STATUS = tuple(_word(value) for key, value in vars(c.Status).items() if not key.startswith("_"))


# ------------------------------------------------------------------------------- jobs


def job_item(job: dict[str, Any], started: str | None) -> dict[str, Any]:
    """One job of a list; `started`: when a pod of it started (status.started_at)."""
    meta, labels = _meta(job), nodes.labels_of(job)
    return {
        "jobId": job_id(meta.get("namespace", ""), meta.get("name", "")),
        "name": meta.get("name", ""),
        "namespace": meta.get("namespace", ""),
        "kind": labels.get(c.Labels.JOB_TYPE, job.get("kind", "").lower()),
        "pool": labels.get(c.Labels.POOL, c.DEFAULT_POOL),
        "status": status_word(job),
        "ready": status.workload_ready(job),
        "gpu": status.workload_gpus(job),
        "gpuShare": _share(status.workload_share(job)),
        "gpuType": required_gpu_type(pod_spec_of(job)),
        "createdAt": meta.get("creationTimestamp"),
        "startedAt": started,
    }


def _share(gib: int) -> str | None:
    return f"{gib}Gi" if gib else None


def job_detail(details: jobs.Details) -> dict[str, Any]:
    """GET /jobs/{jobId}. `yamlContent` is the spec as submitted (kept on the workload by
    create and apply, from the API or the CLI); null for a job written without one, or with a
    spec too large to keep (`yamlContentNote` says so). `metrics` are null until a metrics
    source is configured."""
    job, pods = details.job, details.pods
    item = job_item(job, status.started_at(pods))
    # one job's events are read here, so it can say Preempted as `describe job` does (a list
    # reads no events: it says pending)
    item["status"] = _word(jobs.status_with_preemption(job, details.preempted))
    annotations = _meta(job).get("annotations") or {}
    containers = _containers(job)
    first = containers[0] if containers else {}
    resources = first.get("resources") or {}
    amounts = {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
    return {
        **item,
        "version": _spec_version(annotations.get(c.SPEC_ANNOTATION)),
        "yamlContent": annotations.get(c.SPEC_ANNOTATION),
        "yamlContentNote": annotations.get(c.SPEC_OMITTED_ANNOTATION),
        "image": first.get("image", ""),
        "priority": nodes.labels_of(job).get(c.Labels.PRIORITY, ""),
        "description": (_meta(job).get("annotations") or {}).get(jobs.DESCRIPTION_ANNOTATION, ""),
        "resources": {  # one pod's, and how many pods the job asks for now
            "gpu": status.pod_template_gpus(job),
            "gpuShare": _share(status.workload_share(job) // max(status.workload_pods(job), 1)),
            "gpuType": item["gpuType"],
            "cpu": amounts.get("cpu"),
            "memory": amounts.get("memory"),
            "replicas": status.workload_pods(job),
        },
        "metrics": {
            "gpuUtilization": None,
            "memoryUsage": None,
            "networkLatency": None,
            "throughput": None,
        },
        "metricsError": None,
        "why": jobs.why(job, pods, details.events, details.logs, details.preempted),
        "access": jobs.access_url(details.service, pods, details.nodes, containers, details.token),
        "k8sResources": {
            "kind": None if jobs.is_partial(job) else job.get("kind"),
            "jobName": item["name"],
            "service": nodes.name_of(details.service) if details.service else None,
            "pods": [nodes.name_of(pod) for pod in pods],
            "podStates": [pod_state(pod) for pod in pods],
            "leftovers": jobs.leftover_refs(job),
        },
    }


def pod_state(pod: dict[str, Any]) -> dict[str, Any]:
    """One pod of a job as `gpuctl get pods` shows it: its status, READY, node and restarts."""
    return {
        "name": nodes.name_of(pod),
        "status": status.pod_status(pod),
        "ready": status.pod_ready(pod),
        "node": nodes.node_name_of(pod) or None,
        "restarts": status.pod_restarts(pod),
    }


def _spec_version(text: str | None) -> str | None:
    """The `version:` of the kept spec (it passed the checks when it was written)."""
    if text is None:
        return None
    from gpuctl.spec.document import load_text

    try:
        data = load_text("yamlContent", text)[0].data
    except GpuctlError:
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return str(version) if version is not None else None


# ------------------------------------------------------------------------------ nodes

NODE_STATUS = nodes.DOCUMENT_NODE_STATUS + nodes.NODE_STATUS_FILTERS


def bound_pools(inventory: Inventory, node: str) -> list[str]:
    """The pool a node's label names, else the pools whose record lists it (as describe)."""
    return inventory.pools_of(node)


def node_item(inventory: Inventory, node: dict[str, Any]) -> dict[str, Any]:
    name = nodes.name_of(node)
    total, used = nodes.node_gpus(node), inventory.used.get(name, 0)
    capacity = (node.get("status") or {}).get("capacity") or {}
    return {
        "nodeName": name,
        "status": nodes.document_status(node),
        "gpuTotal": total,
        "gpuUsed": used,
        "gpuFree": free_of(total, used),
        "boundPools": bound_pools(inventory, name),
        "cpu": capacity.get("cpu"),
        "memory": capacity.get("memory"),
        "gpuType": nodes.gpu_type(node) or None,
        "vendor": nodes.vendor(node) or None,
        "createdAt": _meta(node).get("creationTimestamp"),
    }


def node_detail(inventory: Inventory, node: dict[str, Any], sees: Sees) -> dict[str, Any]:
    """GET /nodes/{name}: the pods of namespaces the caller sees by name, the others counted
    in `otherPods` (the node's GPU figures count every pod)."""
    item = node_item(inventory, node)
    every = nodes.pods_on(inventory.pods, item["nodeName"])
    on_node = [pod for pod in every if sees(_meta(pod).get("namespace", ""))]
    state = node.get("status") or {}
    allocatable = state.get("allocatable") or {}
    beats = [x.get("lastHeartbeatTime") for x in state.get("conditions") or []]
    return {
        "nodeName": item["nodeName"],
        "status": item["status"],
        "resources": {
            "cpuTotal": allocatable.get("cpu"),
            "cpuUsed": nodes.amount_text(nodes.requested(on_node, "cpu"), "cpu"),
            "memoryTotal": allocatable.get("memory"),
            "memoryUsed": nodes.amount_text(nodes.requested(on_node, "memory"), "memory"),
            "gpuTotal": item["gpuTotal"],
            "gpuUsed": item["gpuUsed"],
            "gpuFree": item["gpuFree"],
        },
        "gpuType": item["gpuType"],
        "vendor": item["vendor"],
        "labels": [
            {"key": key, "value": value} for key, value in sorted(nodes.labels_of(node).items())
        ],
        "boundPools": item["boundPools"],
        "pods": [
            {
                "namespace": _meta(pod).get("namespace", ""),
                "name": nodes.name_of(pod),
                "job": status.job_name_of(nodes.labels_of(pod)),
                "gpu": status.pod_gpus(pod),
            }
            for pod in on_node
        ],
        "otherPods": visibility.counted(
            [pod for pod in every if not sees(_meta(pod).get("namespace", ""))]
        ),
        "createdAt": item["createdAt"],
        "lastUpdatedAt": max((b for b in beats if b), default=None),
    }


def gpu_labels(node: dict[str, Any]) -> list[dict[str, str]]:
    """The GPU labels of a node: g8s.host/ ones and the GPU type, sorted by key."""
    return [
        {"key": key, "value": value}
        for key, value in sorted(nodes.labels_of(node).items())
        if key.startswith(c.USER_NODE_LABEL_PREFIX) or key in c.GPU_TYPE_NODE_LABELS
    ]


# ------------------------------------------------------------------------------ pools


def pool_item(inventory: Inventory, pool: Pool) -> dict[str, Any]:
    total, used = inventory.gpus(pool)
    return {
        "name": pool.name,
        "description": pool.description,
        "gpuTotal": total,
        "gpuUsed": used,
        "gpuFree": free_of(total, used),
        "gpuType": sorted(inventory.gpu_types(pool)),
        "allowedGpuTypes": pools.allowed_gpu_types(pool.record),
        "nodeCount": len(pool.members),
        "gpuCap": inventory.cap(pool)[1],
        "gpuCapUsed": inventory.cap(pool)[0],
        # a pool only node labels name (no record) reads `unrecorded`, as describe says
        "status": "active" if pool.record is not None else "unrecorded",
        "isolation": _isolation(pool),
    }


def _isolation(pool: Pool) -> str | None:
    if pool.record is None:
        return None
    return "isolated" if pools.isolated(pool.record) else "shared"


def pool_detail(inventory: Inventory, pool: Pool, sees: Sees) -> dict[str, Any]:
    """GET /pools/{name}: the jobs of namespaces the caller sees by name, the others counted
    in `otherJobs` (the pool's GPU figures count every job)."""
    summary = inventory.summary(pool)
    jobs_in = sorted(inventory.jobs_in(pool).items())
    hidden = [pod for (namespace, _), pods in jobs_in if not sees(namespace) for pod in pods]
    return {
        **{k: v for k, v in summary.items() if k != "record"},
        "status": pool_item(inventory, pool)["status"],
        "jobs": [
            {
                "jobId": job_id(namespace, job),
                "name": job,
                "namespace": namespace,
                "gpu": sum(status.pod_gpus(pod) for pod in pods),
                "nodes": sorted({nodes.node_name_of(pod) for pod in pods}),
            }
            for (namespace, job), pods in jobs_in
            if sees(namespace)
        ],
        "otherJobs": visibility.counted(hidden),
    }


# ----------------------------------------------------------------------------- quotas


def _usage(usage: quotas.Usage | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    return {"used": usage.used, "hard": usage.hard, "percent": usage.percent}


def quota_item(quota: quotas.Quota) -> dict[str, Any]:
    return {
        "userName": quota.user,
        "name": quota.name,
        "description": quota.description,
        "createdAt": quota.created,
        "cpu": _usage(quota.usage(quotas.CPU_KEYS)),
        "memory": _usage(quota.usage(quotas.MEMORY_KEYS)),
        "gpu": _usage(quota.usage(quotas.GPU_KEYS)),
        "resources": [{"key": u.resource, **(_usage(u) or {})} for u in quota.usages],
    }
