"""The watch cache (gpuctl.cluster.cache) against the sandbox: it follows adds, updates and
deletes (and objects entering and leaving its label selection), lists again after a 410, both
the injected kind and a watch whose resourceVersion the server no longer keeps, and a write
waits until the cache shows it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from gpuctl.cluster import cache as cache_module
from gpuctl.cluster.cache import Cache, CachedReads, Informer, NotCached, Selector, Watched
from gpuctl.cluster.client import Cluster, Gone, KubeError
from gpuctl.sandbox import SandboxConfig
from tests.support.sandbox import Cluster as TestCluster
from tests.support.sandbox import SandboxCluster, wait_for

WATCHED = Watched("ConfigMap", "default", label_selector="app=web")


def _configmap(name: str, labels: dict[str, str], value: str = "1") -> dict[str, Any]:
    metadata = {"name": name, "namespace": "default", "labels": labels}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"v": value}}


@pytest.fixture
def started(sandbox: SandboxCluster) -> Iterator[tuple[Cluster, Cache]]:
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    cache = Cache(cluster, [WATCHED])
    yield cluster, cache
    cache.stop()


def _held(cache: Cache, selector: str = "app=web") -> dict[str, str]:
    """name -> data.v of what the cache answers for the list."""
    lister = cache.lister("ConfigMap", "default", selector, None)
    assert lister is not None, "the cache should answer this list"
    return {o["metadata"]["name"]: o["data"]["v"] for o in lister()}


def test_the_cache_follows_adds_updates_and_deletes(started: tuple[Cluster, Cache]) -> None:
    cluster, cache = started
    cluster.create(_configmap("before", {"app": "web"}))
    cache.start()
    assert cache.wait_ready(10)
    assert _held(cache) == {"before": "1"}
    cluster.create(_configmap("added", {"app": "web", "tier": "a"}))
    cluster.create(_configmap("other", {"app": "db"}))
    wait_for(lambda: _held(cache) == {"before": "1", "added": "1"}, what="the add")
    cluster.patch("ConfigMap", "added", "default", {"data": {"v": "2"}})
    wait_for(lambda: _held(cache).get("added") == "2", what="the update")
    assert _held(cache, "app=web,tier=a") == {"added": "2"}  # narrowed in the cache
    cluster.delete("ConfigMap", "before", "default")
    wait_for(lambda: _held(cache) == {"added": "2"}, what="the delete")
    cluster.patch("ConfigMap", "other", "default", {"metadata": {"labels": {"app": "web"}}})
    wait_for(lambda: "other" in _held(cache), what="an object entering the selection")
    cluster.patch("ConfigMap", "added", "default", {"metadata": {"labels": {"app": "x"}}})
    wait_for(lambda: "added" not in _held(cache), what="an object leaving the selection")
    held = cache.lister("ConfigMap", "default", "app=web", None)
    assert held is not None and all("managedFields" not in o["metadata"] for o in held())
    assert cache.informers[0].relists == 0


def test_lists_it_cannot_answer_go_to_the_cluster(started: tuple[Cluster, Cache]) -> None:
    cluster, cache = started
    cache.start()
    assert cache.wait_ready(10)
    assert cache.lister("ConfigMap", "default", "app=db", None) is None  # outside its selection
    assert cache.lister("ConfigMap", "default", "app in (web)", None) is None  # set-based
    assert cache.lister("ConfigMap", "default", "app=web", "metadata.name=x") is None
    assert cache.lister("ConfigMap", "other", "app=web", None) is None  # another namespace
    reads = CachedReads(cluster, cache)
    cluster.create(_configmap("db", {"app": "db"}))
    assert [
        o["metadata"]["name"] for o in reads.list("ConfigMap", "default", label_selector="app=db")
    ] == ["db"]
    with pytest.raises(NotCached):
        reads.offline.list("ConfigMap", "default", label_selector="app=db")


def test_a_410_on_the_watch_lists_again(
    started: tuple[Cluster, Cache], sandbox: SandboxCluster
) -> None:
    cluster, cache = started
    sandbox.faults.fail(verb="watch", resource="configmaps", status=410, times=1)
    cache.start()
    assert cache.wait_ready(10)
    wait_for(lambda: cache.informers[0].relists >= 1, what="a second list after the 410")
    cluster.create(_configmap("after", {"app": "web"}))
    wait_for(lambda: _held(cache) == {"after": "1"}, what="the watch after the relist")


def test_a_watch_from_a_version_the_server_dropped_lists_again(make_sandbox: Any) -> None:
    """The real kind of 410: the watch resumes from a resourceVersion older than the server's
    history (an ERROR event in the stream), so the cache lists again and misses nothing."""
    sandbox = make_sandbox(SandboxConfig.fast(watch_history=2))
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    sandbox.faults.latency(1.5, verb="watch", resource="configmaps", times=1)  # the first watch
    cache = Cache(cluster, [WATCHED])
    try:
        cache.start()
        assert cache.wait_ready(10)
        for i in range(10):  # while the watch is on its way: more than the history keeps
            cluster.create(_configmap(f"cm-{i}", {"app": "web"}))
        wait_for(lambda: cache.informers[0].relists >= 1, what="a list after the expired watch")
        wait_for(lambda: len(_held(cache)) == 10, what="every object")
    finally:
        cache.stop()


def test_catch_up_puts_a_write_in_when_the_watch_lags(
    started: tuple[Cluster, Cache], sandbox: SandboxCluster
) -> None:
    cluster, cache = started
    sandbox.faults.timeout(verb="watch", resource="configmaps", seconds=30, times=None)
    cache.start()
    assert cache.wait_ready(10)
    cluster.create(_configmap("written", {"app": "web"}))
    assert _held(cache) == {}  # the watch hangs: the cache alone would not know
    cache.catch_up("ConfigMap", "written", "default", timeout=0.3)
    assert _held(cache) == {"written": "1"}
    cluster.delete("ConfigMap", "written", "default", propagation="Background")
    cache.catch_up("ConfigMap", "written", "default", timeout=0.3)
    assert _held(cache) == {}


def test_catch_up_waits_for_the_watch(started: tuple[Cluster, Cache]) -> None:
    cluster, cache = started
    cache.start()
    assert cache.wait_ready(10)
    informer = cache.informers[0]
    for i in range(5):
        made = cluster.create(_configmap(f"w-{i}", {"app": "web"}))
        cache.catch_up("ConfigMap", f"w-{i}", "default", timeout=10)
        assert _held(cache)[f"w-{i}"] == "1"
        version = int(made["metadata"]["resourceVersion"])
        assert int(informer.resource_version) >= version  # brought by the watch, not by hand


def test_remembered_results_last_until_a_set_they_read_changes(
    sandbox: SandboxCluster,
) -> None:
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    cache = Cache(cluster, [WATCHED, Watched("Node")])
    reads = CachedReads(cluster, cache)
    computed: list[int] = []

    def names() -> list[str]:
        computed.append(1)
        return sorted(
            o["metadata"]["name"]
            for o in reads.list("ConfigMap", "default", label_selector="app=web")
        )

    assert reads.remember("k", names) == [] and reads.remember("k", names) == []
    assert len(computed) == 2  # not ready: read from the cluster, nothing remembered
    try:
        cache.start()
        assert cache.wait_ready(10)
        assert reads.remember("k", names) == reads.remember("k", names) == []
        assert len(computed) == 3
        cluster.patch("Node", "cpu-0", None, {"metadata": {"labels": {"x": "y"}}})
        wait_for(lambda: "x" in _labels_of_node(reads), what="the node change")
        assert reads.remember("k", names) == [] and len(computed) == 3  # another set changed
        cluster.create(_configmap("new", {"app": "web"}))
        wait_for(lambda: reads.remember("k", names) == ["new"], what="a fresh computation")
    finally:
        cache.stop()


def test_a_remembered_result_trails_other_clients_changes_but_never_this_servers_writes(
    sandbox: SandboxCluster,
) -> None:
    """While the cluster changes many times a second, a result is computed again at most every
    `trail_seconds`, not on every request after each change; a write of this server (caught
    up) is shown at once."""
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    cache = Cache(cluster, [WATCHED])
    reads = CachedReads(cluster, cache, trail_seconds=60.0)
    computed: list[int] = []

    def names() -> list[str]:
        computed.append(1)
        return sorted(
            o["metadata"]["name"]
            for o in reads.list("ConfigMap", "default", label_selector="app=web")
        )

    def held() -> set[str]:
        return set(_held(cache))

    try:
        cache.start()
        assert cache.wait_ready(10)
        assert reads.remember("k", names) == [] and len(computed) == 1
        cluster.create(_configmap("theirs", {"app": "web"}))  # another client's change
        wait_for(lambda: held() == {"theirs"}, what="the watch to bring it")
        assert reads.remember("k", names) == [] and len(computed) == 1  # trailing
        cluster.create(_configmap("mine", {"app": "web"}))
        cache.catch_up("ConfigMap", "mine", "default")  # as the server's writes do
        assert reads.remember("k", names) == ["mine", "theirs"] and len(computed) == 2
        cluster.create(_configmap("later", {"app": "web"}))
        wait_for(lambda: "later" in held(), what="the watch to bring it")
        assert reads.remember("k", names) == ["mine", "theirs"]
        reads.trail_seconds = 0.0  # the trail is over
        assert reads.remember("k", names) == ["later", "mine", "theirs"] and len(computed) == 3
    finally:
        cache.stop()


def _labels_of_node(reads: CachedReads) -> dict[str, str]:
    node = next(n for n in reads.list("Node") if n["metadata"]["name"] == "cpu-0")
    labels: dict[str, str] = node["metadata"].get("labels") or {}
    return labels


def test_equality_selectors() -> None:
    web = Selector.parse("app=web,tier!=db,gpu,!legacy")
    assert web is not None
    assert web.matches({"app": "web", "gpu": "1"})
    assert not web.matches({"app": "web", "gpu": "1", "tier": "db"})
    assert not web.matches({"app": "web"})
    assert not web.matches({"app": "web", "gpu": "1", "legacy": "y"})
    assert Selector.parse("app==web") is not None
    assert Selector.parse("app in (web,db)") is None
    base = Selector.parse("app=web")
    assert base is not None and base.covers(web) and not web.covers(base)


# ------------------------------------------------------------------------ staleness


class _Versions:
    """A Source whose lists and watches a test scripts: each list answers the next of
    `lists` ((names, resourceVersion)); each watch yields `events` once, then nothing, and
    lasts `seconds` (a watch's server-side length)."""

    def __init__(self, lists: list[tuple[list[str], str]], events: list[tuple[str, str]]) -> None:
        self.lists = lists
        self.events = events
        self.listed = 0

    def list_versioned(self, kind: str, namespace: str | None = None, **_: Any) -> Any:
        names, version = self.lists[min(self.listed, len(self.lists) - 1)]
        self.listed += 1
        return [_configmap(name, {"app": "web"}) for name in names], version

    def watch(self, kind: str, namespace: str | None, **options: Any) -> Iterator[Any]:
        events, self.events = self.events, []
        for name, version in events:
            obj = _configmap(name, {"app": "web"})
            obj["metadata"]["resourceVersion"] = version
            yield "ADDED", obj
        time.sleep(options["timeout_seconds"])

    def current_version(self, kind: str, namespace: str | None = None, **_: Any) -> str:
        return self.lists[min(self.listed, len(self.lists) - 1)][1]  # where the next list is

    def find(self, kind: str, name: str, namespace: str | None = None) -> None:
        return None


def _names(informer: Informer) -> set[str]:
    return {o["metadata"]["name"] for o in informer.objects()}


def test_a_watch_that_brings_nothing_lists_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster behind the resourceVersion the watch resumes from (another cluster) sends no
    event and no bookmark: after one such watch the set is stale, then listed again."""
    monkeypatch.setattr(cache_module, "WATCH_SECONDS", 0.3)
    source = _Versions([(["old"], "900"), (["new"], "12")], [])
    cache = Cache(source, [WATCHED])
    cache.start()
    try:
        assert cache.wait_ready(10)
        wait_for(lambda: _names(cache.informers[0]) == {"new"}, what="the second list")
        assert cache.informers[0].relists >= 1
        wait_for(lambda: not cache.stale(), what="fresh after the list")
    finally:
        cache.stop()


class _CutOnce(_Versions):
    """The first watch is cut at once (the server stopped), the others run their course."""

    def __init__(self, lists: list[tuple[list[str], str]]) -> None:
        super().__init__(lists, [])
        self.watches = 0

    def watch(self, kind: str, namespace: str | None, **options: Any) -> Iterator[Any]:
        self.watches += 1
        if self.watches > 1:
            yield from super().watch(kind, namespace, **options)


def test_a_cut_watch_on_a_new_cluster_lists_again_without_waiting_a_whole_watch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sandbox stopped and started again on the same address: the old watch is cut, and the
    new cluster (behind the version it would resume from) would send nothing for a whole
    watch. The set is stale from the cut and listed again at once."""
    monkeypatch.setattr(cache_module, "WATCH_SECONDS", 60)
    source = _CutOnce([(["old"], "900"), (["new"], "12")])
    cache = Cache(source, [WATCHED])
    cache.start()
    try:
        assert cache.wait_ready(10)
        wait_for(lambda: _names(cache.informers[0]) == {"new"}, timeout=10, what="a new list")
        assert not cache.stale()
    finally:
        cache.stop()


def test_a_cut_watch_on_the_same_cluster_resumes_without_a_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cache_module, "WATCH_SECONDS", 60)
    source = _CutOnce([(["old"], "900")])
    cache = Cache(source, [WATCHED])
    cache.start()
    try:
        assert cache.wait_ready(10)
        wait_for(lambda: source.watches >= 2, timeout=10, what="the watch to resume")
        assert not cache.stale()
        assert source.listed == 1 and cache.informers[0].relists == 0
    finally:
        cache.stop()


def test_a_resource_version_going_backwards_lists_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "WATCH_SECONDS", 0.3)
    source = _Versions([(["old"], "900"), (["new"], "15")], [("later", "901"), ("other", "14")])
    cache = Cache(source, [WATCHED])
    cache.start()
    try:
        wait_for(lambda: source.listed >= 2, what="a list after the version went back")
        wait_for(lambda: _names(cache.informers[0]) == {"new"}, what="the other cluster's set")
    finally:
        cache.stop()


def test_a_silent_watch_makes_the_set_stale_and_reads_go_to_the_cluster(
    started: tuple[Cluster, Cache], sandbox: SandboxCluster
) -> None:
    """A frozen server: the watch neither ends nor brings anything (not even a bookmark)."""
    cluster, cache = started
    informer = cache.informers[0]
    informer.silence_seconds = 1.0
    reads = CachedReads(cluster, cache)
    cache.start()
    assert cache.wait_ready(10)
    assert cache.lister("ConfigMap", "default", "app=web", None) is not None
    assert reads.remember("k", lambda: 1) == 1  # read nothing: never remembered
    assert informer.misses == 0
    sandbox.faults.timeout(verb="watch", resource="configmaps", seconds=30, times=None)
    cluster.create(_configmap("unseen", {"app": "web"}))
    wait_for(lambda: cache.stale(), timeout=20, what="the silent watch to make the set stale")
    assert cache.stale()["ConfigMap"].startswith("no word from the cluster for ")
    assert cache.lister("ConfigMap", "default", "app=web", None) is None
    listed = reads.list("ConfigMap", "default", label_selector="app=web")
    assert [o["metadata"]["name"] for o in listed] == ["unseen"]  # from the cluster
    assert informer.misses == 2  # each read the stale set would have answered is counted
    assert cache.lister("ConfigMap", "default", "app=web,tier=a", None) is None  # narrower
    assert informer.misses == 3
    assert cache.lister("ConfigMap", "default", "app=other", None) is None  # not its set
    assert cache.lister("Secret", "default", "app=web", None) is None  # no set of its kind
    assert informer.misses == 3
    with pytest.raises(NotCached):
        reads.offline.list("ConfigMap", "default", label_selector="app=web")


def test_a_failed_relist_keeps_the_set_stale_until_a_list_succeeds(
    started: tuple[Cluster, Cache], sandbox: SandboxCluster
) -> None:
    cluster, cache = started
    cache.start()
    assert cache.wait_ready(10)
    reads = CachedReads(cluster, cache)
    computed: list[int] = []

    def names() -> list[str]:
        computed.append(1)
        listed = reads.list("ConfigMap", "default", label_selector="app=web")
        return sorted(o["metadata"]["name"] for o in listed)

    assert reads.remember("k", names) == reads.remember("k", names) == []
    assert len(computed) == 1
    sandbox.faults.fail(verb="list", resource="configmaps", status=500, times=None)
    sandbox.faults.fail(verb="watch", resource="configmaps", status=410, times=1)
    wait_for(
        lambda: "answered 500" in cache.stale().get("ConfigMap", ""),
        timeout=20,
        what="the failed relist to make the set stale",
    )
    with pytest.raises(KubeError):  # stale: the remembered answer is not given, the cluster
        reads.remember("k", names)  # is asked, and it fails
    sandbox.faults.clear()
    cluster.create(_configmap("back", {"app": "web"}))
    wait_for(lambda: not cache.stale(), timeout=20, what="a list to succeed")
    wait_for(lambda: reads.remember("k", names) == ["back"], what="answers from the cache")


def test_a_list_at_a_version_the_cluster_has_not_reached_is_gone_at_once(
    sandbox: SandboxCluster,
) -> None:
    """504 ResourceVersionTooLarge (another cluster's version) means: list afresh. It is not
    retried like another 5xx: asking again gets the same answer."""
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    sandbox.requests.clear()
    with pytest.raises(Gone, match="Too large resource version"):
        cluster._send(
            "GET",
            "/api/v1/namespaces/default/configmaps",
            "configmaps",
            query=[("resourceVersion", "999999"), ("resourceVersionMatch", "NotOlderThan")],
        )
    assert len(sandbox.requests.matching(verb="list", resource="configmaps")) == 1


def test_a_quiet_set_of_a_live_cluster_stays_fresh_and_is_not_listed_again(
    cluster: TestCluster,
) -> None:
    """A set in which nothing changes gets no event, and from the API server no bookmark
    either (it sends none to a watch as short as the cache's): the cache asks where the
    cluster is instead, so the set is never stale and never listed again while it is quiet
    (a list of every object each watch would cost the cluster and the server much)."""
    client = Cluster.connect(str(cluster.kubeconfig))
    quiet = _configmap("quiet", {"app": "web"})
    quiet["metadata"]["namespace"] = cluster.namespace
    client.create(quiet)
    cache = Cache(client, [Watched("ConfigMap", cluster.namespace)])
    cache.start()
    try:
        assert cache.wait_ready(30)
        informer = cache.informers[0]
        stale: list[dict[str, str]] = []
        deadline = time.monotonic() + 2 * cache_module.WATCH_SECONDS + 3  # two whole watches
        while time.monotonic() < deadline:
            stale += [found] if (found := cache.stale()) else []
            time.sleep(0.2)
        assert stale == []
        assert informer.relists == 0
        assert "quiet" in _names(informer)
    finally:
        cache.stop()
