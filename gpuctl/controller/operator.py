"""`gpuctl controller run`: kopf watches GPUWorkloads and calls the Reconciler; this module adds
what kopf does not have: Lease-based leader election, the Prometheus endpoint, /healthz and
/readyz, and calling a workload back when its retry is due. The only module that imports kopf.

kopf is set up to write nothing of its own on the objects: the handler only observes events
(no progress annotations, no finalizers), peering is off (it is not leader election), and
the resource is named, not discovered through CRD listing (RBAC grants no CRD access).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import kopf
from prometheus_client import start_http_server

from gpuctl.cluster.client import Cluster
from gpuctl.cluster.errors import KubeError, NotFound
from gpuctl.controller import resource
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.leader import LeaseElector, Timing
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.reconcile import (
    NODE_CHECK_SECONDS,
    NOT_READY_GRACE_SECONDS,
    Reconciler,
)
from gpuctl.errors import GpuctlError

log = logging.getLogger("gpuctl.controller")
RECONCILE_THREADS = 16


@dataclass
class Health:
    """What the probes report: alive unless the operator died; ready once the watch runs
    (a standby replica is ready too: it is healthy, just not leading)."""

    alive: threading.Event = field(default_factory=threading.Event)
    ready: threading.Event = field(default_factory=threading.Event)


def serve_health(port: int, health: Health) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            flags = {"/healthz": health.alive, "/readyz": health.ready}
            flag = flags.get(self.path.split("?", 1)[0])
            if flag is None:
                self.send_response(404)
                body = b"not found\n"
            else:
                ok = flag.is_set()
                self.send_response(200 if ok else 503)
                body = b"ok\n" if ok else b"not ready\n"
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # probes every few seconds would flood the log

    server = ThreadingHTTPServer(("", port), Handler)
    threading.Thread(target=server.serve_forever, name="health", daemon=True).start()
    return server


def connection_info(cluster: Cluster) -> kopf.ConnectionInfo:
    """kopf's credentials from the same kubeconfig, context or service account as gpuctl's."""
    config = cluster.api.configuration
    header = config.get_api_key_with_prefix("BearerToken") or ""
    token = header.split(" ", 1)[-1] if header else None
    return kopf.ConnectionInfo(
        server=config.host,
        ca_path=config.ssl_ca_cert,
        insecure=not config.verify_ssl,
        certificate_path=config.cert_file,
        private_key_path=config.key_file,
        token=token,
        default_namespace=cluster.namespace,
    )


class Requeue:
    """Calls a workload back after a delay (its retry), one pending call per workload."""

    def __init__(self, reconciler: Reconciler) -> None:
        self.reconciler = reconciler
        self.pending: dict[tuple[str, str], asyncio.TimerHandle] = {}

    async def run(self, body: dict[str, Any]) -> None:
        outcome = await asyncio.to_thread(self.reconciler.reconcile, body)
        meta = body["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        if key in self.pending:
            self.pending.pop(key).cancel()
        if outcome.requeue_after is not None:
            loop = asyncio.get_running_loop()
            self.pending[key] = loop.call_later(
                outcome.requeue_after, lambda: asyncio.ensure_future(self._again(key))
            )

    async def _again(self, key: tuple[str, str]) -> None:
        self.pending.pop(key, None)
        namespace, name = key
        try:
            body = await asyncio.to_thread(
                self.reconciler.cluster.get, resource.KIND, name, namespace
            )
        except NotFound:
            return
        except KubeError as exc:
            log.warning("could not read %s/%s again: %s", namespace, name, exc)
            return
        await self.run(body)

    def forget(self, namespace: str, name: str) -> None:
        handle = self.pending.pop((namespace, name), None)
        if handle is not None:
            handle.cancel()


def build_registry(
    cluster: Cluster, requeue: Requeue
) -> tuple[kopf.OperatorRegistry, kopf.OperatorSettings]:
    registry = kopf.OperatorRegistry()
    settings = kopf.OperatorSettings()
    settings.peering.standalone = True
    settings.scanning.disabled = True
    settings.posting.enabled = False
    settings.watching.server_timeout = 60

    @kopf.on.login(registry=registry)
    def login(**_: Any) -> kopf.ConnectionInfo:
        return connection_info(cluster)

    @kopf.on.event(resource.GROUP, resource.VERSION, resource.PLURAL, registry=registry)
    async def on_event(body: kopf.Body, type: str | None, **_: Any) -> None:
        meta = body.get("metadata") or {}
        if type == "DELETED":
            requeue.forget(meta.get("namespace", ""), meta.get("name", ""))
            return
        await requeue.run({key: value for key, value in body.items()})

    return registry, settings


class StopSwitch:
    """Stops kopf from another thread (the lease keeper's). kopf is given an asyncio.Event:
    a threading.Event or a concurrent Future it would wait for in an executor thread, which
    asyncio.run then waits for at exit, for ever."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._triggered = False
        self._target: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def attach(self, loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> None:
        with self._lock:
            self._target = (loop, event)
            if self._triggered:
                event.set()

    def trigger(self) -> None:
        with self._lock:
            self._triggered = True
            if self._target is not None:
                loop, event = self._target
                loop.call_soon_threadsafe(event.set)


async def _operate(
    registry: kopf.OperatorRegistry,
    settings: kopf.OperatorSettings,
    namespace: str | None,
    switch: StopSwitch,
    ready: threading.Event,
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    switch.attach(loop, stop)
    # Reconciles wait on the API server, not the CPU: more of them at once than the default
    # executor's cores + 4 (placement itself is serialized in the Reconciler).
    loop.set_default_executor(ThreadPoolExecutor(RECONCILE_THREADS, "reconcile"))
    await kopf.operator(
        registry=registry,
        settings=settings,
        namespaces=[namespace] if namespace else [],
        clusterwide=not namespace,
        standalone=True,
        stop_flag=stop,
        ready_flag=ready,
    )


@dataclass(frozen=True)
class RunOptions:
    namespace: str  # where the Lease lives
    metrics_port: int
    health_port: int
    leader_elect: bool
    identity: str = field(
        default_factory=lambda: os.environ.get("POD_NAME") or socket.gethostname()
    )
    lease_timing: Timing = field(default_factory=Timing)
    node_selector: str | None = None  # only nodes with these labels are placed on
    node_check_seconds: float = NODE_CHECK_SECONDS  # a placed, not started workload's node
    not_ready_grace_seconds: float = NOT_READY_GRACE_SECONDS  # NotReady this long: place again
    watch_namespace: str | None = None  # the GPUWorkloads of this namespace only; None: all


def run(cluster: Cluster, options: RunOptions) -> int:
    """Serve metrics and probes, wait to lead, then reconcile until stopped or no longer the
    leader. The exit code: 0 on a clean stop, 1 when leadership was lost (the Deployment
    restarts the pod, which then stands by)."""
    metrics = Metrics()
    health = Health()
    health.alive.set()
    try:
        start_http_server(options.metrics_port, registry=metrics.registry)
    except OSError as exc:
        raise GpuctlError(f"cannot serve metrics on port {options.metrics_port}: {exc}") from exc
    try:
        serve_health(options.health_port, health)
    except OSError as exc:
        raise GpuctlError(f"cannot serve probes on port {options.health_port}: {exc}") from exc
    stop = threading.Event()  # the lease keeper's: set once the operator has stopped
    lost = threading.Event()
    kopf_stop = StopSwitch()
    elector = LeaseElector(
        cluster, options.namespace, resource.NAME, options.identity, options.lease_timing
    )
    if options.leader_elect:
        health.ready.set()  # a standby is ready; it just does not reconcile
        log.info(
            "waiting to lead (lease %s/%s as %s)",
            options.namespace,
            resource.NAME,
            options.identity,
        )
        if not elector.acquire(stop):
            return 0

        def keep() -> None:
            elector.keep(stop)
            if not stop.is_set():
                lost.set()
                kopf_stop.trigger()

        keeper = threading.Thread(target=keep, name="lease", daemon=True)
        keeper.start()
    metrics.leader.set(1)
    cache = ClusterCache(cluster, options.watch_namespace, options.node_selector, resource.KIND)
    log.info(
        "reconciling the GPUWorkloads of %s",
        f"namespace {options.watch_namespace}" if options.watch_namespace else "every namespace",
    )
    if not cache.start():
        log.warning("the node, pod and workload caches did not fill within 60 s; going on")
    reconciler = Reconciler(
        cluster,
        metrics,
        node_selector=options.node_selector,
        node_check_seconds=options.node_check_seconds,
        cache=cache,
        not_ready_grace_seconds=options.not_ready_grace_seconds,
    )
    registry, settings = build_registry(cluster, Requeue(reconciler))
    ready = threading.Event()

    def mark_ready() -> None:
        ready.wait()
        health.ready.set()

    threading.Thread(target=mark_ready, name="ready", daemon=True).start()
    try:
        asyncio.run(_operate(registry, settings, options.watch_namespace, kopf_stop, ready))
    finally:
        stop.set()
        cache.stop()
        metrics.leader.set(0)
        if options.leader_elect:
            keeper.join(timeout=options.lease_timing.retry_period + 5)  # it releases the Lease
        log.info("stopped")
    return 1 if lost.is_set() else 0
