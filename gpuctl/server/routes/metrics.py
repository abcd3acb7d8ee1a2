"""`POST /metrics/custom`: a job pushes its own values (loss, tokens per second, progress),
which the server relays to the Prometheus Pushgateway that `serve --pushgateway-url` names
(the rules and the relay: gpuctl.monitoring.custom).

The caller needs the same token as for the job's other routes and pushes only for a job they
may see: another user's job, or one that does not exist, is 404 like every job route. Without
a Pushgateway the push is 503 PushgatewayNotConfigured; a Pushgateway that does not answer is
503 PushgatewayUnavailable, one that refuses the push 502 PushgatewayError.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from gpuctl.inventory import jobs as inventory
from gpuctl.monitoring import custom
from gpuctl.server import answers
from gpuctl.server.auth import require
from gpuctl.server.bodies import CustomMetricsPush
from gpuctl.server.deps import Caller, Kube
from gpuctl.server.errors import ApiError, ErrorBody
from gpuctl.server.routes.jobs import locate

router = APIRouter(tags=["metrics"])


async def small_body(request: Request) -> None:
    """A push is a few numbers: a body over custom.MAX_BODY bytes is 413 before it is checked."""
    length = request.headers.get("content-length")
    size = int(length) if length and length.isdigit() else len(await request.body())
    if size > custom.MAX_BODY:
        raise ApiError(
            413,
            "TooLarge",
            f"a push's body is {size} bytes; at most {custom.MAX_BODY} ({custom.MAX_NAMES} values)",
        )


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
    dependencies=[Depends(small_body)],
)
def push_custom_metrics(
    body: CustomMetricsPush, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    namespace, name = locate(principal, body.job_id)
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
    return {"jobId": body.job_id, "stored": sorted(values), "pushgateway": gateway.url}
