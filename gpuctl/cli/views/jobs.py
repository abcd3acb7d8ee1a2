"""`get jobs` rows and `describe job` text."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.constants import Labels
from gpuctl.inventory import status
from gpuctl.inventory.jobs import (
    Details,
    PodLine,
    access_url,
    is_partial,
    labels_of,
    leftover_refs,
    pod_line,
    reasons,
    status_with_preemption,
)
from gpuctl.inventory.preemption import Preemption
from gpuctl.workloads import pod_spec_of


def job_rows(
    jobs: list[dict[str, Any]],
    *,
    all_namespaces: bool,
    wide: bool,
    at: datetime | None = None,
    preempted: Mapping[tuple[str, str], Preemption] | None = None,
) -> tuple[list[str], list[list[str]]]:
    """NAME, KIND, POOL, STATUS, READY, GPU, AGE; -A adds NAMESPACE;
    wide adds PRIORITY and IMAGE, and PREEMPTED-BY. A Pending job in `preempted` is
    Preempted (gpuctl.inventory.jobs.preempted_jobs)."""
    headers = ["NAME", "KIND", "POOL", "STATUS", "READY", "GPU", "AGE"]
    if all_namespaces:
        headers.insert(0, "NAMESPACE")
    if wide:
        headers += ["PRIORITY", "IMAGE", "PREEMPTED-BY"]
    rows = []
    for obj in jobs:
        labels, meta = labels_of(obj), obj["metadata"]
        lost = (preempted or {}).get((meta.get("namespace", ""), meta["name"]))
        row = [
            meta["name"],
            labels.get(Labels.JOB_TYPE, obj["kind"].lower()),
            labels.get(Labels.POOL, c.DEFAULT_POOL),
            status_with_preemption(obj, lost),
            status.workload_ready(obj),
            status.gpu_words(obj),
            table.age(meta.get("creationTimestamp"), at),
        ]
        if all_namespaces:
            row.insert(0, meta.get("namespace", ""))
        if wide:
            containers = pod_spec_of(obj).get("containers") or [{}]
            by = _preemptor(lost) if lost else ""
            row += [labels.get(Labels.PRIORITY, ""), containers[0].get("image", ""), by]
        rows.append(row)
    return headers, rows


def _preemptor(lost: Preemption) -> str:
    """PREEMPTED-BY: the job, else the pod; `<another-namespace>` for one the user may not
    read (gpuctl.inventory.visibility)."""
    if lost.hidden:
        return "<another-namespace>"
    return lost.by_job or f"pod/{lost.by_pod}"


def pod_rows(
    pods: list[dict[str, Any]], *, wide: bool, at: datetime | None = None
) -> tuple[list[str], list[list[str]]]:
    """The rows of whole pods (wide adds GPU)."""
    return pod_line_rows([pod_line(pod) for pod in pods], wide=wide, at=at)


def pod_line_rows(
    pods: list[PodLine], *, wide: bool, at: datetime | None = None
) -> tuple[list[str], list[list[str]]]:
    """The `get jobs --pods` columns: JOB, POD, NAMESPACE, KIND, STATUS, READY, NODE, IP,
    AGE; wide adds GPU. JOB is what `describe job` and `logs` take, and so is POD."""
    headers = ["JOB", "POD", "NAMESPACE", "KIND", "STATUS", "READY", "NODE", "IP", "AGE"]
    if wide:
        headers.append("GPU")
    at = at or table.now()
    ages: dict[str | None, str] = {}  # pods made in the same second share their AGE
    rows = []
    for pod in pods:
        meta = pod.metadata
        labels = meta.get("labels") or {}
        created = meta.get("creationTimestamp")
        if created not in ages:
            ages[created] = table.age(created, at)
        row = [
            status.job_name_of(labels),
            meta["name"],
            meta.get("namespace", ""),
            labels.get(Labels.JOB_TYPE, ""),
            pod.status,
            pod.ready,
            pod.node,
            pod.ip,
            ages[created],
        ]
        if wide:
            row.append(str(pod.gpus))
        rows.append(row)
    return headers, rows


def describe(details: Details, at: datetime | None = None) -> str:
    job, pods = details.job, details.pods
    meta, labels = job["metadata"], labels_of(job)
    containers = pod_spec_of(job).get("containers") or []
    container = containers[0] if containers else {}
    resources = (container.get("resources") or {}).get("limits") or {}
    state = status_with_preemption(job, details.preempted)
    created = meta.get("creationTimestamp")
    lines = [
        ("Name", meta["name"]),
        ("Namespace", meta.get("namespace", "")),
        ("Kind", labels.get(Labels.JOB_TYPE, "")),
        ("Object", _object_of(job)),
        ("Pool", labels.get(Labels.POOL, c.DEFAULT_POOL)),
        ("Priority", labels.get(Labels.PRIORITY, "")),
        (
            "Description",
            (meta.get("annotations") or {}).get(c.ANNOTATION_PREFIX + "description", ""),
        ),
        ("Image", container.get("image", "")),
        ("Resources", ", ".join(f"{k}={v}" for k, v in resources.items()) or "<none>"),
        ("GPUs", status.gpu_words(job)),
        ("Status", state),
        ("Ready", status.workload_ready(job)),
        (
            "Created",
            f"{created} ({table.age(created, at)} ago)",
        ),
        ("Started", _started(pods, at)),
    ]
    lines += [
        ("Why", reason)
        for reason in reasons(job, pods, details.events, details.logs, details.preempted)
    ]
    url = access_url(details.service, pods, details.nodes, containers, details.token)
    if url:
        lines.append(("Access", url))
    text = "".join(line + "\n" for line in table.fields(lines, gap=2, repeat_keys=False))
    headers, rows = pod_rows(pods, wide=True, at=at)
    text += "Pods:\n"
    text += _indent(table.table(headers, rows) if rows else "<none>\n")
    text += "Events:\n"
    event_rows = [
        [
            table.age(e.get("lastTimestamp") or e.get("eventTime"), at),
            str(e.get("type", "")),
            str(e.get("reason", "")),
            f"{(e.get('involvedObject') or {}).get('kind', '').lower()}/"
            f"{(e.get('involvedObject') or {}).get('name', '')}",
            str(e.get("message", "")).replace("\n", " "),
        ]
        for e in details.events[-10:]
    ]
    text += _indent(
        table.table(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], event_rows)
        if event_rows
        else "<none>\n"
    )
    return text


def _started(pods: list[dict[str, Any]], at: datetime | None) -> str:
    """When a container of the job's pods first ran (status.started_at), as GET /jobs/{id}."""
    started = status.started_at(pods)
    return f"{started} ({table.age(started, at)} ago)" if started else "<none> (no pod has started)"


def _object_of(job: dict[str, Any]) -> str:
    """The workload (`deployment/x`); for a partial job, what is left of it."""
    if is_partial(job):
        return "<none> (left: " + ", ".join(leftover_refs(job)) + ")"
    return f"{job['kind'].lower()}/{job['metadata']['name']}"


def _indent(text: str) -> str:
    return "".join(f"  {line}\n" for line in text.splitlines())
