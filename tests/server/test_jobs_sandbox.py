"""Jobs through HTTP on the sandbox only, each for a reason it gives: the sandbox's pods write
new log lines while they run (kwok's stand-in kubelet serves the same few lines once), and a
check of the whole cluster that a shared control plane cannot give."""

from __future__ import annotations

import time

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.support.sandbox import wait_for

from .conftest import SECRETS, Api, inference, training
from .test_jobs import INFERENCE, _create, _running


def test_gpuctls_own_controller_is_not_a_job(api: Api) -> None:
    # sandbox only: it installs gpuctl's controller for the whole cluster and reads an admin's
    # list of every namespace, which on the shared control plane holds other tests' jobs
    installed = api.env.gpuctl("controller", "install")
    assert installed.returncode == 0, installed.stderr
    assert (
        api.env.cluster.find("Deployment", "gpu-orchestrator", "gpu-orchestrator-system")
        is not None
    )
    _create(api, training("mine"))
    listed = api.call("admin", "GET", "/jobs").json()
    assert [item["jobId"] for item in listed["items"]] == ["default.mine"]
    own = api.call("admin", "GET", "/jobs/gpu-orchestrator-system.gpu-orchestrator")
    assert own.status_code == 404, own.text
    refused = api.call("admin", "DELETE", "/jobs/gpu-orchestrator-system.gpu-orchestrator")
    assert refused.status_code == 404
    assert (
        api.env.cluster.find("Deployment", "gpu-orchestrator", "gpu-orchestrator-system")
        is not None
    )


def test_follow_over_chunked_http_receives_new_lines(api: Api) -> None:
    # sandbox only: its pods write new lines while followed; kwok serves a fixed log once
    _create(api, inference("web", replicas=1))
    wait_for(lambda: _running(api, "default.web"), what="web running")
    seen: list[str] = []
    headers = {"Authorization": f"Bearer {SECRETS['admin']}"}
    with api.client.stream(
        "GET", "/api/v1/jobs/default.web/logs?follow=true&tail=1", headers=headers
    ) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain")
        for line in answer.iter_lines():
            seen.append(line)
            if len(seen) == 3:
                break
    assert len(set(seen)) == 3  # the tail line, then lines written while following


def test_follow_over_websocket_receives_new_lines(api: Api) -> None:
    # sandbox only: its pods write new lines while followed; kwok serves a fixed log once
    _create(api, inference("web", replicas=1))
    wait_for(lambda: _running(api, "default.web"), what="web running")
    headers = {"Authorization": f"Bearer {SECRETS['admin']}"}
    started = time.monotonic()
    with api.client.websocket_connect(
        "/api/v1/jobs/default.web/logs?tail=0", headers=headers
    ) as socket:
        lines = [socket.receive_text() for _ in range(3)]
    assert len(set(lines)) == 3 and time.monotonic() - started < 10
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        api.client.websocket_connect("/api/v1/jobs/default.web/logs") as socket,
    ):
        socket.receive_text()
    assert refused.value.code == 1008


def test_a_gpu_share_job_shows_its_share_wherever_gpus_are_shown(api: Api) -> None:
    # sandbox only: it finds the node by its GPU use, which on the shared control plane other
    # tests' pods change
    shared = INFERENCE.replace("  gpu: 1\n", "  gpu-share: 8Gi\n").replace(
        "replicas: 2", "replicas: 1"
    )
    _create(api, shared)
    (item,) = api.call("admin", "GET", "/jobs").json()["items"]
    assert (item["gpu"], item["gpuShare"]) == (0, "8Gi")
    detail = api.call("admin", "GET", "/jobs/default.web").json()
    assert (detail["resources"]["gpu"], detail["resources"]["gpuShare"]) == (0, "8Gi")
    listed = api.env.gpuctl("get", "jobs", "--no-headers")
    assert "8Gi shared" in listed.stdout
    wait_for(lambda: _running(api, "default.web"), what="web running")
    node = next(n for n in api.call("admin", "GET", "/nodes").json()["items"] if n["gpuUsed"])
    assert (node["nodeName"], node["gpuUsed"]) == ("gpu-t4-0", 1)  # the shared GPU is taken
