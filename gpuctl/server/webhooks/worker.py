"""The webhook worker of `gpuctl serve`: threads that, while its replica holds the Lease
`gpuctl-webhooks` (coordination.k8s.io, in gpuctl-system, renewed on a thread of its own),
turn job transitions into outbox messages and deliver the messages that are due, fairly
between owners (a slow receiver delays only its own owner's deliveries). Replicas without the
Lease only serve the API; a holder that vanishes (kill -9) loses it once the Lease has gone
unchanged for LEASE_SECONDS on another replica's own clock (gpuctl.cluster.lease), and that
replica, or the same one restarted, carries on from the outbox.

Transitions are read from the jobs the server's watch cache holds (no request to the cluster;
a change wakes the worker at once) and compared with the events the job's workload records as
announced (an annotation): each event is written to the outbox of every subscription that
covers it, then recorded on the workload. A crash between the two writes the same outbox
entries again, which exist already (at least once, never twice queued). A job that leaves the
cache while the worker runs is `job.deleted`.

Delivery is at least once: the same `webhook-id` on every attempt, a new signature per attempt;
a 2xx answer ends it; anything else (an error code, a timeout, a refused address) tries again
after an exponential backoff with jitter, until the message is older than the retry window: it
is then dropped and its subscription disabled (shown with the reason)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import urllib3

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import KubeError, NotFound
from gpuctl.cluster.lease import Lease, unique_identity
from gpuctl.inventory import jobs as inventory
from gpuctl.inventory.status import WORKLOAD_KINDS
from gpuctl.server.views import job_item
from gpuctl.server.webhooks import fair, safety, signing, store
from gpuctl.times import milli_rfc3339

log = logging.getLogger("gpuctl.webhooks")

LEASE_SECONDS = 15
STATUS_EVENTS = {"running": "job.running", "succeeded": "job.succeeded", "failed": "job.failed"}
MAX_BODY = 64 * 1024
MAX_REASON = 1024
WORKERS = 8  # deliveries at once, all owners together
PER_OWNER = 2  # deliveries of one owner at once: slow receivers of one owner hold only these


@dataclass(frozen=True)
class Settings:
    allowed: tuple[safety.Network, ...] = ()  # ranges an admin allows despite the rules
    timeout: float = 10.0  # one attempt
    retry_base: float = 5.0  # the first retry's delay; each next one 4 times longer
    retry_max: float = 6 * 3600.0  # no delay longer
    window: float = 24 * 3600.0  # a message older than this is dropped, its subscription off
    overlap: float = 24 * 3600.0  # a rotated secret still signs this long
    tick: float = 1.0


def message_id(subscription: str, job_uid: str, event: str) -> str:
    return "msg_" + hashlib.sha256(f"{subscription}\0{job_uid}\0{event}".encode()).hexdigest()[:32]


def backoff(attempt: int, settings: Settings, rng: random.Random) -> float:
    """Seconds before attempt `attempt + 1`: base * 4^(attempt-1), capped, times a random
    factor in [0.5, 1) (jitter: receivers that failed together are not retried together)."""
    delay = min(settings.retry_max, settings.retry_base * 4.0 ** max(0, attempt - 1))
    return float(delay * rng.uniform(0.5, 1.0))


def event_body(event: str, data: dict[str, Any]) -> str:
    """The JSON body, as the Standard Webhooks payload: type, timestamp, data."""
    body = json.dumps({"type": event, "timestamp": milli_rfc3339(time.time()), "data": data})
    return body[:MAX_BODY]


def _reason(obj: dict[str, Any]) -> str:
    """The last true condition's reason and message (a failed Job's BackoffLimitExceeded)."""
    conditions = [x for x in (obj.get("status") or {}).get("conditions") or [] if x]
    true = [x for x in conditions if x.get("status") == "True"]
    if not true:
        return ""
    last = true[-1]
    words = ": ".join(part for part in (last.get("reason"), last.get("message")) if part)
    return words[:MAX_REASON]


def job_data(obj: dict[str, Any], status: str) -> dict[str, Any]:
    item = job_item(obj, None)
    return {
        "jobId": item["jobId"],
        "name": item["name"],
        "kind": item["kind"],
        "namespace": item["namespace"],
        "status": status,
        "reason": "" if status == "deleted" else _reason(obj),
        "time": milli_rfc3339(time.time()),
    }


# ------------------------------------------------------------------------------- lease


@dataclass
class Leader:
    """The Lease that makes one replica the deliverer (gpuctl.cluster.lease: expiry judged on
    this replica's own clock, whatever the holder's clock says)."""

    cluster: ClusterAPI
    identity: str = field(default_factory=unique_identity)
    seconds: int = LEASE_SECONDS
    name: str = c.WEBHOOK_LEASE  # (another name only for a test sharing a cluster)
    lease: Lease = field(init=False)

    def __post_init__(self) -> None:
        self.lease = Lease(self.cluster, store.NAMESPACE, self.name, self.identity, self.seconds)

    def hold(self) -> bool:
        """Take the Lease when it is free or expired, renew it when it is ours; True while
        this replica holds it (False while its namespace is not there yet)."""
        try:
            return self.lease.try_acquire_or_renew()
        except NotFound:
            return False

    def release(self) -> None:
        """Delete the Lease when it is ours: the next replica takes it at once."""
        with contextlib.suppress(KubeError):
            self.lease.release(delete=True)


# ---------------------------------------------------------------------------- announce


@dataclass
class Announcer:
    """Job transitions to outbox messages."""

    cluster: ClusterAPI  # writes: the server's own credentials
    reads: ClusterAPI  # the jobs: the watch cache when there is one
    known: dict[str, dict[str, Any]] | None = None  # uid: workload, as last seen

    def run(self, subscriptions: list[store.Subscription]) -> None:
        wanted = inventory.selector()  # the jobs' workloads only: one list per kind
        workloads = [
            obj
            for kind in WORKLOAD_KINDS
            for obj in self.reads.list(kind, None, label_selector=wanted)
        ]
        now = {obj["metadata"]["uid"]: obj for obj in workloads}
        if self.known is not None:
            for uid, gone in self.known.items():
                if uid not in now:
                    self._send(subscriptions, gone, "job.deleted", "deleted", first_sight=False)
        self.known = now
        for obj in workloads:
            self._transitions(subscriptions, obj)

    def _transitions(self, subscriptions: list[store.Subscription], obj: dict[str, Any]) -> None:
        annotations = obj["metadata"].get("annotations") or {}
        recorded = annotations.get(c.WEBHOOK_ANNOUNCED_ANNOTATION)
        announced = set((recorded or "").split(",")) - {""}
        status = job_item(obj, None)["status"]
        due = [] if "job.created" in announced else ["job.created"]
        if STATUS_EVENTS.get(status) and STATUS_EVENTS[status] not in announced:
            due.append(STATUS_EVENTS[status])
        if not due:
            return
        for event in due:
            self._send(subscriptions, obj, event, status, first_sight=recorded is None)
        value = ",".join(sorted(announced | set(due)))
        meta = obj["metadata"]
        patch = {"metadata": {"annotations": {c.WEBHOOK_ANNOUNCED_ANNOTATION: value}}}
        with contextlib.suppress(NotFound):
            self.cluster.patch(obj["kind"], meta["name"], meta["namespace"], patch)

    def _send(
        self,
        subscriptions: list[store.Subscription],
        obj: dict[str, Any],
        event: str,
        status: str,
        *,
        first_sight: bool,
    ) -> None:
        """Queue `event` for each subscription that covers it. A job seen for the first time
        (created before any server announced it) is announced only to subscriptions older
        than the job: a new subscription does not get the past of every job."""
        meta = obj["metadata"]
        created = str(meta.get("creationTimestamp") or "")
        body = event_body(event, job_data(obj, status))
        for sub in subscriptions:
            if not sub.covers(meta["namespace"], event):
                continue
            if first_sight and created < sub.created_at:
                continue
            message = store.Message(
                sub.id, message_id(sub.id, meta["uid"], event), event, body, 0, time.time(), 0.0
            )
            if store.enqueue(self.cluster, message):
                log.info("webhook %s queued for %s: %s", message.webhook_id, sub.id, event)


# ----------------------------------------------------------------------------- deliver


def _failure(exc: Exception, timeout: float) -> str:
    """An attempt's failure in words, without the URL (its path or query may be a secret)."""
    if isinstance(exc, safety.RefusedUrl):
        return str(exc)
    if isinstance(exc, (urllib3.exceptions.TimeoutError, TimeoutError)):
        return f"no answer within {timeout:g}s"
    if isinstance(exc, urllib3.exceptions.SSLError):
        return "TLS handshake or certificate check failed"
    if isinstance(exc, (urllib3.exceptions.NewConnectionError, ConnectionError)):
        return "connection refused or unreachable"
    return f"request failed ({type(exc).__name__})"


Pair = tuple[store.Subscription, store.Message]


@dataclass
class Deliverer:
    """Delivers the due messages on `workers` threads, fairly (gpuctl.server.webhooks.fair):
    at most `per_owner` deliveries of one owner at once, one per subscription, so an owner
    whose receivers are slow delays only their own deliveries; a worker that finishes takes
    the next due delivery at once."""

    cluster: ClusterAPI
    settings: Settings
    rng: random.Random = field(default_factory=random.Random)
    workers: int = WORKERS
    per_owner: int = PER_OWNER
    queue: fair.FairQueue[Pair] = field(init=False)
    threads: list[threading.Thread] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.queue = fair.FairQueue(self.per_owner)

    def start(self) -> None:
        """Deliver on threads of their own until `stop`, whatever `offer` hands them."""
        for number in range(self.workers):
            thread = threading.Thread(
                target=self._work, name=f"webhook-delivery-{number}", daemon=True
            )
            thread.start()
            self.threads.append(thread)

    def stop(self, timeout: float) -> None:
        """Start no more deliveries; wait up to `timeout` for those in progress."""
        self.queue.close()
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def offer(self, subscriptions: list[store.Subscription]) -> None:
        """Hand the messages due now to the workers (in place of those handed before); drop
        the messages of deleted subscriptions."""
        by_id = {sub.id: sub for sub in subscriptions}
        now = time.time()
        due: list[fair.Entry[Pair]] = []
        for message in store.outbox(self.cluster):
            sub = by_id.get(message.subscription)
            if sub is None:
                store.drop(self.cluster, message)  # its subscription was deleted
            elif sub.disabled is None and message.next_at <= now:
                pair = (sub, message)
                due.append(fair.Entry(sub.owner, sub.id, message.name, message.attempts, pair))
        self.queue.offer(due)

    def pause(self) -> None:
        """Hand out nothing more (deliveries in progress finish)."""
        self.queue.offer([])

    def run(self, subscriptions: list[store.Subscription]) -> None:
        """Deliver what is due now, on threads that end when nothing more may go: one pass,
        for a caller without started workers."""
        self.offer(subscriptions)
        passes = [
            threading.Thread(target=self._work, args=(False,), daemon=True)
            for _ in range(self.workers)
        ]
        for thread in passes:
            thread.start()
        for thread in passes:
            thread.join()

    def _work(self, wait: bool = True) -> None:
        while (entry := self.queue.take(wait)) is not None:
            written = False
            try:
                self.attempt(*entry.item)
                written = True
            except Exception:  # the cluster failed while recording: tried again when due
                log.warning("webhook %s: recording the attempt failed", entry.name, exc_info=True)
            finally:
                self.queue.done(entry, written=written)

    def attempt(self, sub: store.Subscription, message: store.Message) -> None:
        attempt = message.attempts + 1
        body = message.body.encode()
        code: int | None = None
        error: str | None = None
        try:
            in_force = store.secrets_in_force(self.cluster, sub.id)
            headers = signing.headers(in_force, message.webhook_id, int(time.time()), body)
            code = safety.post(sub.url, body, headers, self.settings.allowed, self.settings.timeout)
            if not 200 <= code < 300:
                error = f"answered {code}"
        except Exception as exc:  # every failure of one attempt is a reason to retry
            error = _failure(exc, self.settings.timeout)
        outcome = "delivered" if error is None else "retrying"
        if error is None:
            store.drop(self.cluster, message)
        elif time.time() - message.first_at >= self.settings.window:
            outcome = "gave-up"
            store.drop(self.cluster, message)
            why = (
                f"disabled at {store.now_text()}: {message.webhook_id} failed for "
                f"{self.settings.window:g}s ({error}); delete and subscribe again"
            )
            store.set_disabled(self.cluster, sub.id, why)
        else:
            next_at = time.time() + backoff(attempt, self.settings, self.rng)
            store.reschedule(self.cluster, message, attempt, next_at)
        log.info("webhook %s to %s, attempt %d: %s", message.webhook_id, sub.id, attempt, outcome)
        delivery: store.Delivery = {
            "webhookId": message.webhook_id,
            "event": message.event,
            "attempt": attempt,
            "at": store.now_text(),
            "outcome": outcome,
            "statusCode": code,
            "error": error,
        }
        store.record(self.cluster, sub.id, delivery)


# ------------------------------------------------------------------------------ worker


@dataclass
class Worker:
    """Three parts on threads of their own: the Lease, renewed every tick whatever else takes
    long; the announcer, which (while the Lease is held) turns transitions into messages and
    hands the due ones to the deliverer every tick or at once on a change; the deliverer's
    workers."""

    cluster: ClusterAPI
    reads: ClusterAPI
    settings: Settings
    leader: Leader = field(init=False)
    wake: threading.Event = field(default_factory=threading.Event)
    stopping: threading.Event = field(default_factory=threading.Event)
    holding: threading.Event = field(default_factory=threading.Event)  # the Lease is ours
    renewing: threading.Lock = field(default_factory=threading.Lock)  # one attempt at a time
    thread: threading.Thread | None = None
    lease_thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        self.leader = Leader(self.cluster)
        self.announcer = Announcer(self.cluster, self.reads)
        self.deliverer = Deliverer(self.cluster, self.settings)

    def start(self, on_change: Callable[[Callable[[str, dict[str, Any]], None]], None]) -> None:
        """Run in threads; `on_change` registers a handler the watch cache calls on every
        change of a job (it wakes the worker)."""
        on_change(lambda _event, _obj: self.wake.set())
        self.lease_thread = threading.Thread(
            target=self._hold_lease, name="webhooks-lease", daemon=True
        )
        self.lease_thread.start()
        self.deliverer.start()
        self.thread = threading.Thread(target=self._loop, name="webhooks", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()
        for thread in (self.thread, self.lease_thread):
            if thread is not None:
                thread.join(timeout=self.settings.timeout + 5)
        self.deliverer.stop(self.settings.timeout + 5)
        with contextlib.suppress(Exception):
            self.leader.release()

    def _hold_lease(self) -> None:
        """Take or renew the Lease every tick, however long deliveries or announcing take."""
        while not self.stopping.is_set():
            self._renew()
            self.stopping.wait(self.settings.tick)

    def _renew(self) -> None:
        """One attempt to take or renew the Lease; losing it stops handing out deliveries at
        once (those in progress finish)."""
        with self.renewing:
            try:
                held = self.leader.hold()
            except Exception:  # unknown: deliver nothing until the Lease is surely ours
                log.warning("webhook lease: renewing failed", exc_info=True)
                held = False
            if held and not self.holding.is_set():
                self.holding.set()
                self.wake.set()
            elif not held and self.holding.is_set():
                self.holding.clear()
                self.deliverer.pause()

    def _loop(self) -> None:
        while not self.stopping.is_set():
            try:
                self.once()
            except Exception:  # a cluster that fails now may answer at the next tick
                log.warning("webhook worker: this round failed, trying again", exc_info=True)
            self.wake.wait(self.settings.tick)
            self.wake.clear()

    def once(self) -> None:
        if not self.holding.is_set():
            self._renew()  # a change woke us: try to take the Lease now, not at the next tick
        if not self.holding.is_set():
            self.announcer.known = None  # a holder again later starts from what it sees then
            return
        subscriptions = store.listed(self.cluster)
        self.announcer.run(subscriptions)
        self.deliverer.offer(subscriptions)
        if not self.holding.is_set():  # lost meanwhile: hand out nothing of that listing
            self.deliverer.pause()
