"""Server-side printing: the `Table` responses `kubectl get` asks for, with the real columns."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.selectors import selector_string
from gpuctl.times import parse_rfc3339
from gpuctl.workloads import pod_spec_of

Obj = dict[str, Any]
Column = tuple[str, str, int, Callable[[Obj], Any]]  # name, type, priority, cell


def _ts(text: str | None) -> float | None:
    return parse_rfc3339(text) if text else None


def _budget(obj: Obj, field: str) -> str:
    """A PodDisruptionBudget's minAvailable or maxUnavailable as kubectl prints it (N/A: unset)."""
    value = (obj.get("spec") or {}).get(field)
    return "N/A" if value is None else str(value)


def human_duration(seconds: float) -> str:
    """k8s.io/apimachinery's duration.HumanDuration."""
    s = int(max(seconds, 0))
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = s // 3600
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    d = h // 24
    if h < 24 * 8:
        return f"{d}d{h % 24}h" if h % 24 else f"{d}d"
    if d < 365 * 2:
        return f"{d}d"
    return f"{d // 365}y"


def age(obj: Obj) -> str:
    created = _ts(obj["metadata"].get("creationTimestamp"))
    return "<unknown>" if created is None else human_duration(time.time() - created)


def _containers(obj: Obj) -> list[Obj]:
    return list(pod_spec_of(obj).get("containers") or [])


def pod_status(pod: Obj) -> str:
    """printPod's Status (kubernetes pkg/printers/internalversion): the reason or phase, the
    first init container at work, then the first container's waiting or terminated reason
    (the loop runs from the last container, so the first one's reason wins), Completed turning
    Running/NotReady while a container still runs; Terminating unless the phase is final."""
    status = pod.get("status") or {}
    phase = status.get("phase") or ""
    reason = status.get("reason") or phase
    conditions = {c.get("type"): c for c in status.get("conditions") or []}
    if (conditions.get("PodScheduled") or {}).get("reason") == "SchedulingGated":
        reason = "SchedulingGated"
    init = _init_status(pod)
    if init:
        reason = init
    if not init or (conditions.get("Initialized") or {}).get("status") == "True":
        running = False
        for cs in reversed(status.get("containerStatuses") or []):
            state = cs.get("state") or {}
            if (state.get("waiting") or {}).get("reason"):
                reason = state["waiting"]["reason"]
            elif state.get("terminated") is not None:
                reason = state["terminated"].get("reason") or _exit(state["terminated"])
            elif cs.get("ready") and state.get("running") is not None:
                running = True
        if reason == "Completed" and running:
            ready = (conditions.get("Ready") or {}).get("status") == "True"
            reason = "Running" if ready else "NotReady"
    if pod["metadata"].get("deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    return str(reason)


def _init_status(pod: Obj) -> str:
    specs = {c.get("name"): c for c in (pod.get("spec") or {}).get("initContainers") or []}
    for i, cs in enumerate((pod.get("status") or {}).get("initContainerStatuses") or []):
        state = cs.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting") or {}
        if terminated is not None and terminated.get("exitCode", 0) == 0:
            continue
        if (specs.get(cs.get("name")) or {}).get("restartPolicy") == "Always" and cs.get("started"):
            continue
        if terminated is not None:
            return "Init:" + (terminated.get("reason") or _exit(terminated))
        if waiting.get("reason") and waiting["reason"] != "PodInitializing":
            return "Init:" + str(waiting["reason"])
        return f"Init:{i}/{len(specs)}"
    return ""


def _exit(terminated: Obj) -> str:
    if terminated.get("signal"):
        return f"Signal:{terminated['signal']}"
    return f"ExitCode:{terminated.get('exitCode', 0)}"


def _pod_ready(pod: Obj) -> str:
    """Ready and running containers of all containers (restartable init containers count)."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    total = len(spec.get("containers") or []) + len(sidecars)
    ready = sum(
        1
        for s in status.get("containerStatuses") or []
        if s.get("ready") and (s.get("state") or {}).get("running") is not None
    ) + sum(
        1
        for s in status.get("initContainerStatuses") or []
        if s.get("ready") and s.get("name") in {c.get("name") for c in sidecars}
    )
    return f"{ready}/{total}"


def _pod_ip(pod: Obj) -> str:
    ips = (pod.get("status") or {}).get("podIPs") or [
        {"ip": (pod.get("status") or {}).get("podIP")}
    ]
    return str(ips[0].get("ip") or "<none>")


def _restarts(pod: Obj) -> str:
    return str(
        sum(
            int(s.get("restartCount", 0))
            for s in (pod.get("status") or {}).get("containerStatuses") or []
        )
    )


def _job_status(job: Obj) -> str:
    conditions = {c["type"]: c["status"] for c in (job.get("status") or {}).get("conditions") or []}
    for kind in ("Failed", "Complete", "Suspended"):
        if conditions.get(kind) == "True":
            return kind
    if conditions.get("FailureTarget") == "True":
        return "FailureTarget"
    if conditions.get("SuccessCriteriaMet") == "True":
        return "SuccessCriteriaMet"
    return "Running"


def _job_duration(job: Obj) -> str:
    status = job.get("status") or {}
    start = _ts(status.get("startTime"))
    if start is None:
        return ""
    end = _ts(status.get("completionTime")) or time.time()
    return human_duration(end - start)


def _ports(svc: Obj) -> str:
    out = []
    for p in (svc.get("spec") or {}).get("ports") or []:
        text = str(p.get("port"))
        if p.get("nodePort"):
            text += f":{p['nodePort']}"
        out.append(f"{text}/{p.get('protocol', 'TCP')}")
    return ",".join(out) or "<none>"


def _quota(side: str) -> Callable[[Obj], str]:
    def cell(q: Obj) -> str:
        hard = (q.get("status") or {}).get("hard") or (q.get("spec") or {}).get("hard") or {}
        used = (q.get("status") or {}).get("used") or {}
        parts = [
            f"{k}: {used.get(k, '0')}/{v}"
            for k, v in sorted(hard.items())
            if (k.startswith("limits.") if side == "limit" else not k.startswith("limits."))
        ]
        return ", ".join(parts)

    return cell


def _completions(job: Obj) -> str:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    if spec.get("completions") is None:
        return f"{status.get('succeeded', 0)}/1 of {spec.get('parallelism', 1)}"
    return f"{status.get('succeeded', 0)}/{spec['completions']}"


def _ready_of_replicas(obj: Obj) -> str:
    ready = (obj.get("status") or {}).get("readyReplicas", 0)
    return f"{ready}/{(obj.get('spec') or {}).get('replicas', 1)}"


def _involved(event: Obj) -> str:
    involved = event.get("involvedObject") or {}
    return f"{str(involved.get('kind', '')).lower()}/{involved.get('name', '')}"


def _reference(hpa: Obj) -> str:
    ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
    return f"{ref.get('kind', '')}/{ref.get('name', '')}"


def _meta(field: str) -> Callable[[Obj], Any]:
    return lambda o: o["metadata"].get(field, "")


_NAME: Column = ("Name", "string", 0, _meta("name"))
_AGE: Column = ("Age", "string", 0, age)

COLUMNS: dict[str, list[Column]] = {
    "Pod": [
        _NAME,
        ("Ready", "string", 0, _pod_ready),
        ("Status", "string", 0, pod_status),
        ("Restarts", "string", 0, _restarts),
        _AGE,
        ("IP", "string", 1, _pod_ip),
        ("Node", "string", 1, lambda o: (o.get("spec") or {}).get("nodeName") or "<none>"),
        ("Nominated Node", "string", 1, lambda o: "<none>"),
        ("Readiness Gates", "string", 1, lambda o: "<none>"),
    ],
    "Node": [
        _NAME,
        (
            "Status",
            "string",
            0,
            lambda o: (
                "Ready"
                + (",SchedulingDisabled" if (o.get("spec") or {}).get("unschedulable") else "")
            ),
        ),
        ("Roles", "string", 0, lambda o: "<none>"),
        _AGE,
        (
            "Version",
            "string",
            0,
            lambda o: (o.get("status") or {}).get("nodeInfo", {}).get("kubeletVersion", ""),
        ),
        (
            "Internal-IP",
            "string",
            1,
            lambda o: next(
                (
                    a["address"]
                    for a in (o.get("status") or {}).get("addresses") or []
                    if a["type"] == "InternalIP"
                ),
                "<none>",
            ),
        ),
        ("External-IP", "string", 1, lambda o: "<none>"),
        (
            "OS-Image",
            "string",
            1,
            lambda o: (o.get("status") or {}).get("nodeInfo", {}).get("osImage", ""),
        ),
        (
            "Kernel-Version",
            "string",
            1,
            lambda o: (o.get("status") or {}).get("nodeInfo", {}).get("kernelVersion", ""),
        ),
        (
            "Container-Runtime",
            "string",
            1,
            lambda o: (
                (o.get("status") or {}).get("nodeInfo", {}).get("containerRuntimeVersion", "")
            ),
        ),
    ],
    "Job": [
        _NAME,
        ("Status", "string", 0, _job_status),
        (
            "Completions",
            "string",
            0,
            _completions,
        ),
        ("Duration", "string", 0, _job_duration),
        _AGE,
        ("Containers", "string", 1, lambda o: ",".join(c.get("name", "") for c in _containers(o))),
        ("Images", "string", 1, lambda o: ",".join(c.get("image", "") for c in _containers(o))),
        ("Selector", "string", 1, lambda o: selector_string((o.get("spec") or {}).get("selector"))),
    ],
    "Deployment": [
        _NAME,
        (
            "Ready",
            "string",
            0,
            _ready_of_replicas,
        ),
        ("Up-to-date", "integer", 0, lambda o: (o.get("status") or {}).get("updatedReplicas", 0)),
        ("Available", "integer", 0, lambda o: (o.get("status") or {}).get("availableReplicas", 0)),
        _AGE,
        ("Containers", "string", 1, lambda o: ",".join(c.get("name", "") for c in _containers(o))),
        ("Images", "string", 1, lambda o: ",".join(c.get("image", "") for c in _containers(o))),
        ("Selector", "string", 1, lambda o: selector_string((o.get("spec") or {}).get("selector"))),
    ],
    "ReplicaSet": [
        _NAME,
        ("Desired", "integer", 0, lambda o: (o.get("spec") or {}).get("replicas", 1)),
        ("Current", "integer", 0, lambda o: (o.get("status") or {}).get("replicas", 0)),
        ("Ready", "integer", 0, lambda o: (o.get("status") or {}).get("readyReplicas", 0)),
        _AGE,
    ],
    "StatefulSet": [
        _NAME,
        (
            "Ready",
            "string",
            0,
            _ready_of_replicas,
        ),
        _AGE,
    ],
    "Service": [
        _NAME,
        ("Type", "string", 0, lambda o: (o.get("spec") or {}).get("type", "ClusterIP")),
        ("Cluster-IP", "string", 0, lambda o: (o.get("spec") or {}).get("clusterIP") or "<none>"),
        ("External-IP", "string", 0, lambda o: "<none>"),
        ("Port(s)", "string", 0, _ports),
        _AGE,
        (
            "Selector",
            "string",
            1,
            lambda o: (
                ",".join(
                    f"{k}={v}"
                    for k, v in sorted(((o.get("spec") or {}).get("selector") or {}).items())
                )
                or "<none>"
            ),
        ),
    ],
    "Namespace": [
        _NAME,
        ("Status", "string", 0, lambda o: (o.get("status") or {}).get("phase", "")),
        _AGE,
    ],
    "ConfigMap": [
        _NAME,
        ("Data", "integer", 0, lambda o: len(o.get("data") or {}) + len(o.get("binaryData") or {})),
        _AGE,
    ],
    "Secret": [
        _NAME,
        ("Type", "string", 0, lambda o: o.get("type", "")),
        ("Data", "integer", 0, lambda o: len(o.get("data") or {})),
        _AGE,
    ],
    "ResourceQuota": [
        _NAME,
        _AGE,
        ("Request", "string", 0, _quota("request")),
        ("Limit", "string", 0, _quota("limit")),
    ],
    "Event": [
        (
            "Last Seen",
            "string",
            0,
            lambda o: human_duration(time.time() - (_ts(o.get("lastTimestamp")) or time.time())),
        ),
        ("Type", "string", 0, lambda o: o.get("type", "")),
        ("Reason", "string", 0, lambda o: o.get("reason", "")),
        (
            "Object",
            "string",
            0,
            _involved,
        ),
        ("Message", "string", 0, lambda o: o.get("message", "")),
    ],
    "HorizontalPodAutoscaler": [
        _NAME,
        (
            "Reference",
            "string",
            0,
            _reference,
        ),
        ("Targets", "string", 0, lambda o: "<unknown>"),
        ("MinPods", "string", 0, lambda o: str((o.get("spec") or {}).get("minReplicas", 1))),
        ("MaxPods", "string", 0, lambda o: str((o.get("spec") or {}).get("maxReplicas", ""))),
        ("Replicas", "string", 0, lambda o: str((o.get("status") or {}).get("currentReplicas", 0))),
        _AGE,
    ],
    "PodDisruptionBudget": [
        _NAME,
        ("Min Available", "string", 0, lambda o: _budget(o, "minAvailable")),
        ("Max Unavailable", "string", 0, lambda o: _budget(o, "maxUnavailable")),
        (
            "Allowed Disruptions",
            "integer",
            0,
            lambda o: (o.get("status") or {}).get("disruptionsAllowed", 0),
        ),
        _AGE,
    ],
    "PriorityClass": [
        _NAME,
        ("Value", "integer", 0, lambda o: o.get("value", 0)),
        ("Global-Default", "boolean", 0, lambda o: bool(o.get("globalDefault", False))),
        _AGE,
        ("PreemptionPolicy", "string", 0, lambda o: o.get("preemptionPolicy", "")),
    ],
}


def _json_path(path: str) -> Callable[[Obj], Any]:
    """A printer column's simple JSONPath (`.status.phase`); a missing field is None."""
    keys = [key for key in path.strip().lstrip(".").split(".") if key]

    def cell(obj: Obj) -> Any:
        value: Any = obj
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    return cell


def _since(cell: Callable[[Obj], Any]) -> Callable[[Obj], Any]:
    """A date column as the API server prints it: the time since, as kubectl's AGE."""

    def since(obj: Obj) -> Any:
        stamp = _ts(cell(obj)) if isinstance(cell(obj), str) else None
        return None if stamp is None else human_duration(time.time() - stamp)

    return since


def _printer_columns(res: Resource) -> list[Column] | None:
    """A custom resource's additionalPrinterColumns, after the name (None when it has none:
    then the API server prints name and age)."""
    if not res.printer_columns:
        return None
    columns: list[Column] = [_NAME]
    for name, type_, path, priority in res.printer_columns:
        cell = _json_path(path)
        columns.append((name, type_, priority, _since(cell) if type_ == "date" else cell))
    return columns


def table(
    res: Resource, items: list[Obj], rv: int, include: str, list_meta: Obj | None = None
) -> Obj:
    columns = COLUMNS.get(res.kind) or _printer_columns(res)
    if columns is None:
        columns = (
            [_NAME, ("Created At", "date", 0, _meta("creationTimestamp"))]
            if res.kind == "CustomResourceDefinition" or res.crd_schema is None
            else [_NAME, _AGE]
        )
    rows = []
    for obj in items:
        row: Obj = {"cells": [cell(obj) for _, _, _, cell in columns]}
        if include == "Object":
            row["object"] = obj
        elif include != "None":
            row["object"] = {
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": obj["metadata"],
            }
        rows.append(row)
    meta: Obj = {"resourceVersion": str(rv)}
    meta.update(list_meta or {})
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": meta,
        "columnDefinitions": [
            {
                "name": name,
                "type": type_,
                "format": "name" if name == "Name" else "",
                "description": "",
                "priority": priority,
            }
            for name, type_, priority, _ in columns
        ],
        "rows": rows,
    }
