"""How the API reads: its list endpoints answer from the watch cache once it is ready (no list
request to the cluster), give the same rows as direct reads, show a caller's own write on the
very next list even when the watch lags, never call the cluster on the event loop, and say
when they are ready at /readyz. Followed log streams end when their client leaves."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuctl.cluster import cache as cache_module
from gpuctl.cluster.client import Cluster
from gpuctl.inventory.jobs import selector
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens
from tests.support.sandbox import wait_for

from ..conftest import Env
from .conftest import SECRETS, Api, inference, training

ADMIN = {"Authorization": f"Bearer {SECRETS['admin']}"}
LISTS: tuple[str, ...] = ("/jobs", "/jobs?kind=training", "/nodes", "/nodes?pool=default")
LISTS += ("/pools", "/nodes/labels?key=runwhere.ai/gpu-type", "/nodes/labels/all")
CACHED = ("jobs", "deployments", "statefulsets", "pods", "nodes", "configmaps")


def _ready(client: TestClient) -> None:
    wait_for(lambda: client.get("/readyz").status_code == 200, what="the cache ready")


def _lists_sent(env: Env) -> int:
    return sum(len(env.sandbox.requests.matching(verb="list", resource=r)) for r in CACHED)


def test_lists_come_from_the_cache_and_match_direct_reads(
    api: Api, env: Env, token_file: Path
) -> None:
    api.call("admin", "POST", "/jobs", json={"yamlContent": training("t1")})
    api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web", replicas=1)})
    _ready(api.client)
    before = _lists_sent(env)
    jobs = api.call("admin", "GET", "/jobs").json()
    for path in LISTS:
        assert api.call("admin", "GET", path).status_code == 200
    assert _lists_sent(env) == before  # not one list request
    assert {item["name"] for item in jobs["items"]} == {"t1", "web"}
    metrics = api.client.get("/metrics").text
    assert 'gpuctl_api_cache_objects{kind="Deployment"} 1.0' in metrics
    assert 'gpuctl_api_cache_objects{kind="Node"} 4.0' in metrics
    assert 'gpuctl_api_cache_relists_total{kind="Job"} 0.0' in metrics
    assert 'gpuctl_api_cache_misses_total{kind="Job"} 0.0' in metrics  # all from the cache
    direct = create_app(env.cluster, Tokens.load(str(token_file)), cache=False)
    with TestClient(direct) as client:
        for path in LISTS:  # the jobs move on meanwhile: both reads agree once they settle

            def agree(path: str = path) -> bool:
                return bool(
                    client.get("/api/v1" + path, headers=ADMIN).json()
                    == api.call("admin", "GET", path).json()
                )

            wait_for(agree, what=f"GET {path} from the cache and directly to agree")


@pytest.fixture
def lagging(env: Env, token_file: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    """The API over a cache whose watches of jobs and deployments hang: it knows only what it
    listed at the start, unless a write makes it catch up."""
    monkeypatch.setattr(cache_module, "CATCH_UP_SECONDS", 0.5)
    for resource in ("jobs", "deployments"):
        env.sandbox.faults.timeout(verb="watch", resource=resource, seconds=60, times=None)
    with TestClient(create_app(env.cluster, Tokens.load(str(token_file)))) as client:
        _ready(client)
        yield Api(client, env)


def _names(api: Api) -> list[str]:
    return [item["name"] for item in api.call("admin", "GET", "/jobs").json()["items"]]


def test_a_callers_write_shows_on_the_next_list(lagging: Api) -> None:
    assert lagging.call("admin", "POST", "/jobs", json={"yamlContent": training("a")}).is_success
    assert _names(lagging) == ["a"]
    batch = {"yamlContents": [training("b"), inference("c", replicas=1)]}
    assert lagging.call("admin", "POST", "/jobs/batch", json=batch).is_success
    assert _names(lagging) == ["a", "b", "c"]
    assert lagging.call("admin", "DELETE", "/jobs/default.c?force=true").is_success
    # the status rules show a workload being deleted as it runs; the cache has it as deleted
    cache = lagging.client.app.state.cache  # type: ignore[attr-defined]
    lister = cache.lister("Deployment", None, selector(), None)
    held = [d for d in lister() if d["metadata"]["name"] == "c"]
    assert held == [] or held[0]["metadata"].get("deletionTimestamp")


def test_no_cluster_call_on_the_event_loop(
    env: Env, token_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every list endpoint, before the cache is ready (direct reads) and after: each request
    to the cluster is sent from a thread without a running event loop."""
    on_loop: list[str] = []
    send = Cluster._send

    def watched_send(self: Cluster, method: str, path: str, what: str, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
            on_loop.append(f"{method} {path}")
        except RuntimeError:
            pass
        return send(self, method, path, what, **kwargs)

    monkeypatch.setattr(Cluster, "_send", watched_send)
    env.sandbox.faults.latency(2.0, verb="list", resource="nodes", times=1)  # not ready at first
    with TestClient(create_app(env.cluster, Tokens.load(str(token_file)))) as client:
        assert client.get("/readyz").status_code == 503
        early = {path: client.get("/api/v1" + path, headers=ADMIN) for path in LISTS}
        assert all(answer.status_code == 200 for answer in early.values())
        _ready(client)
        for path in LISTS:
            answer = client.get("/api/v1" + path, headers=ADMIN)
            assert answer.json() == early[path].json(), path
    assert on_loop == []


def test_a_followed_stream_ends_when_its_client_leaves(api: Api, token_file: Path) -> None:
    """Over a real socket (uvicorn, as `gpuctl serve` runs it): when the client hangs up, the
    stream's slot is given back and its read of the pod's log is closed."""
    import socket

    import httpx
    import uvicorn

    api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web", replicas=1)})
    wait_for(
        lambda: api.call("admin", "GET", "/jobs/default.web").json()["status"] == "running",
        what="web running",
    )
    app = create_app(api.env.cluster, Tokens.load(str(token_file)), cache=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, what="uvicorn started")
        streams = app.state.log_streams
        url = f"http://127.0.0.1:{port}/api/v1/jobs/default.web/logs?follow=true&tail=1"
        with httpx.stream("GET", url, headers=ADMIN, timeout=10) as answer:
            lines = answer.iter_lines()  # kept: a dropped iterator closes the connection
            assert next(lines)
            assert streams.open == 1
            pods = api.call("admin", "GET", "/jobs/default.web").json()["k8sResources"]["pods"]
            following = [t for t in threading.enumerate() if t.name == f"log-{pods[0]}"]
            assert following
        wait_for(lambda: streams.open == 0, what="the stream's slot given back")
        wait_for(lambda: not any(t.is_alive() for t in following), what="the pod's log closed")
    finally:
        server.should_exit = True
        thread.join(10)
