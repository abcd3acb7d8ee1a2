"""A job's logs: the last lines as JSON, or followed (`follow=true`) as a chunked text/plain
stream or over a WebSocket on the same path. Followed streams are capped in number
(`MAX_STREAMS`, 429 beyond) and end when the client leaves or a finished Job's pods stop.

Also `GET /jobs/{jobId}/metrics`: the job's GPU utilisation and memory over time from
Prometheus (`serve --prometheus-url`), through the same queries as `gpuctl describe job`;
without a Prometheus every series is empty (`source` null) rather than invented."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, WebSocket
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from gpuctl.cluster.client import Cluster
from gpuctl.errors import GpuctlError
from gpuctl.inventory import jobs as inventory
from gpuctl.server import answers
from gpuctl.server.auth import Principal, authenticate, require
from gpuctl.server.deps import Caller, Kube
from gpuctl.server.errors import ApiError, body_of
from gpuctl.server.kubeauth import acting
from gpuctl.server.routes.jobs import locate

router = APIRouter(tags=["jobs"])
MAX_STREAMS = 32
METRICS = ("gpuUtilization", "memoryUsage", "throughput")
Tail = Annotated[int, Query(ge=0, le=100_000, description="last N lines of each pod")]


class Streams:
    """How many followed log streams are open; at most MAX_STREAMS."""

    def __init__(self, limit: int = MAX_STREAMS) -> None:
        self._slots = threading.BoundedSemaphore(limit)

    def take(self) -> None:
        if not self._slots.acquire(blocking=False):
            raise ApiError(429, "TooManyStreams", f"at most {MAX_STREAMS} log streams at once")

    def give_back(self) -> None:
        self._slots.release()


def _job(cluster: Cluster, principal: Principal, job_id: str, pod: str | None) -> dict[str, Any]:
    namespace, name = locate(principal, job_id)
    require(principal, "jobs", "get", namespace)
    job = inventory.find_job(cluster, name, namespace)
    if pod is not None and pod not in {
        p["metadata"]["name"] for p in inventory.pods_of(cluster, job)
    }:
        raise ApiError(404, "PodNotFound", f"job {job_id!r} has no pod {pod!r}")
    return job


@router.get(
    "/jobs/{jobId}/logs",
    response_model=answers.JobLogs,
    responses={200: {"content": {"text/plain": {}}, "description": "follow=true: lines"}},
    summary="A job's logs; follow=true streams them",
)
def job_logs(
    request: Request,
    jobId: str,
    principal: Caller,
    cluster: Kube,
    tail: Tail = 100,
    pod: str | None = None,
    follow: bool = False,
) -> Any:
    job = _job(cluster, principal, jobId, pod)
    options = inventory.LogOptions(follow=follow, tail=tail, pod=pod)
    if not follow:
        lines = list(inventory.stream_logs(cluster, job, options, threading.Event()))
        return {"logs": lines, "lastTimestamp": None}
    streams: Streams = request.app.state.log_streams
    streams.take()
    return StreamingResponse(_chunks(cluster, job, options, streams), media_type="text/plain")


async def _lines(
    cluster: Cluster, job: dict[str, Any], options: inventory.LogOptions, stop: threading.Event
) -> AsyncIterator[str]:
    """The log lines, each read in the thread pool (the reads block)."""
    source: Iterator[str] = inventory.stream_logs(cluster, job, options, stop)
    while not stop.is_set():
        line = await run_in_threadpool(next, source, None)
        if line is None:
            return
        yield line


async def _chunks(
    cluster: Cluster, job: dict[str, Any], options: inventory.LogOptions, streams: Streams
) -> AsyncIterator[str]:
    stop = threading.Event()
    try:
        async for line in _lines(cluster, job, options, stop):
            yield line + "\n"
    finally:  # also when the client left and the response was cancelled
        stop.set()
        streams.give_back()


@router.websocket("/jobs/{jobId}/logs")
async def follow_logs(
    websocket: WebSocket, jobId: str, tail: int = 100, pod: str | None = None
) -> None:
    """Each log line as one text message, until the job's pods stop or the client leaves.
    Authentication is the Authorization header of the upgrade request."""
    app = websocket.app
    streams: Streams = app.state.log_streams
    try:
        header = websocket.headers.get("authorization")
        principal = await run_in_threadpool(authenticate, app.state.auth, header)
        cluster = acting(app.state.cluster, principal)
        job = await run_in_threadpool(_job, cluster, principal, jobId, pod)
        streams.take()
    except GpuctlError as exc:
        await websocket.close(code=1008, reason=body_of(exc)["message"][:120])
        return
    await websocket.accept()
    stop = threading.Event()
    watcher = asyncio.create_task(_until_closed(websocket, stop))
    options = inventory.LogOptions(follow=True, tail=tail, pod=pod)
    try:
        async for line in _lines(cluster, job, options, stop):
            await websocket.send_text(line)
        await websocket.close()
    except (WebSocketDisconnect, RuntimeError):
        pass  # the client left
    finally:
        stop.set()
        watcher.cancel()
        streams.give_back()


async def _until_closed(websocket: WebSocket, stop: threading.Event) -> None:
    try:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass
    finally:
        stop.set()


@router.get(
    "/jobs/{jobId}/metrics",
    response_model=answers.JobMetrics,
    response_model_exclude_unset=True,
    summary="A job's GPU metric series from Prometheus (empty series without one)",
)
def job_metrics(
    jobId: str,
    principal: Caller,
    cluster: Kube,
    request: Request,
    metric: Annotated[str | None, Query(description=", ".join(METRICS))] = None,
    start_time: Annotated[str | None, Query(alias="startTime")] = None,
    end_time: Annotated[str | None, Query(alias="endTime")] = None,
) -> dict[str, Any]:
    job = _job(cluster, principal, jobId, None)
    if metric is not None and metric not in METRICS:
        raise ApiError(400, "BadRequest", f"metric {metric!r} is not one of {', '.join(METRICS)}")
    wanted = [metric] if metric else list(METRICS)
    prometheus = request.app.state.prometheus
    if prometheus is None:
        return {
            **{name: [] for name in wanted},
            "source": None,
            "message": "no metrics source is configured: the series are empty",
        }
    from gpuctl.monitoring.gpu import job_metrics_range

    end = _when(end_time, time.time())
    start = _when(start_time, end - 3600)
    if start >= end:
        raise ApiError(400, "BadRequest", "startTime must be before endTime")
    pods = [p["metadata"]["name"] for p in inventory.pods_of(cluster, job)]
    series = job_metrics_range(prometheus, job["metadata"]["namespace"], pods, start, end)
    return {
        **{name: series.get(name, []) for name in wanted},
        "source": prometheus.url,
        "message": "throughput has no DCGM series: it stays empty"
        if "throughput" in wanted
        else "",
    }


def _when(text: str | None, default: float) -> float:
    """An RFC 3339 time (`2026-11-23T10:00:00Z`) as Unix seconds; `default` when absent."""
    if not text:
        return default
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise ApiError(
            400, "BadRequest", f"{text!r} is not a time such as 2026-11-23T10:00:00Z"
        ) from None
