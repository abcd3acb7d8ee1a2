"""The FastAPI application: `/api/v1` routes, Swagger UI at `/api/v1/docs` with its assets
served from the installed `fastapi-offline` package (no CDN: the page works offline), the
OpenAPI document at `/api/v1/openapi.json`, the server's own Prometheus metrics at
`/metrics` (requests by route, method and code; a latency histogram), and `/readyz` (200 once
the watch cache has its first lists, 503 before and while the cache is stale).
The web console (gpuctl.server.console) at `/`, on the public API only.

The list endpoints read from a watch cache (gpuctl.cluster.cache) that the app's lifespan
starts and stops: lists across the cluster cost no request to it, and before the cache is
ready they go to the cluster directly."""

from __future__ import annotations

import gc
import importlib.resources
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Final, TypedDict

from fastapi import FastAPI, Request, Response
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gpuctl import __version__
from gpuctl.cluster.api import FullClusterAPI
from gpuctl.cluster.cache import Cache, CachedReads
from gpuctl.server import console, contract, errors, limits, origins, paths
from gpuctl.server.auth import Authenticator, Policy, Tokens
from gpuctl.server.routes import access, jobs, logs, nodes, pools, quotas, webhooks, workloads
from gpuctl.server.routes import metrics as custom_metrics
from gpuctl.server.webhooks.worker import Settings, Worker

if TYPE_CHECKING:
    from fastapi.telemetry import TelemetryConfig  # (a type only: not in older FastAPI)

PREFIX = "/api/v1"
DOCS = f"{PREFIX}/docs"
ASSETS = f"{DOCS}/assets"
READY_WAIT = 600.0  # seconds the heap freeze waits for the cache's first lists
# FastAPI's OpenTelemetry hooks, off: nothing in `gpuctl serve` sets up an OpenTelemetry
# provider (the server's metrics are its own /metrics), yet each request would look for one
# at every step (an older FastAPI keeps the unknown keyword unused)
NO_TELEMETRY: Final[TelemetryConfig] = {
    "tracing": False,
    "metrics": False,
    "logs": False,
    "operation_spans": False,
}


def create_app(
    cluster: FullClusterAPI,
    auth: Authenticator | None,
    prometheus_url: str | None = None,
    *,
    cache: bool = True,
    max_streams: int = logs.MAX_STREAMS,
    max_streams_per_user: int = logs.MAX_STREAMS_PER_USER,
    policy: Policy | None = None,
    webhook_settings: Settings | None = None,
    deliver: bool = False,
    pushgateway_url: str | None = None,
    allowed_hosts: Sequence[str] = (),
) -> FastAPI:
    """The API over one cluster; `auth` is the token file (Tokens) or the cluster's token
    reviews (TokenReviews), None for no authentication (loopback only); `prometheus_url` None
    means the jobs' metrics are empty series; `cache` False makes every list a request to the
    cluster; `policy` the admin's rules for what users' workloads may carry (default: no host
    path for a user). With token reviews there is no cache: every caller reads as themselves.
    `max_streams` caps the followed log streams open at once, `max_streams_per_user` one
    user's. `webhook_settings`: where and how webhooks are delivered; `deliver` runs the
    webhook worker (`gpuctl serve` does; it delivers while it holds the webhook Lease).
    `pushgateway_url`: where the jobs' own metrics (POST /metrics/custom) are relayed; None
    refuses them (503). `allowed_hosts`: without authentication, the names the server answers
    in `Host` besides the loopback ones (gpuctl.server.origins)."""
    from gpuctl.inventory.watched import LISTED
    from gpuctl.monitoring import custom
    from gpuctl.monitoring.prometheus import Prometheus

    as_server = auth is None or isinstance(auth, Tokens)  # reads made with our credentials
    cached = cache and as_server and cluster is not None  # (None: an app for its docs only)
    watch_cache = Cache(cluster, LISTED) if cached else None
    settings = webhook_settings or Settings()
    reads = CachedReads(cluster, watch_cache) if watch_cache is not None else cluster
    worker = Worker(cluster, reads, settings) if deliver and cluster is not None else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if watch_cache is not None:
            watch_cache.start()  # background threads: the first lists do not hold the start-up
            threading.Thread(target=_freeze_when_ready, args=(watch_cache,), daemon=True).start()
        if worker is not None:
            worker.start(lambda handler: _on_job_change(watch_cache, handler))
        try:
            yield
        finally:
            app.state.log_streams.stop_all()
            if worker is not None:
                worker.stop()
            if watch_cache is not None:
                watch_cache.stop()

    app = FastAPI(
        lifespan=lifespan,
        title="gpuctl",
        version=__version__,
        description="GPU jobs, pools, nodes and quotas on Kubernetes: the REST API of gpuctl.",
        openapi_url=f"{PREFIX}/openapi.json",
        docs_url=None,
        redoc_url=None,
        telemetry=NO_TELEMETRY,
    )
    app.state.cluster = cluster
    app.state.cache = watch_cache
    app.state.reads = reads
    app.state.webhooks = settings
    app.state.auth = auth
    app.state.policy = policy or Policy()
    app.state.prometheus = Prometheus(prometheus_url.rstrip("/")) if prometheus_url else None
    app.state.pushgateway = (
        custom.Pushgateway(pushgateway_url.rstrip("/")) if pushgateway_url else None
    )
    app.state.log_streams = logs.Streams(max_streams, max_streams_per_user)
    app.state.writes = limits.PerUser(limits.WRITES_PER_USER, "TooManyRequests", "writes")
    app.state.webhook_tests = webhooks.rate_of_test_events()
    errors.install(app)
    # the health routes first: Starlette tries the routes in order, and a probe (or a load
    # balancer's check) should not pay for matching every route of the API before its own
    _readiness(app)
    measure = _metrics(app)
    for module in (jobs, logs, custom_metrics, pools, nodes, quotas, access, webhooks, workloads):
        app.include_router(module.router, prefix=PREFIX, responses=errors.ERROR_RESPONSES)
    _docs(app)
    contract.install(app)
    console.install(app)  # last: its catch-all answers the paths no route above takes
    push = (custom.MAX_BODY, f"a push is at most {custom.MAX_NAMES} values")
    caps = {f"{PREFIX}/metrics/custom": push}
    app.add_middleware(paths.JobIdSlash, prefix=PREFIX)  # innermost: before routing only
    app.add_middleware(limits.Gate, prefix=PREFIX, caps=caps)  # inside Measure: answers counted
    hosts = origins.Hosts.of(allowed_hosts) if auth is None else None
    app.add_middleware(origins.Guard, hosts=hosts)  # before Gate: a foreign Host reads no body
    app.add_middleware(Measure, **measure)
    return app


def _on_job_change(cache: Cache | None, handler: Callable[[str, dict[str, Any]], None]) -> None:
    """Have the watch cache call `handler` on every change of a job's workload."""
    from gpuctl.inventory.status import WORKLOAD_KINDS

    for informer in cache.informers if cache is not None else ():
        if informer.watched.kind in WORKLOAD_KINDS:
            informer.handlers.append(handler)


def _freeze_when_ready(cache: Cache) -> None:
    """Once the cache holds its first lists, move every object then alive out of the garbage
    collector's reach (gc.freeze): tens of thousands of long-lived dicts that a full collection
    would otherwise scan again and again, a pause of 100 ms with 1,000 jobs. They hold no
    reference cycles, so reference counting still frees them when the cache lets them go."""
    if cache.wait_ready(READY_WAIT):
        gc.freeze()


def _readiness(app: FastAPI) -> None:
    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> Response:
        """200 when the list endpoints answer from the watch cache; 503 with the reason while
        it lists, and while a set of it is stale (its reads then go to the cluster)."""
        found: Cache | None = app.state.cache
        if found is None:
            return Response("ok\n", media_type="text/plain")
        if not found.ready:
            return Response("the watch cache is still listing\n", 503, media_type="text/plain")
        kinds_by_reason: dict[str, list[str]] = {}
        for kind, why in found.stale().items():
            kinds_by_reason.setdefault(why, []).append(kind)
        stale = "; ".join(f"{', '.join(k)}: {why}" for why, k in kinds_by_reason.items())
        if stale:
            text = f"the watch cache is stale ({stale})\n"
            return Response(text, 503, media_type="text/plain")
        return Response("ok\n", media_type="text/plain")


def _docs(app: FastAPI) -> None:
    static = importlib.resources.files("fastapi_offline") / "static"
    app.mount(ASSETS, StaticFiles(directory=str(static)), name="docs-assets")

    page = get_swagger_ui_html(
        openapi_url=app.openapi_url or "",
        title="gpuctl API",
        swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS}/favicon.png",
        # no badge from validator.swagger.io: the page sends no URL of ours to another site
        swagger_ui_parameters={"validatorUrl": None},
    ).body
    # the console's headers: scripts, styles and images from the server itself (the page's one
    # inline script, which starts Swagger UI, by its digest), never framed, never sniffed
    scripts = console.inline_script_digests(bytes(page).decode())

    @app.get(DOCS, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        headers = console.security_headers(request.headers.get("host"), scripts)
        return HTMLResponse(page, headers={**headers, "Cache-Control": "no-cache"})


def _metrics(app: FastAPI) -> MeasureMetrics:
    """The server's /metrics route; the metrics that `Measure` (added last, outermost) keeps."""
    registry = CollectorRegistry()
    requests = Counter(
        "gpuctl_api_requests",
        "API requests by route template, method and status code",
        ["route", "method", "code"],
        registry=registry,
    )
    latency = Histogram(
        "gpuctl_api_request_duration_seconds",
        "Time to the response head, by route template and method",
        ["route", "method"],
        registry=registry,
    )

    registry.register(StreamsCollector(app.state.log_streams))
    if app.state.cache is not None:
        registry.register(CacheCollector(app.state.cache))

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    return {"requests": requests, "latency": latency}


class MeasureMetrics(TypedDict):
    requests: Counter
    latency: Histogram


class StreamsCollector(Collector):
    """The followed log streams open now."""

    def __init__(self, streams: logs.Streams) -> None:
        self.streams = streams

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "gpuctl_api_log_streams_open", "Followed log streams open now", self.streams.open
        )


class CacheCollector(Collector):
    """The watch cache's state by kind: objects held, changes applied, lists after the first."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def collect(self) -> Iterator[Metric]:
        objects = GaugeMetricFamily(
            "gpuctl_api_cache_objects", "Objects in the watch cache", labels=["kind"]
        )
        changes = CounterMetricFamily(
            "gpuctl_api_cache_changes",
            "Changes applied to the watch cache (its lists and watch events)",
            labels=["kind"],
        )
        relists = CounterMetricFamily(
            "gpuctl_api_cache_relists",
            "Lists after the first (a 410 Gone, a watch that brought nothing, another cluster)",
            labels=["kind"],
        )
        misses = CounterMetricFamily(
            "gpuctl_api_cache_misses",
            "Lists a watched set would answer that went to the cluster (it was stale or not "
            "yet listed)",
            labels=["kind"],
        )
        stale = GaugeMetricFamily(
            "gpuctl_api_cache_stale",
            "1 while a watched set is stale (its reads go to the cluster), else 0",
            labels=["kind"],
        )
        for informer in self.cache.informers:
            kind = informer.watched.kind
            objects.add_metric([kind], len(informer.objects()))
            changes.add_metric([kind], informer.generation)
            relists.add_metric([kind], informer.relists)
            misses.add_metric([kind], informer.misses)
            stale.add_metric([kind], 1.0 if informer.stale else 0.0)
        yield from (objects, changes, relists, misses, stale)


class Measure:
    """Counts each HTTP request by route template, method and status code, and observes the
    time to its response head. Plain ASGI: no per-request task or stream, as Starlette's
    BaseHTTPMiddleware makes."""

    def __init__(self, app: ASGIApp, requests: Counter, latency: Histogram) -> None:
        self.app = app
        self.requests = requests
        self.latency = latency
        # each label set's child, found once (prometheus_client's labels() takes a lock and
        # builds its key on every call); bounded: route templates x methods x codes
        self._counts: dict[tuple[str, str, int], Counter] = {}
        self._latencies: dict[tuple[str, str], Histogram] = {}

    def _count(self, route: str, method: str, code: int, seconds: float) -> None:
        latency = self._latencies.get((route, method))
        if latency is None:
            latency = self._latencies[route, method] = self.latency.labels(route, method)
        latency.observe(seconds)
        count = self._counts.get((route, method, code))
        if count is None:
            count = self._counts[route, method, code] = self.requests.labels(
                route, method, str(code)
            )
        count.inc()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        answered = False

        def count(code: int) -> None:
            seconds = time.perf_counter() - started
            self._count(_route_template(scope), scope["method"], code, seconds)

        async def measured_send(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start":
                answered = True
                count(int(message["status"]))
            await send(message)

        try:
            await self.app(scope, receive, measured_send)
        except Exception:
            if not answered:  # the outermost error handler answers 500
                count(500)
            raise


def _route_template(scope: Scope) -> str:
    """`/api/v1/jobs/{jobId}`, not the path asked for (bounded label values)."""
    path = getattr(scope.get("route"), "path", None)
    if path is None:
        return "<unmatched>"
    # routers included with a prefix report their path without it
    if str(scope.get("path", "")).startswith(PREFIX + "/") and not path.startswith(PREFIX + "/"):
        path = PREFIX + path
    return str(path)
