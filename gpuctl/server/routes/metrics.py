"""`POST /metrics/custom`: a job pushes its own values (loss, tokens per second, progress),
which the server relays to the Prometheus Pushgateway that `serve --pushgateway-url` names
(the rules and the relay: gpuctl.monitoring.custom).

The caller needs the same token as for the job's other routes and pushes only for a job they
may see: another user's job, or one that does not exist, is 404 like every job route. Without
a Pushgateway the push is 503 PushgatewayNotConfigured; a Pushgateway that does not answer is
503 PushgatewayUnavailable, one that refuses the push 502 PushgatewayError. A body over 16 KiB
is 413 TooLarge before it is read (limits.Gate, which app.py gives this route its own cap).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Annotated, Any, Final

from fastapi import APIRouter, Query, Request

from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory import jobs as inventory
from gpuctl.inventory import status
from gpuctl.inventory.nodes import ACTIVE_PODS
from gpuctl.monitoring import custom
from gpuctl.server import answers
from gpuctl.server.auth import require
from gpuctl.server.bodies import CustomMetricsPush
from gpuctl.server.deps import Caller, Kube, Reads
from gpuctl.server.errors import ApiError, ErrorBody
from gpuctl.server.routes.jobs import locate, visible_jobs
from gpuctl.spec.jobref import job_id

router = APIRouter(tags=["metrics"])
SPARKLINE_WINDOW: Final = 1800.0  # seconds: GET /metrics/jobs covers the last half hour
JobKey = tuple[str, str]  # (namespace, job name)


@router.post(
    "/metrics/custom",
    operation_id="pushCustomMetrics",
    description=(
        "A job reports its own values: `progress` (percent, shown by `gpuctl get jobs`), "
        "`loss`, `tokensPerSecond` or `samplesPerSecond` (the job's `throughput`), or any other"
        " metric name. Each becomes the gauge `gpuctl_job_<name>` in the job's Pushgateway "
        "group (job, namespace); a push replaces the values of the names it carries and keeps "
        "the others. At most 32 names and 16 KiB a push; names as Prometheus metric names "
        "without `:`, values finite numbers. `GET /jobs/{jobId}/metrics` reads them back."
    ),
    response_model=answers.CustomMetricsPushed,
    responses={
        413: {"model": ErrorBody, "description": "a body over 16 KiB (TooLarge)"},
        502: {"model": ErrorBody, "description": "the Pushgateway refused the push"},
        503: {
            "model": ErrorBody,
            "description": "no Pushgateway configured, or it does not answer",
        },
    },
    summary="Push a job's own metric values (loss, throughput, progress)",
)
def push_custom_metrics(
    body: CustomMetricsPush, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    namespace, name = key = locate(principal, cluster, body.job_id)
    require(principal, "jobs", "get", namespace)
    try:
        values = custom.checked(body.metrics)
    except custom.InvalidValues as exc:
        raise ApiError(400, "InvalidRequest", str(exc), field=exc.field) from None
    inventory.find_job(cluster, name, namespace)  # 404 JobNotFound when there is none
    gateway: custom.Pushgateway | None = request.app.state.pushgateway
    if gateway is None:  # (after the request's own faults: those are the caller's to fix)
        raise ApiError(
            503,
            "PushgatewayNotConfigured",
            "this server has no Pushgateway: start it with --pushgateway-url URL "
            f"(or ${custom.ENV_VAR}); nothing was stored",
        )
    gateway.push(namespace, name, values)
    return {"jobId": key.id, "stored": sorted(values), "pushgateway": gateway.url}


@router.get(
    "/metrics/jobs",
    operation_id="listJobsUtilisation",
    description=(
        "The GPU utilisation of every job the caller may see (a user's own; every "
        "namespace's for an admin), as GET /jobs lists them: per job the last `points` values "
        "(%) of the mean over its pods' GPUs, evenly spaced over the last 30 minutes, oldest "
        "first, from one Prometheus query however many jobs there are. Jobs with no GPU "
        "figure are left out. Without a Prometheus `items` is empty and `source` null."
    ),
    response_model=answers.JobsUtilisation,
    summary="Every visible job's recent GPU utilisation (sparklines), in one request",
)
def jobs_utilisation(
    principal: Caller,
    reads: Reads,
    request: Request,
    points: Annotated[int, Query(ge=2, le=60, description="values per job")] = 20,
) -> dict[str, Any]:
    require(principal, "jobs", "get")
    prometheus = request.app.state.prometheus
    if prometheus is None:
        return {
            "items": [],
            "source": None,
            "message": "no metrics source is configured: start serve with --prometheus-url",
        }
    from gpuctl.monitoring.gpu import utilisation_by_pod

    pods = _pods_by_job(reads, visible_jobs(reads, principal, None, None, None))
    namespaces = None if principal.admin else sorted({namespace for namespace, _ in pods})
    end = time.time()
    step = SPARKLINE_WINDOW / points
    by_pod = utilisation_by_pod(prometheus, namespaces, end - SPARKLINE_WINDOW, end, step)
    items = []
    for key, names in sorted(pods.items()):
        values = _mean_over_pods(by_pod.get((key[0], name), []) for name in names)
        if values:
            items.append({"jobId": job_id(*key), "gpuUtilization": values[-points:]})
    return {"items": items, "source": prometheus.url, "message": ""}


def _pods_by_job(reads: ClusterAPI, jobs: list[dict[str, Any]]) -> dict[JobKey, list[str]]:
    """The running pods of each of `jobs`, from one list of pods."""
    wanted: dict[JobKey, list[str]] = {inventory.job_of(job): [] for job in jobs}
    namespaces = {namespace for namespace, _ in wanted}
    where = next(iter(namespaces)) if len(namespaces) == 1 else None
    if not wanted:
        return {}
    for pod in reads.list("Pod", where, field_selector=ACTIVE_PODS):
        meta = pod.get("metadata") or {}
        key = (meta.get("namespace", ""), status.job_name_of(inventory.labels_of(pod)))
        if key in wanted:
            wanted[key].append(meta.get("name", ""))
    return wanted


def _mean_over_pods(series: Iterable[list[tuple[float, float]]]) -> list[float]:
    """At each time any pod has a value, the mean of the pods' values there."""
    at: dict[float, list[float]] = {}
    for points in series:
        for when, value in points:
            at.setdefault(when, []).append(value)
    return [round(sum(values) / len(values), 1) for _, values in sorted(at.items())]
