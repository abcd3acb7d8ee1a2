"""Bounded log reads through HTTP on the sandbox only, for its own log lines: `limitBytes`
(whole lines, `truncated` when some were left out; checked against the sandbox's line format,
as its pods write while read), and a followed stream or a read that stops reading the pod's
log when its client leaves (the sandbox's pods write for ever; kwok's serve a few fixed lines).
`lastTimestamp` and the per-user cap run on both clusters: test_log_reads.py."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from websockets.sync.client import connect

from gpuctl.cluster.client import Cluster
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens
from gpuctl.server.routes import logs
from tests.support.ports import free_port
from tests.support.sandbox import wait_for

from .conftest import SECRETS, Api, inference

STAMPED = re.compile(r"^\d{4}-\d\d-\d\dT")


def _web(api: Api, replicas: int = 2) -> None:
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web", replicas)})
    assert made.status_code == 201, made.text
    wait_for(
        lambda: api.call("admin", "GET", "/jobs/default.web").json()["status"] == "running",
        what="web running",
    )


def _size(lines: list[str]) -> int:
    """Bytes of the lines as the pods wrote them (without the `[pod] ` prefix)."""
    return sum(len(re.sub(r"^\[[^]]+\] ", "", line).encode()) + 1 for line in lines)


def test_limit_bytes_keeps_whole_lines_and_says_it_cut(api: Api) -> None:
    _web(api)
    wait_for(
        lambda: len(api.call("admin", "GET", "/jobs/default.web/logs?tail=5").json()["logs"]) >= 6,
        what="a few lines of each pod",
    )
    whole = api.call("admin", "GET", "/jobs/default.web/logs?tail=5").json()
    assert whole["truncated"] is False and len(whole["logs"]) >= 6
    cut = api.call("admin", "GET", "/jobs/default.web/logs?tail=5&limitBytes=60").json()
    assert cut["truncated"] is True
    assert 0 < _size(cut["logs"]) <= 60 and len(cut["logs"]) < len(whole["logs"])
    first = whole["logs"][0].split("]")[0] + "]"  # whole lines, of the first pod (by name)
    assert all(re.fullmatch(r"\[(\S+)\] \1/web: (started|step \d+)", x) for x in cut["logs"])
    assert all(line.startswith(first) for line in cut["logs"]), cut
    for bad in ("0", "-1", str(logs.MAX_LIMIT_BYTES + 1), "lots"):
        refused = api.call("admin", "GET", f"/jobs/default.web/logs?limitBytes={bad}")
        assert refused.status_code == 400, refused.text
        assert refused.json()["field"] == "query.limitBytes"


@contextmanager
def _served(app: FastAPI) -> Iterator[int]:
    """The app over a real socket (uvicorn, as `gpuctl serve` runs it): its port."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, what="uvicorn started")
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def test_a_websocket_follow_stops_reading_the_pod_log_when_its_client_leaves(
    api: Api, token_file: object
) -> None:
    _web(api, replicas=1)
    pod = api.call("admin", "GET", "/jobs/default.web").json()["k8sResources"]["pods"][0]
    app = create_app(api.env.cluster, Tokens.load(str(token_file)), cache=False)
    streams = app.state.log_streams
    with _served(app) as port:
        with connect(
            f"ws://127.0.0.1:{port}/api/v1/jobs/default.web/logs?tail=1",
            additional_headers={"Authorization": f"Bearer {SECRETS['admin']}"},
        ) as socket:
            assert socket.recv(timeout=10)
            assert streams.open == 1
            reading = [t for t in threading.enumerate() if t.name == f"log-{pod}"]
            assert reading and all(t.is_alive() for t in reading)
            socket.close_socket()  # the client goes away without a closing handshake
        wait_for(lambda: streams.open == 0, timeout=5, what="the stream's slot given back")
        wait_for(lambda: not any(t.is_alive() for t in reading), timeout=5, what="the pod log read")


class EndlessLogs:
    """The sandbox, but every pod's log is endless (a line each 20 ms, never done): a read
    that only its reader can end. `open` counts the pod log reads going on."""

    def __init__(self, cluster: object) -> None:
        self._cluster = cluster
        self.open = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._cluster, name)

    def logs(self, pod: str, namespace: str, **options: object) -> Iterator[str]:
        self.open += 1
        try:
            count = 0
            while True:
                time.sleep(0.02)
                count += 1
                yield f"2026-11-28T10:00:00Z line {count}"
        finally:
            self.open -= 1


def test_a_read_stops_when_its_client_leaves(api: Api, token_file: object) -> None:
    _web(api, replicas=1)
    endless = EndlessLogs(api.env.cluster)
    app = create_app(endless, Tokens.load(str(token_file)), cache=False)  # type: ignore[arg-type]
    with _served(app) as port:
        url = f"http://127.0.0.1:{port}/api/v1/jobs/default.web/logs?limitBytes={16 << 20}"
        with pytest.raises(httpx.ReadTimeout):  # the client gives up and leaves
            httpx.get(url, headers={"Authorization": f"Bearer {SECRETS['admin']}"}, timeout=1)
        assert endless.open == 1  # still reading, after the client left
        wait_for(lambda: endless.open == 0, timeout=5, what="the pod log read stopped")
        wait_for(lambda: app.state.log_streams.open == 0, timeout=5, what="the slot given back")


def test_a_read_makes_no_cluster_call_on_the_event_loop(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The logs route waits on the loop; its reads of the cluster run in the thread pool."""
    _web(api, replicas=1)
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
    answer = api.call("admin", "GET", "/jobs/default.web/logs?tail=2")
    assert answer.status_code == 200 and len(answer.json()["logs"]) == 2
    assert on_loop == []
