"""One object the client cannot read (a number beyond a float64, which a lax server stored)
does not stop anything: lists leave it out with one warning naming it, the watch cache
moves past it and keeps serving, and `gpuctl get jobs` lists the other jobs."""

from __future__ import annotations

import copy
import json
import logging
from typing import Any

import pytest

from gpuctl.cluster import decoding
from gpuctl.cluster.cache import Informer, Watched
from gpuctl.cluster.client import Cluster
from gpuctl.cluster.decoding import UnreadableObject
from tests.conftest import Env
from tests.support.sandbox import SandboxCluster, wait_for

HUGE = 10**4000  # Python's json writes it; orjson refuses it: "number is infinity"
DEPLOYMENTS = ("apps", "deployments")


def _corrupt(sandbox: SandboxCluster, name: str, namespace: str = "default") -> None:
    """Put a number no client can read into a Deployment in the sandbox's store, behind its
    validation (as a server that let it in would hold it), and tell its watches."""
    store = sandbox.sandbox.store
    with store.lock:
        obj = copy.deepcopy(store.get(DEPLOYMENTS, namespace, name))
        assert obj is not None
        obj["spec"]["revisionHistoryLimit"] = HUGE
        obj["metadata"]["resourceVersion"] = str(store.next_rv())
        store.put(DEPLOYMENTS, obj, "MODIFIED")
        store.changed.notify_all()


def _deployment(name: str, namespace: str = "default") -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }


def _page(*items: str) -> bytes:
    return ('{"kind":"DeploymentList","metadata":{},"items":[' + ",".join(items) + "]}").encode()


def _item(name: str, replicas: str) -> str:
    meta = {"name": name, "namespace": "default", "resourceVersion": "7"}
    return f'{{"metadata":{json.dumps(meta)},"spec":{{"replicas":{replicas}}}}}'


def test_a_list_leaves_out_the_unreadable_item_and_warns_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    page = _page(_item("good", "1"), _item("bad", "1" + "0" * 4000), _item("nan", "NaN"))
    with caplog.at_level(logging.WARNING, logger="gpuctl.cluster"):
        first = decoding.loads(page, "Deployment")
        again = decoding.loads(page, "Deployment")
    assert [item["metadata"]["name"] for item in first["items"]] == ["good"]
    assert again["items"] == first["items"]
    warned = [record.getMessage() for record in caplog.records]
    assert len(warned) == 2, warned  # once for each object and resourceVersion
    assert "Deployment default/bad skipped" in warned[0]
    assert "spec.replicas (100000000000… (4001 characters))" in warned[0]
    assert "Deployment default/nan skipped" in warned[1]


def test_one_unreadable_object_is_an_error_naming_it() -> None:
    with pytest.raises(UnreadableObject, match=r"Deployment default/bad .* at spec\.replicas"):
        decoding.loads(('{"kind":"Deployment",' + _item("bad", "1e400")[1:]).encode())


def test_an_unreadable_watch_event_moves_the_watch_on() -> None:
    line = '{"type":"MODIFIED","object":' + _item("bad", "1" + "0" * 400) + "}"
    event = decoding.watch_event(line.encode())
    assert event == {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "7"}}}


def test_lists_and_the_watch_cache_survive_an_unreadable_object(sandbox: SandboxCluster) -> None:
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    for name in ("good-a", "bad", "good-b"):
        cluster.create(_deployment(name))
    informer = Informer(cluster, Watched("Deployment", "default"))
    informer.start()
    try:
        assert informer.synced.wait(10)
        _corrupt(sandbox, "bad")  # seen first by the watch
        cluster.create(_deployment("after"))
        wait_for(
            lambda: "after" in {o["metadata"]["name"] for o in informer.objects()},
            what="the watch to go on past the unreadable object",
        )
        assert not informer.stale
        names = {o["metadata"]["name"] for o in cluster.list("Deployment", "default")}
        assert names == {"good-a", "good-b", "after"}
        informer.replace_all([])  # a list from scratch holds the readable ones
        informer._list()
        assert {o["metadata"]["name"] for o in informer.objects()} == names
    finally:
        informer.stop()


def test_get_jobs_lists_the_good_jobs_and_names_the_unreadable_one(env: Env) -> None:
    spec = "kind: compute\nversion: v0.1\njob:\n  name: {}\nenvironment:\n  image: nginx\n"
    spec += "service:\n  replicas: 0\nresources:\n  cpu: 1\n  memory: 1Gi\n"
    for name in ("web-a", "web-b"):
        created = env.gpuctl("create", "-f", "-", stdin=spec.format(name))
        assert created.returncode == 0, created.stderr
    _corrupt(env.sandbox, "web-b")
    listed = env.gpuctl("get", "jobs")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines()[1:]}
    assert rows["web-a"][1] == "compute"
    assert rows["web-b"][3] == "Partial"  # its Service is there, its workload is not read
    assert "warning: Deployment default/web-b skipped" in listed.stderr
    assert "fix or delete it with kubectl" in listed.stderr
