"""A watch-backed cache of the objects the REST API lists, the way client-go's informers and the
API server's watch cache keep theirs: list once (paged), then watch from the list's
resourceVersion and apply each ADDED, MODIFIED and DELETED; list again when the server says the
version is gone (410) or the watch cannot be resumed. One background thread per watched set.

    cache = Cache(cluster, [Watched("Node"), Watched("Pod", field_selector=ACTIVE_PODS)])
    cache.start()
    reads = CachedReads(cluster, cache)        # a ClusterAPI: lists from the cache
    reads.list("Node", label_selector="runwhere.ai/pool=a")
    cache.catch_up("Node", "n1", None)         # after a write: the cache shows it before we answer

Objects are kept as the server sent them, less `metadata.managedFields` (the bulk of most
objects, never read). Listed objects are shared, not copied: callers must not change them.
Until the first list of a set is done, or for a list the cache cannot answer (another field
selector, a set-based label selector), reads go to the cluster.

A set is stale, and its reads go to the cluster, from the moment the cache cannot vouch for it
until a list or a watch event shows the cluster again: a list or watch failed; no event and no
bookmark came for longer than a watch lasts (a frozen server); a whole watch brought nothing
and a list of one object then answers at a version below the newest seen (a new cluster,
behind the version the watch resumes from, sends nothing at all); a watch ended before its
time (the server stopped: a new one may answer next); or a resourceVersion went backwards (a
different cluster answers). A cut watch resumes only when a list of one object answers at a
version not below the newest seen; else, as in the other cases and for a cluster that could
not be reached, the set is listed again. A whole watch that brought nothing is common on a live
cluster too (the API server does not promise bookmarks, and often sends none to a short watch
of a quiet set): that one-object list then vouches for the set, and nothing is listed again.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from gpuctl.cluster.api import ClusterAPI, VersionedLists
from gpuctl.cluster.errors import Gone, KubeError, NotFound, Unreachable
from gpuctl.cluster.forwarding import Forwarding

log = logging.getLogger("gpuctl.cache")
Obj = dict[str, Any]
Ident = tuple[str, str]  # (namespace, name); namespace "" for cluster-scoped objects

WATCH_SECONDS = 5  # the server ends each watch after this; the next one resumes from the last rv
# how long the cluster may stay silent before a set is stale: the watch's length and a margin
# (after a watch that brought nothing, a list of one object is heard from the cluster)
SILENCE_SECONDS = WATCH_SECONDS + 3.0
RETRY_SECONDS = (0.2, 5.0)  # back-off after a failed list or watch: first, at most
SHORT_WATCH_SECONDS = 1.0  # a watch that ends sooner counts as a failure (back-off)
RAN_ITS_COURSE = 0.9  # a watch that lasted this share of WATCH_SECONDS was not cut short
CATCH_UP_SECONDS = 5.0  # how long a write waits for the watch to bring its object
REMEMBERED = 256  # results CachedReads.remember keeps (all dropped when full)
# How long a remembered result may trail other clients' changes: while the cluster changes
# many times a second, each result is computed again at most this often, not on every request
# after each change. This server's own writes (Cache.catch_up) are shown at once.
TRAIL_SECONDS = 0.25
T = TypeVar("T")
# The watched sets read by the CachedReads.remember computation in progress (None: the cluster).
_recording: ContextVar[list[tuple[Informer, int] | None] | None] = ContextVar(
    "recording", default=None
)


class Source(VersionedLists, Protocol):
    """What the cache needs of a cluster connection: versioned lists, watches and finding one
    object (gpuctl.cluster.client.Cluster has them)."""

    def watch(
        self,
        kind: str,
        namespace: str | None,
        *,
        resource_version: str,
        field_selector: str | None = None,
        label_selector: str | None = None,
        timeout_seconds: int = 30,
    ) -> Iterator[tuple[str, Obj]]: ...

    def find(self, kind: str, name: str, namespace: str | None = None) -> Obj | None: ...


@dataclass(frozen=True)
class Watched:
    """One set of objects to keep: a kind, in one namespace or all (None), narrowed by an
    equality label selector (`a=b,c`) and a field selector passed to the server as is."""

    kind: str
    namespace: str | None = None
    label_selector: str = ""
    field_selector: str = ""


# ------------------------------------------------------------------------ selectors


class Selector:
    """An equality-based label selector (`a=b`, `a==b`, `a!=b`, `a`, `!a`, comma-joined); the
    set-based forms (`in`, `notin`) are not understood (`parse` gives None)."""

    def __init__(self, terms: Sequence[tuple[str, str, str]]) -> None:
        self.terms = tuple(terms)  # (key, operator "=", "!=", "exists" or "!exists", value)

    @classmethod
    def parse(cls, text: str | None) -> Selector | None:
        terms: list[tuple[str, str, str]] = []
        for raw in (text or "").split(","):
            term = raw.strip()
            if not term:
                continue
            if any(mark in term for mark in ("(", ")", " in ", " notin ")):
                return None
            if "!=" in term:
                key, value = term.split("!=", 1)
                terms.append((key.strip(), "!=", value.strip()))
            elif "=" in term:
                key, value = term.replace("==", "=", 1).split("=", 1)
                terms.append((key.strip(), "=", value.strip()))
            elif term.startswith("!"):
                terms.append((term[1:].strip(), "!exists", ""))
            else:
                terms.append((term, "exists", ""))
        return cls(terms)

    def matches(self, labels: dict[str, str]) -> bool:
        for key, operator, value in self.terms:
            present = key in labels
            if operator == "=" and (not present or labels[key] != value):
                return False
            if operator == "!=" and present and labels[key] == value:
                return False
            if operator == "exists" and not present:
                return False
            if operator == "!exists" and present:
                return False
        return True

    def covers(self, narrower: Selector) -> bool:
        """True when every object `narrower` selects is selected by this one: each of this
        selector's terms is among `narrower`'s."""
        return set(self.terms) <= set(narrower.terms)


def _labels(obj: Obj) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _ident(obj: Obj) -> Ident:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _version(obj: Obj | None) -> int:
    """The object's resourceVersion as a number (etcd revisions are; 0 when unknown)."""
    return _number(str(((obj or {}).get("metadata") or {}).get("resourceVersion") or ""))


def _number(version: str) -> int:
    return int(version) if version.isdigit() else 0


def _kept(obj: Obj, kind: str, api_version: str) -> Obj:
    """What the cache keeps of an object: all but metadata.managedFields, with its kind."""
    meta = obj.get("metadata") or {}
    if "managedFields" in meta:
        obj = {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    obj.setdefault("kind", kind)
    if api_version:
        obj.setdefault("apiVersion", api_version)
    return obj


# ------------------------------------------------------------------------ informer


Transform = Callable[[Obj], Obj]
# Told of each change to a watched set, on its thread: ("ADDED" | "MODIFIED" | "DELETED", the
# object as kept). A list tells every object it holds, and DELETED for each it no longer does.
Handler = Callable[[str, Obj], None]


class Informer:
    """One watched set, kept up to date by a background thread. `transform` reduces each
    object to what its readers need (applied after managedFields are dropped)."""

    def __init__(
        self, source: Source, watched: Watched, transform: Transform | None = None
    ) -> None:
        self.source = source
        self.watched = watched
        self.transform = transform
        self.selector = Selector.parse(watched.label_selector) or Selector([])
        self.synced = threading.Event()  # the first list is in
        self.relists = 0  # lists after the first (a 410, a watch that could not resume)
        self.misses = 0  # lists it would have answered, sent to the cluster: stale or unlisted
        self.generation = 0  # bumped on every change to the objects held
        self.silence_seconds = SILENCE_SECONDS
        self._heard = 0.0  # time.monotonic() of the last list, watch event or bookmark
        self._trouble = ""  # why the set is stale until the cluster is heard again ("" none)
        self._newest = 0  # the highest resourceVersion seen (a lower one: another cluster)
        self._objects: dict[Ident, Obj] = {}
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._resource_version = ""
        self._api_version = ""
        self._listed: list[Obj] | None = None  # the current objects as a list, until a change
        self.handlers: list[Handler] = []  # told of every change (a controller's work queue)

    # -- reading ----------------------------------------------------------------------

    def objects(self) -> list[Obj]:
        """Every object of the set (shared, not copied: do not change them)."""
        with self._changed:
            if self._listed is None:
                self._listed = list(self._objects.values())
            return self._listed

    def get(self, namespace: str, name: str) -> Obj | None:
        """One object by namespace ("" for cluster-scoped kinds) and name."""
        with self._changed:
            return self._objects.get((namespace, name))

    @property
    def resource_version(self) -> str:
        return self._resource_version

    @property
    def stale(self) -> str:
        """Why the set may not be the cluster's as it is now ("" when the cache vouches for it):
        a failure since the cluster was last heard, or a silence longer than a watch lasts."""
        if self._trouble:
            return self._trouble
        silent = time.monotonic() - self._heard
        if silent > self.silence_seconds and self.synced.is_set():
            return f"no word from the cluster for {silent:.0f}s"
        return ""

    def _mark_stale(self, why: str) -> None:
        if not self._trouble:
            log.warning("cache %s: stale: %s", self.watched.kind, why)
        self._trouble = why

    def _heard_now(self) -> None:
        self._heard = time.monotonic()
        self._trouble = ""

    def serves(self, kind: str, namespace: str | None, field_selector: str | None) -> bool:
        wanted = self.watched
        return (
            kind == wanted.kind
            and (field_selector or "") == wanted.field_selector
            and (wanted.namespace is None or namespace == wanted.namespace)
        )

    # -- running ----------------------------------------------------------------------

    def start(self) -> None:
        name = f"cache-{self.watched.kind.lower()}"
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ask the thread to end; a watch in progress ends when its next event or its server
        time-out arrives (the thread is a daemon: it never holds the process)."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                failures = self._list_and_watch(failures)
            except Gone as exc:
                self._mark_stale(f"listing again: {exc}")
                self._resource_version = ""
            except NotFound:  # the kind is not served (yet): a CRD not installed holds nothing
                failures += 1
                self.replace_all([])
                self._stop.wait(_backoff(failures))
            except KubeError as exc:  # unreachable, 5xx, or refused: try again after a while
                failures += 1
                self._mark_stale(str(exc))
                if isinstance(exc, Unreachable):  # another cluster may answer next: list it
                    self._resource_version = ""
                self._stop.wait(_backoff(failures))
            except Exception as exc:  # never let the thread die: the cache would go stale silently
                failures += 1
                log.exception("cache %s: unexpected error", self.watched.kind)
                self._mark_stale(f"unexpected error: {type(exc).__name__}")
                self._resource_version = ""
                self._stop.wait(_backoff(failures))

    def _list_and_watch(self, failures: int) -> int:
        """List when there is no resourceVersion to resume from, then watch once; the number
        of failures in a row after it (a watch that ends at once is one)."""
        if not self._resource_version:
            self._list()
        started = time.monotonic()
        heard = self._watch()
        lasted = time.monotonic() - started
        if self._stop.is_set():
            return failures
        if lasted >= WATCH_SECONDS * RAN_ITS_COURSE:
            # a quiet set of a live cluster may get no bookmark either (the API server sends
            # none to a watch as short as ours): ask where the cluster is; a cluster behind the
            # version asked for (not the one the list came from) is another one
            if heard or self._same_cluster():
                return 0
            self._mark_stale(f"a {WATCH_SECONDS}s watch brought no event and no bookmark")
            self._resource_version = ""
            return 0
        # the server ended the watch before its time (it is stopping, or a proxy cut it): the
        # set is stale until the cluster is heard again, and the watch resumes only from a
        # cluster that is not behind it (a new cluster on the same address lists afresh)
        self._mark_stale(f"the watch ended after {lasted:.1f}s of {WATCH_SECONDS}s")
        if lasted < SHORT_WATCH_SECONDS:  # a server that ends every watch at once must not
            failures += 1  # be asked in a loop
            self._stop.wait(_backoff(failures))
        else:
            failures = 0
        if not self._stop.is_set() and not self._same_cluster():
            self._resource_version = ""
        return failures

    def _same_cluster(self) -> bool:
        """After a watch that brought nothing: True (the set is heard from) when the cluster
        answers a list of one object at a resourceVersion not below the newest seen, False
        when it is behind (another cluster). A failure raises, as a list's would."""
        wanted = self.watched
        version = self.source.current_version(
            wanted.kind,
            wanted.namespace,
            label_selector=wanted.label_selector or None,
            field_selector=wanted.field_selector or None,
        )
        if _number(version) < self._newest:
            return False
        self._heard_now()
        return True

    def _list(self) -> None:
        wanted = self.watched
        items, version = self.source.list_versioned(
            wanted.kind,
            wanted.namespace,
            label_selector=wanted.label_selector or None,
            field_selector=wanted.field_selector or None,
        )
        self._api_version = next((str(o.get("apiVersion", "")) for o in items), "")
        number = _number(version)
        if number and number < self._newest:
            log.warning(
                "cache %s: the list's resourceVersion %s is below the %s seen: another cluster",
                wanted.kind,
                version,
                self._newest,
            )
        self._newest = number
        self.replace_all(items, version)

    def replace_all(self, items: Sequence[Obj], version: str = "") -> None:
        """Hold exactly `items` (a list's answer, at resourceVersion `version`)."""
        fresh = {_ident(obj): self._kept(obj) for obj in items}
        with self._changed:
            held = self._objects
            self._objects = fresh
            self._changed_objects()
            self._resource_version = version
            if self.synced.is_set():
                self.relists += 1
            self._heard_now()
            self._changed.notify_all()
        self.synced.set()
        for ident, obj in fresh.items():
            self._tell("MODIFIED" if ident in held else "ADDED", obj)
        for ident, obj in held.items():
            if ident not in fresh:
                self._tell("DELETED", obj)

    def _tell(self, event: str, obj: Obj) -> None:
        for handler in self.handlers:
            handler(event, obj)

    def _kept(self, obj: Obj) -> Obj:
        kept = _kept(obj, self.watched.kind, self._api_version)
        return self.transform(kept) if self.transform else kept

    def _watch(self) -> bool:
        """One watch, until the server ends it; whether it brought any event or bookmark."""
        wanted = self.watched
        events = self.source.watch(
            wanted.kind,
            wanted.namespace,
            resource_version=self._resource_version,
            label_selector=wanted.label_selector or None,
            field_selector=wanted.field_selector or None,
            timeout_seconds=WATCH_SECONDS,
        )
        heard = False
        for kind, obj in events:
            if self._stop.is_set():
                return heard
            self._apply(kind, obj)
            heard = True
        return heard

    def _apply(self, event: str, obj: Obj) -> None:
        """One watch event. A BOOKMARK only moves the resourceVersion on. A resourceVersion
        below one seen before comes from another cluster: Gone (list again)."""
        version = str((obj.get("metadata") or {}).get("resourceVersion") or "")
        number = _number(version)
        if number and number < self._newest:
            raise Gone(
                f"the watch went back from resourceVersion {self._newest} to {version}: "
                "another cluster"
            )
        self._newest = max(self._newest, number)
        self._heard_now()
        told: Obj | None = None
        with self._changed:
            if event in ("ADDED", "MODIFIED"):
                told = self._kept(obj)
                self._put(told)
            elif event == "DELETED":
                told = obj
                self._remove(_ident(obj), _version(obj))
            if version:
                self._resource_version = version
            self._changed.notify_all()
        if told is not None:
            self._tell(event, told)

    def _put(self, obj: Obj) -> None:
        ident = _ident(obj)
        held = self._objects.get(ident)
        if held is not None and _version(held) > _version(obj):
            return  # a write's answer already put a newer state here (catch_up)
        self._objects[ident] = obj
        self._changed_objects()

    def _remove(self, ident: Ident, version: int) -> None:
        held = self._objects.get(ident)
        if held is not None and (version == 0 or _version(held) <= version):
            del self._objects[ident]
            self._changed_objects()

    def _changed_objects(self) -> None:
        self._listed = None
        self.generation += 1

    # -- read-your-writes -------------------------------------------------------------

    def wait_for(self, ident: Ident, current: Obj | None, timeout: float) -> bool:
        """Wait until the cache holds `current` (the object as the server has it now, at least
        its resourceVersion) or, when None or outside the set, no object at `ident`. When the
        watch does not bring it in `timeout`, put it in by hand; False then."""
        wanted = current if current is not None and self._selects(current) else None

        def caught_up() -> bool:
            held = self._objects.get(ident)
            if wanted is None:
                return held is None
            return held is not None and _version(held) >= _version(wanted)

        with self._changed:
            if self._changed.wait_for(caught_up, timeout):
                return True
            if wanted is None:
                self._objects.pop(ident, None)
            else:
                self._objects[ident] = self._kept(wanted)
            self._changed_objects()
            return False

    def _selects(self, obj: Obj) -> bool:
        """Whether the set holds `obj` (its label selector; field selectors are the server's:
        an object that a write returns is assumed to be in them)."""
        return self.selector.matches(_labels(obj))


def _backoff(failures: int) -> float:
    first, most = RETRY_SECONDS
    return random.uniform(0, min(most, first * 2**failures))


# ------------------------------------------------------------------------ the cache


class Cache:
    """The watched sets of one cluster connection."""

    def __init__(
        self,
        source: Source,
        watched: Sequence[Watched],
        transforms: Mapping[str, Transform] | None = None,
    ) -> None:
        """`transforms`: by kind, what each set of that kind keeps of its objects."""
        self.source = source
        self.informers = [
            Informer(source, item, (transforms or {}).get(item.kind)) for item in watched
        ]
        self.writes = 0  # catch-ups finished: this server's own writes the cache shows

    def start(self) -> None:
        for informer in self.informers:
            informer.start()

    def stop(self) -> None:
        for informer in self.informers:
            informer.stop()

    @property
    def ready(self) -> bool:
        """Every set has had its first list."""
        return all(informer.synced.is_set() for informer in self.informers)

    def stale(self) -> dict[str, str]:
        """Why each stale set (by kind) may not be the cluster's now; empty when none is."""
        found: dict[str, str] = {}
        for informer in self.informers:
            why = informer.stale
            if why:
                found.setdefault(informer.watched.kind, why)
        return found

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        return all(i.synced.wait(max(0.0, deadline - time.monotonic())) for i in self.informers)

    def lister(
        self,
        kind: str,
        namespace: str | None,
        label_selector: str | None,
        field_selector: str | None,
    ) -> Callable[[], list[Obj]] | None:
        """How to answer this list from the cache, or None when it cannot (not synced yet,
        stale, or no watched set holds every object the list could select)."""
        wanted = Selector.parse(label_selector)
        if wanted is None:
            return None
        missed: Informer | None = None
        for informer in self.informers:
            if not informer.serves(kind, namespace, field_selector):
                continue
            if not informer.selector.covers(wanted):
                continue
            if not informer.synced.is_set() or informer.stale:
                missed = missed or informer
                continue
            more = Selector([t for t in wanted.terms if t not in informer.selector.terms])
            return _lister(informer, namespace, more)
        if missed is not None:
            missed.misses += 1  # counted once a list: the read that goes to the cluster
        return None

    def catch_up(
        self, kind: str, name: str, namespace: str | None, timeout: float | None = None
    ) -> None:
        """After a write to object `name`: read it from the cluster (one GET) and wait until
        every set of its kind shows it as it is now (or, deleted, not at all), so that a list
        right after the write sees it."""
        interested = [
            i
            for i in self.informers
            if i.watched.kind == kind and i.synced.is_set() and not i.stale  # else not read
        ]
        interested = [i for i in interested if i.watched.namespace in (None, namespace or "")]
        if not interested:
            return
        try:
            current = self.source.find(kind, name, namespace)
        except NotFound:
            current = None
        for informer in interested:
            informer.wait_for((namespace or "", name), current, timeout or CATCH_UP_SECONDS)
        self.writes += 1  # a result remembered before this write is not shown again


def _lister(informer: Informer, namespace: str | None, more: Selector) -> Callable[[], list[Obj]]:
    def listed() -> list[Obj]:
        recording = _recording.get()
        if recording is not None:
            recording.append((informer, informer.generation))  # before: no change is missed
        return _select(informer.objects(), namespace, more)

    return listed


def _select(objects: list[Obj], namespace: str | None, wanted: Selector) -> list[Obj]:
    if namespace is None and not wanted.terms:
        return list(objects)
    return [
        obj
        for obj in objects
        if (namespace is None or (obj.get("metadata") or {}).get("namespace") == namespace)
        and wanted.matches(_labels(obj))
    ]


class NotCached(KubeError):
    """A call CachedReads.offline cannot answer from the cache (it never calls the cluster)."""


@dataclass(frozen=True)
class Remembered:
    """A result of CachedReads.remember: the watched sets it read (each with its generation
    then), the value, when it was computed and how many of this server's writes it shows."""

    reads: tuple[tuple[Informer, int], ...]
    value: Any
    computed: float  # time.monotonic()
    writes: int

    def answers(self, writes: int, trail_seconds: float) -> bool:
        """Whether it may be answered now: no set it read is stale, and either none changed
        or it is younger than `trail_seconds` and no write of this server came since."""
        if any(informer.stale for informer, _ in self.reads):
            return False
        if all(informer.generation == seen for informer, seen in self.reads):
            return True
        return writes == self.writes and time.monotonic() - self.computed < trail_seconds


class CachedReads(Forwarding):
    """A ClusterAPI whose lists come from the cache when it can answer them; every other call
    (and every list it cannot answer) goes to the cluster.

    `offline` is the same without the cluster: whatever the cache cannot answer raises
    NotCached, so code that must not wait on the network (an event loop) can read from it."""

    def __init__(
        self,
        cluster: ClusterAPI,
        cache: Cache,
        *,
        direct: bool = True,
        trail_seconds: float = TRAIL_SECONDS,
    ) -> None:
        self._cluster = cluster
        self.cache = cache
        self.namespace = cluster.namespace
        self.direct = direct
        self.trail_seconds = trail_seconds
        self._remembered: dict[Hashable, Remembered] = {}
        self.offline = (
            self
            if not direct
            else CachedReads(cluster, cache, direct=False, trail_seconds=trail_seconds)
        )
        self.offline._remembered = self._remembered

    @property
    def cluster(self) -> ClusterAPI:
        if not self.direct:
            raise NotCached("the watch cache cannot answer this read")
        return self._cluster

    def remember(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()`, or what it gave for the same `key` while none of the watched sets it
        read has changed since (many callers asking for the same page of an unchanged list
        cost one computation), or, while they change, for `trail_seconds` after it was
        computed unless this server wrote since (a cluster changing many times a second costs
        a few computations a second, not one per request). Nothing is remembered of a
        computation that read the cluster, and nothing remembered is answered while a set it
        read is stale."""
        held = self._remembered.get(key)
        if held is not None and held.answers(self.cache.writes, self.trail_seconds):
            value: T = held.value
            return value
        reads: list[tuple[Informer, int] | None] = []
        writes = self.cache.writes  # before computing: a write meanwhile is not in the value
        token = _recording.set(reads)
        try:
            value = compute()
        finally:
            _recording.reset(token)
        if reads and None not in reads:
            if len(self._remembered) >= REMEMBERED:
                self._remembered.clear()
            read = tuple(r for r in reads if r is not None)
            self._remembered[key] = Remembered(read, value, time.monotonic(), writes)
        return value

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[Obj]:
        lister = self.cache.lister(kind, namespace, label_selector, field_selector)
        if lister is not None:
            return lister()
        recording = _recording.get()
        if recording is not None:
            recording.append(None)  # read from the cluster: nothing to remember
        return self.cluster.list(
            kind, namespace, label_selector=label_selector, field_selector=field_selector
        )
