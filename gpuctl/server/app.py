"""The FastAPI application: `/api/v1` routes, Swagger UI at `/api/v1/docs` with its assets
served from the installed `fastapi-offline` package (no CDN: the page works offline), the
OpenAPI document at `/api/v1/openapi.json`, and the server's own Prometheus metrics at
`/metrics` (requests by route, method and code; a latency histogram)."""

from __future__ import annotations

import importlib.resources
import time
from collections.abc import Awaitable, Callable

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

from gpuctl import __version__
from gpuctl.cluster.client import Cluster
from gpuctl.server import errors
from gpuctl.server.auth import Authenticator
from gpuctl.server.routes import access, jobs, logs, nodes, pools, quotas

PREFIX = "/api/v1"
DOCS = f"{PREFIX}/docs"
ASSETS = f"{DOCS}/assets"


def create_app(
    cluster: Cluster, auth: Authenticator | None, prometheus_url: str | None = None
) -> FastAPI:
    """The API over one cluster; `auth` is the token file (Tokens) or the cluster's token
    reviews (TokenReviews), None for no authentication (loopback only); `prometheus_url` None
    means the jobs' metrics are empty series."""
    from gpuctl.monitoring.prometheus import Prometheus

    app = FastAPI(
        title="gpuctl",
        version=__version__,
        description="GPU jobs, pools, nodes and quotas on Kubernetes: the REST API of gpuctl.",
        openapi_url=f"{PREFIX}/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    app.state.cluster = cluster
    app.state.auth = auth
    app.state.prometheus = Prometheus(prometheus_url.rstrip("/")) if prometheus_url else None
    app.state.log_streams = logs.Streams()
    errors.install(app)
    for module in (jobs, logs, pools, nodes, quotas, access):
        app.include_router(module.router, prefix=PREFIX, responses=errors.ERROR_RESPONSES)
    _docs(app)
    _metrics(app)
    return app


def _docs(app: FastAPI) -> None:
    static = importlib.resources.files("fastapi_offline") / "static"
    app.mount(ASSETS, StaticFiles(directory=str(static)), name="docs-assets")

    @app.get(DOCS, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "",
            title="gpuctl API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
        )


def _metrics(app: FastAPI) -> None:
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

    @app.middleware("http")
    async def measure(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        route = _route_template(request)
        latency.labels(route, request.method).observe(time.perf_counter() - started)
        requests.labels(route, request.method, str(response.status_code)).inc()
        return response

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


def _route_template(request: Request) -> str:
    """`/api/v1/jobs/{jobId}`, not the path asked for (bounded label values)."""
    path = getattr(request.scope.get("route"), "path", None)
    if path is None:
        return "<unmatched>"
    # routers included with a prefix report their path without it
    if request.url.path.startswith(PREFIX + "/") and not path.startswith(PREFIX + "/"):
        path = PREFIX + path
    return str(path)
