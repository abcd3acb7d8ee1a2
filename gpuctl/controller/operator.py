"""`gpuctl controller run`: one watch per resource. The informers of gpuctl.controller.cache
(nodes, pods, GPUWorkloads) keep what placement reads, and the GPUWorkload informer's changes
feed a work queue whose workers run the Reconciler; a reconcile that asks to be called back
(a retry, a node check) is put back in the queue after its delay. Around it: Lease-based
leader election, the Prometheus endpoint, and /healthz and /readyz.

Nothing of the controller's own is written on the objects (no finalizers, no annotations):
the Reconciler writes the workload's status and its Job, nothing else.
"""

from __future__ import annotations

import copy
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from prometheus_client import start_http_server

from gpuctl import constants as c
from gpuctl.cluster.api import ControllerCluster
from gpuctl.cluster.lease import unique_identity
from gpuctl.controller import resource
from gpuctl.controller.cache import ClusterCache
from gpuctl.controller.leader import LeaseElector, Timing
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.nodeloss import NOT_READY_GRACE_SECONDS
from gpuctl.controller.queue import Key, WorkQueue
from gpuctl.controller.reconcile import NODE_CHECK_SECONDS, Reconciler
from gpuctl.controller.status import ERROR_RETRY_SECONDS
from gpuctl.errors import GpuctlError

log = logging.getLogger("gpuctl.controller")
RECONCILE_THREADS = 16
# how soon to look again at a workload whose watched copy lags behind our own status write
CATCH_UP_SECONDS = 0.2
STOP_SECONDS = 5.0  # how long a stop waits for the reconciles in progress (the pod has 10 s)


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


class Holder(Protocol):
    """Where the workers read a workload as it is now: the GPUWorkload informer."""

    def get(self, namespace: str, name: str) -> dict[str, Any] | None: ...


def urgency(workloads: Holder) -> Callable[[Key], tuple[int, str]]:
    """A pending key's rank in the work queue: higher priority first, then the older workload
    (creationTimestamp; RFC 3339 UTC times order as text). A workload gone ranks last."""

    def rank(key: Key) -> tuple[int, str]:
        obj = workloads.get(*key) or {}
        priority = str((obj.get("spec") or {}).get("priority") or c.DEFAULT_PRIORITY)
        created = str((obj.get("metadata") or {}).get("creationTimestamp") or "~")
        order = c.PRIORITIES.index(priority) if priority in c.PRIORITIES else len(c.PRIORITIES)
        return order, created

    return rank


class Workers:
    """Reconcile the keys of the work queue on RECONCILE_THREADS threads (reconciles wait on
    the API server, not the CPU; placement itself is serialized in the Reconciler). Each key's
    object is the informer's: the watch that fills the placement cache is the one watch."""

    def __init__(self, reconciler: Reconciler, workloads: Holder, queue: WorkQueue) -> None:
        self.reconciler = reconciler
        self.workloads = workloads
        self.queue = queue
        self._threads: list[threading.Thread] = []

    def on_change(self, event: str, obj: dict[str, Any]) -> None:
        """The informer's handler: queue the workload (a deleted one's retry is dropped)."""
        meta = obj.get("metadata") or {}
        key = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        if event == "DELETED":
            self.queue.forget(key)
        else:
            self.queue.add(key)

    def start(self, count: int = RECONCILE_THREADS) -> None:
        for number in range(count):
            thread = threading.Thread(target=self._work, name=f"reconcile-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float) -> None:
        """Take no more keys; wait up to `timeout` for the reconciles in progress."""
        self.queue.shut_down()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _work(self) -> None:
        while (key := self.queue.get()) is not None:
            try:
                self.handle(key)
            except Exception:  # a bug in one reconcile must not stop the worker
                log.exception("%s/%s: the reconcile failed; retrying", *key)
                self.queue.add_after(key, ERROR_RETRY_SECONDS)
            finally:
                self.queue.done(key)

    def handle(self, key: Key) -> None:
        """Reconcile the workload as the informer holds it now; call it back when asked."""
        obj = self.workloads.get(*key)
        if obj is None:  # deleted meanwhile
            self.queue.forget(key)
            self.reconciler.forget(*key)
            return
        if self.reconciler.behind(obj):  # the watch has not brought our own write yet
            self.queue.add_after(key, CATCH_UP_SECONDS)
            return
        outcome = self.reconciler.reconcile(copy.deepcopy(obj))
        if outcome.requeue_after is None:
            self.queue.forget(key)
        else:
            self.queue.add_after(key, outcome.requeue_after)


def install_stop_signals(stop: threading.Event) -> None:
    """SIGTERM (the kubelet stopping the pod) and SIGINT (Ctrl-C) stop the controller cleanly:
    reconciles in progress end, the Lease is given up."""
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())


@dataclass(frozen=True)
class RunOptions:
    namespace: str  # where the Lease lives
    metrics_port: int
    health_port: int
    leader_elect: bool
    identity: str = field(default_factory=lambda: unique_identity(os.environ.get("POD_NAME")))
    lease_timing: Timing = field(default_factory=Timing)
    node_selector: str | None = None  # only nodes with these labels are placed on
    node_check_seconds: float = NODE_CHECK_SECONDS  # a placed, not started workload's node
    not_ready_grace_seconds: float = NOT_READY_GRACE_SECONDS  # NotReady this long: place again
    watch_namespace: str | None = None  # the GPUWorkloads of this namespace only; None: all


def run(cluster: ControllerCluster, options: RunOptions) -> int:
    """Serve metrics and probes, wait to lead, then reconcile until stopped (SIGTERM, SIGINT)
    or no longer the leader. The exit code: 0 on a clean stop, 1 when leadership was lost (the
    Deployment restarts the pod, which then stands by)."""
    metrics = Metrics()
    health = Health()
    health.alive.set()
    _serve(options, metrics, health)
    stop = threading.Event()  # a stop signal, or leadership lost: stop reconciling
    ended = threading.Event()  # the reconciles have ended: the Lease may be given up
    lost = threading.Event()
    install_stop_signals(stop)
    keeper: threading.Thread | None = None
    if options.leader_elect:
        health.ready.set()  # a standby is ready; it just does not reconcile
        keeper = _lead(cluster, options, stop, ended, lost)
        if keeper is None:
            return 0
    metrics.leader.set(1)
    try:
        _reconcile_until(stop, cluster, options, metrics, health)
    finally:
        ended.set()
        metrics.leader.set(0)
        if keeper is not None:
            keeper.join(timeout=options.lease_timing.retry_period + 5)  # it releases the Lease
        log.info("stopped")
    return 1 if lost.is_set() else 0


def _serve(options: RunOptions, metrics: Metrics, health: Health) -> None:
    try:
        start_http_server(options.metrics_port, registry=metrics.registry)
    except OSError as exc:
        raise GpuctlError(f"cannot serve metrics on port {options.metrics_port}: {exc}") from exc
    try:
        serve_health(options.health_port, health)
    except OSError as exc:
        raise GpuctlError(f"cannot serve probes on port {options.health_port}: {exc}") from exc


def _lead(
    cluster: ControllerCluster,
    options: RunOptions,
    stop: threading.Event,
    ended: threading.Event,
    lost: threading.Event,
) -> threading.Thread | None:
    """Wait to lead (None when stopped first), then keep the Lease on a thread of its own
    until the reconciles have `ended` (then give it up: no standby acts while a reconcile of
    this replica still runs); when it could not be renewed, set `lost` and `stop`."""
    elector = LeaseElector(
        cluster, options.namespace, resource.NAME, options.identity, options.lease_timing
    )
    log.info(
        "waiting to lead (lease %s/%s as %s)", options.namespace, resource.NAME, options.identity
    )
    if not elector.acquire(stop):
        return None

    def keep() -> None:
        elector.keep(ended)
        if not ended.is_set():
            lost.set()
            stop.set()

    keeper = threading.Thread(target=keep, name="lease", daemon=True)
    keeper.start()
    return keeper


def _reconcile_until(
    stop: threading.Event,
    cluster: ControllerCluster,
    options: RunOptions,
    metrics: Metrics,
    health: Health,
) -> None:
    """Fill the caches, then reconcile every workload the watch brings until `stop`."""
    cache = ClusterCache(cluster, options.watch_namespace, options.node_selector, resource.KIND)
    reconciler = Reconciler(
        cluster,
        metrics,
        node_selector=options.node_selector,
        node_check_seconds=options.node_check_seconds,
        cache=cache,
        not_ready_grace_seconds=options.not_ready_grace_seconds,
    )
    workers = Workers(reconciler, cache.workloads, WorkQueue(order=urgency(cache.workloads)))
    cache.workloads.handlers.append(workers.on_change)  # before the first list: none is missed
    log.info(
        "reconciling the GPUWorkloads of %s",
        f"namespace {options.watch_namespace}" if options.watch_namespace else "every namespace",
    )
    try:
        if not cache.start():
            log.warning("the node, pod and workload caches did not fill within 60 s; going on")
        workers.start()  # after the caches filled: placement reads them
        health.ready.set()
        while not stop.wait(1.0):  # woken by a signal's handler as well as by the lease keeper
            pass
    finally:
        workers.stop(timeout=STOP_SECONDS)
        cache.stop()
