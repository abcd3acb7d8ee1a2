"""A job's logs: the last lines as JSON, or followed (`follow=true`) as a chunked text/plain
stream or over a WebSocket on the same path.

The last lines are at most `limitBytes` bytes of them (LIMIT_BYTES unless asked, at most
MAX_LIMIT_BYTES): whole lines, Kubernetes asked for no more, and `truncated` says when lines
were left out; `lastTimestamp` is when the last line returned was written. A read counts
against the same caps as the followed streams, and ends between two lines when its client
leaves.

A followed stream is owned by its request: a thread of its own reads the pods' logs (never
one of the shared pool's), and both it and the request look at least every second whether the
stream was ended, so a stream ends within a second or two of its client leaving, whatever the
workload writes (also nothing), and the pods' log connections are shut with it. At most
`MAX_STREAMS` are open at once, `MAX_STREAMS_PER_USER` of one user (429 beyond, both set by
`serve`'s flags); the server's shutdown ends them all.

Also `GET /jobs/{jobId}/metrics`: the job's GPU utilisation and memory over time from
Prometheus (`serve --prometheus-url`), through the same queries as `gpuctl describe job`;
without a Prometheus every series is empty (`source` null) rather than invented."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import logging
import threading
import time
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, WebSocket
from fastapi.responses import StreamingResponse
from pydantic import Field, TypeAdapter, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from gpuctl.cluster.api import ClusterAPI, LogCluster
from gpuctl.errors import GpuctlError
from gpuctl.inventory import jobs as inventory
from gpuctl.server import answers
from gpuctl.server.auth import Principal, authenticate, require
from gpuctl.server.deps import Caller, Kube
from gpuctl.server.errors import ApiError, body_of
from gpuctl.server.kubeauth import acting
from gpuctl.server.params import one_of
from gpuctl.server.routes.jobs import JobIdPath, locate
from gpuctl.times import parse_rfc3339

log = logging.getLogger("gpuctl.server")
router = APIRouter(tags=["jobs"])
MAX_STREAMS = 32  # log reads and followed streams open at once, all users together
MAX_STREAMS_PER_USER = 8  # ... and of one user
WAKE = 1.0  # seconds: how often a waiting stream looks whether it was ended
METRICS = ("gpuUtilization", "memoryUsage", "throughput", "custom")
MAX_TAIL = 100_000
Tail = Annotated[int, Query(ge=0, le=MAX_TAIL, description="last N lines of each pod")]
LIMIT_BYTES = 1024 * 1024  # bytes of lines one answer holds at most, unless asked
MAX_LIMIT_BYTES = 16 * 1024 * 1024
LimitBytes = Annotated[
    int,
    Query(
        alias="limitBytes",
        ge=1,
        le=MAX_LIMIT_BYTES,
        description="at most this many bytes of lines in all, whole lines (not with follow)",
    ),
]
LOGS_PROTOCOL = "logs.gpuctl.v1"  # the subprotocol a browser offers beside its token's
BEARER_PROTOCOL = "base64url.bearer.authorization.k8s.io."
_TAIL: TypeAdapter[int] = TypeAdapter(Annotated[int, Field(ge=0, le=MAX_TAIL)])


@dataclass(eq=False)
class Stream:
    """One followed log stream: whose, and the event that ends it."""

    user: str
    stop: threading.Event = field(default_factory=threading.Event)


class Streams:
    """The followed log streams: at most `limit` open at once, `per_user` of one user; each
    one ends when its client leaves, and all end at `stop_all` (the server's shutdown)."""

    def __init__(self, limit: int = MAX_STREAMS, per_user: int = MAX_STREAMS_PER_USER) -> None:
        self.limit = limit
        self.per_user = per_user
        self._lock = threading.Lock()
        self._open: set[Stream] = set()
        self.stopping = False

    @property
    def open(self) -> int:
        """How many streams are open now."""
        with self._lock:
            return len(self._open)

    def take(self, user: str = "anonymous") -> Stream:
        with self._lock:
            if self.stopping:
                raise ApiError(503, "ShuttingDown", "the server is shutting down")
            if len(self._open) >= self.limit:
                raise ApiError(
                    429, "TooManyStreams", f"at most {self.limit} log streams at once", _RETRY
                )
            if sum(1 for s in self._open if s.user == user) >= self.per_user:
                raise ApiError(
                    429,
                    "TooManyStreams",
                    f"at most {self.per_user} log reads and streams of one user at once ({user})",
                    _RETRY,
                )
            stream = Stream(user)
            self._open.add(stream)
            return stream

    def give_back(self, stream: Stream) -> None:
        stream.stop.set()
        with self._lock:
            self._open.discard(stream)

    def stop_all(self) -> None:
        """End every stream (each closes within WAKE seconds), and open no more."""
        with self._lock:
            self.stopping = True
            streams = list(self._open)
        for stream in streams:
            stream.stop.set()


_RETRY = {"Retry-After": "5"}


def _job(cluster: ClusterAPI, principal: Principal, job_id: str, pod: str | None) -> dict[str, Any]:
    namespace, name = locate(principal, cluster, job_id)
    require(principal, "jobs", "get", namespace)
    job = inventory.find_job(cluster, name, namespace)
    if pod is not None and pod not in {
        p["metadata"]["name"] for p in inventory.pods_of(cluster, job)
    }:
        raise ApiError(404, "PodNotFound", f"job {job_id!r} has no pod {pod!r}")
    return job


@router.get(
    "/jobs/{jobId}/logs",
    operation_id="getJobLogs",
    description=(
        "The last `tail` lines of each of the job's pods as JSON, at most `limitBytes` bytes of"
        " them (1 MiB unless asked; `truncated` says when lines were left out) and when the "
        "last one was written (`lastTimestamp`); with `follow=true`, a chunked `text/plain` "
        "stream of lines that ends when the pods stop (the same path also takes a WebSocket "
        "upgrade: one text message a line). One user reads and follows at most 8 at once "
        "unless `serve --max-log-streams-per-user` says otherwise (429 with Retry-After beyond)."
    ),
    response_model=answers.JobLogs,
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "the lines (JSON); with follow=true, a text/plain stream of lines",
        }
    },
    summary="A job's logs; follow=true streams them",
)
async def job_logs(
    request: Request,
    jobId: JobIdPath,
    principal: Caller,
    cluster: Kube,
    tail: Tail = 100,
    pod: str | None = None,
    follow: bool = False,
    limit_bytes: LimitBytes = LIMIT_BYTES,
) -> Any:
    job = await run_in_threadpool(_job, cluster, principal, jobId, pod)
    streams: Streams = request.app.state.log_streams
    stream = streams.take(principal.user)
    if not follow:
        options = inventory.LogOptions(tail=tail, pod=pod, limit_bytes=limit_bytes)
        try:
            read = await _read_once(request, cluster, job, options, stream)
        finally:
            streams.give_back(stream)
        return {
            "logs": read.lines,
            "lastTimestamp": read.last_timestamp,
            "truncated": read.truncated,
        }
    options = inventory.LogOptions(follow=True, tail=tail, pod=pod)
    return StreamingResponse(
        _chunks(cluster, job, options, streams, stream), media_type="text/plain"
    )


async def _read_once(
    request: Request,
    cluster: LogCluster,
    job: dict[str, Any],
    options: inventory.LogOptions,
    stream: Stream,
) -> inventory.LogLines:
    """The last lines (inventory.read_logs), read in a worker thread; when the client leaves
    meanwhile, the read is stopped (it ends between two lines) rather than finished."""
    reading = asyncio.ensure_future(
        run_in_threadpool(inventory.read_logs, cluster, job, options, stream.stop)
    )
    while not (await asyncio.wait({reading}, timeout=WAKE))[0]:
        if await request.is_disconnected():
            stream.stop.set()
    return reading.result()


async def _lines(
    cluster: LogCluster, job: dict[str, Any], options: inventory.LogOptions, stream: Stream
) -> AsyncIterator[str]:
    """The log lines, read by a thread of the stream's own (not the shared pool's) into a
    bounded queue; ends within WAKE seconds of `stream.stop`, and sets it when the consumer
    stops (the client left: the reading thread then ends within a second too)."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue(maxsize=256)
    source = inventory.stream_logs(cluster, job, options, stream.stop)
    reader = threading.Thread(
        target=_read, args=(source, lines, loop, stream.stop), name="log-stream", daemon=True
    )
    reader.start()
    try:
        while not stream.stop.is_set():
            try:
                line = await asyncio.wait_for(lines.get(), WAKE)
            except TimeoutError:
                continue
            if line is None:
                return
            yield line
    finally:
        stream.stop.set()


def _read(
    source: Iterator[str],
    lines: asyncio.Queue[str | None],
    loop: asyncio.AbstractEventLoop,
    stop: threading.Event,
) -> None:
    """Hands each line over to the event loop, waiting (waking each WAKE) while the queue is
    full; None at the end. The source ends within a second of `stop` (stream_logs)."""
    try:
        for line in source:
            if not _hand_over(line, lines, loop, stop):
                return
    except GpuctlError as exc:
        _hand_over(f"<log stream ended: {exc}>", lines, loop, stop)
    except Exception:
        log.exception("a log stream failed")
        _hand_over("<log stream ended: internal error>", lines, loop, stop)
    finally:
        if isinstance(source, Generator):
            source.close()  # ends the pods' streams (stream_logs)
    _hand_over(None, lines, loop, stop)


def _hand_over(
    item: str | None,
    lines: asyncio.Queue[str | None],
    loop: asyncio.AbstractEventLoop,
    stop: threading.Event,
) -> bool:
    put = lines.put(item)
    try:
        handed = asyncio.run_coroutine_threadsafe(put, loop)
    except RuntimeError:  # the event loop is gone: the put never runs
        put.close()
        return False
    while not stop.is_set():
        try:
            handed.result(WAKE)
            return True
        except concurrent.futures.TimeoutError:
            continue
    handed.cancel()
    return False


async def _chunks(
    cluster: LogCluster,
    job: dict[str, Any],
    options: inventory.LogOptions,
    streams: Streams,
    stream: Stream,
) -> AsyncIterator[str]:
    try:
        async for line in _lines(cluster, job, options, stream):
            yield line + "\n"
    finally:  # also when the client left and the response was cancelled
        streams.give_back(stream)


@router.websocket("/jobs/{jobId}/logs")
async def follow_logs(
    websocket: WebSocket, jobId: str, tail: str | None = None, pod: str | None = None
) -> None:
    """Each log line as one text message, until the job's pods stop or the client leaves.
    Authentication is the Authorization header of the upgrade request, or (a browser cannot
    set that header) the token in the subprotocol `base64url.bearer.authorization.k8s.io.
    <token, base64url without padding>` offered beside `logs.gpuctl.v1`, which the server
    then answers with. A refusal (no or an
    unknown token, another user's job, no such job or pod, a bad `tail`, too many streams)
    accepts the connection and closes it with code 1008 and the reason."""
    offered = [str(name) for name in websocket.scope.get("subprotocols", [])]
    await websocket.accept(subprotocol=LOGS_PROTOCOL if LOGS_PROTOCOL in offered else None)
    app = websocket.app
    streams: Streams = app.state.log_streams
    try:
        lines = _tail(tail)
        header = websocket.headers.get("authorization") or bearer_of_subprotocols(offered)
        principal = await run_in_threadpool(authenticate, app.state.auth, header)
        cluster = acting(app.state.cluster, principal)
        job = await run_in_threadpool(_job, cluster, principal, jobId, pod)
        stream = streams.take(principal.user)
    except GpuctlError as exc:
        await websocket.close(code=1008, reason=_reason(body_of(exc)))
        return
    watcher = asyncio.create_task(_until_closed(websocket, stream.stop))
    options = inventory.LogOptions(follow=True, tail=lines, pod=pod)
    try:
        async for line in _lines(cluster, job, options, stream):
            await websocket.send_text(line)
        await websocket.close()
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass  # the client left
    finally:
        watcher.cancel()
        streams.give_back(stream)


def bearer_of_subprotocols(offered: list[str]) -> str | None:
    """`Bearer <token>` from a subprotocol that carries it (as Kubernetes' own API takes a
    browser's token), None when none does or it is not base64url."""
    for name in offered:
        if name.startswith(BEARER_PROTOCOL):
            encoded = name.removeprefix(BEARER_PROTOCOL)
            try:
                padded = encoded + "=" * (-len(encoded) % 4)
                token = base64.b64decode(padded, altchars=b"-_", validate=True).decode()
            except (ValueError, UnicodeDecodeError):
                return None
            return f"Bearer {token}"
    return None


def _tail(text: str | None) -> int:
    """`tail` as the HTTP endpoint takes it (the same rule, the same message)."""
    if text is None:
        return 100
    try:
        return _TAIL.validate_python(text, strict=False)
    except ValidationError as exc:
        message = str(exc.errors()[0].get("msg", "invalid"))
        raise ApiError(400, "InvalidRequest", f"query.tail: {message}") from None


def _reason(body: dict[str, Any]) -> str:
    """A close reason: `<error>: <message>`, cut to the 123 bytes a close frame holds."""
    text = f"{body['error']}: {body['message']}"
    encoded = text.encode("utf-8")[:123]
    return encoded.decode("utf-8", "ignore")


async def _until_closed(websocket: WebSocket, stop: threading.Event) -> None:
    try:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass
    finally:
        stop.set()


@router.get(
    "/jobs/{jobId}/metrics",
    operation_id="getJobMetrics",
    description=(
        "The job's GPU utilisation, GPU memory and throughput over time, from the Prometheus "
        "that `serve --prometheus-url` names, and `custom`: the series of the values the job "
        "pushed (POST /metrics/custom) by name; `throughput` is its tokensPerSecond (else "
        "samplesPerSecond). Without a Prometheus every series is empty and `source` is null."
    ),
    response_model=answers.JobMetrics,
    response_model_exclude_unset=True,
    summary="A job's GPU metric series from Prometheus (empty series without one)",
)
def job_metrics(
    jobId: JobIdPath,
    principal: Caller,
    cluster: Kube,
    request: Request,
    metric: Annotated[
        str | None, Query(description="only this series", json_schema_extra={"enum": list(METRICS)})
    ] = None,
    start_time: Annotated[str | None, Query(alias="startTime")] = None,
    end_time: Annotated[str | None, Query(alias="endTime")] = None,
) -> dict[str, Any]:
    job = _job(cluster, principal, jobId, None)
    one_of("metric", metric, METRICS)
    wanted = [metric] if metric else list(METRICS)
    end = _when("endTime", end_time, time.time())  # checked with or without a Prometheus
    start = _when("startTime", start_time, end - 3600)
    if start >= end:
        raise ApiError(400, "InvalidRequest", "startTime must be before endTime", field="startTime")
    prometheus = request.app.state.prometheus
    if prometheus is None:
        return {
            **{name: {} if name == "custom" else [] for name in wanted},
            "source": None,
            "message": "no metrics source is configured: the series are empty",
        }
    from gpuctl.monitoring import custom
    from gpuctl.monitoring.gpu import HISTORY_POINTS, job_metrics_range

    pods = [p["metadata"]["name"] for p in inventory.pods_of(cluster, job)]
    namespace, name = inventory.job_of(job)
    series: dict[str, Any] = job_metrics_range(prometheus, namespace, pods, start, end)
    if "throughput" in wanted or "custom" in wanted:
        step = max((end - start) / HISTORY_POINTS, 1.0)
        own = custom.job_series(prometheus, namespace, name, start, end, step)
        series.update(custom=own, throughput=custom.throughput_of(own))
    no_throughput = "throughput" in wanted and not series["throughput"]
    return {
        **{key: series.get(key, []) for key in wanted},
        "source": prometheus.url,
        "message": "throughput is empty: the job pushed no tokensPerSecond or samplesPerSecond"
        if no_throughput
        else "",
    }


def _when(field: str, text: str | None, default: float) -> float:
    """An RFC 3339 time (`2026-11-23T10:00:00Z`) as Unix seconds; `default` when absent."""
    if not text:
        return default
    seconds = parse_rfc3339(text)
    if seconds is None:
        message = f"{field}: {text!r} is not a time such as 2026-11-23T10:00:00Z"
        raise ApiError(400, "InvalidRequest", message, field=field)
    return seconds
