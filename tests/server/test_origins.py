"""DNS rebinding and cross-site WebSockets: without authentication the server answers only a
loopback `Host` (and `serve --allowed-host` names); every WebSocket refuses another site's
`Origin`, in every mode."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gpuctl.server.app import create_app
from tests.support.ports import free_port

from ..conftest import GPUCTL, Env
from .conftest import SECRETS, Api, training

EVIL = "rebind.evil.example"
LOGS = "/api/v1/jobs/default.nope/logs"
ETC_MOUNT = training("rebound") + "storage:\n  workdirs:\n    - {path: /etc}\n"


def test_an_open_server_refuses_a_foreign_host(open_api: TestClient) -> None:
    for method, path in (("POST", "/api/v1/jobs"), ("GET", "/api/v1/jobs"), ("GET", "/")):
        answer = open_api.request(
            method, path, headers={"Host": EVIL}, json={"yamlContent": ETC_MOUNT}
        )
        assert answer.status_code == 400, (method, path)
        assert answer.json()["error"] == "HostNotAllowed"
        assert EVIL in answer.json()["message"]
    assert open_api.get("/api/v1/jobs/default.rebound").status_code == 404  # nothing created
    own = open_api.post("/api/v1/jobs", json={"yamlContent": ETC_MOUNT})  # Host: localhost
    assert own.status_code == 201, own.text


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST:8000", "127.0.0.1", "127.3.4.5:80", "[::1]", "[::1]:8000"]
)
def test_an_open_server_answers_a_loopback_host(open_api: TestClient, host: str) -> None:
    assert open_api.get("/api/v1/nodes", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    "host", ["127.0.0.1.evil.example", "localhost.evil.example", "[::2]", "::1", "", "a b"]
)
def test_a_host_that_only_looks_loopback_is_refused(open_api: TestClient, host: str) -> None:
    assert open_api.get("/api/v1/nodes", headers={"Host": host}).status_code == 400


def test_allowed_hosts_are_answered_too(env: Env) -> None:
    app = create_app(env.cluster, None, allowed_hosts=["gpu-box.local"])
    with TestClient(app, base_url="http://gpu-box.local:8000") as client:
        assert client.get("/api/v1/nodes").status_code == 200
        assert client.get("/api/v1/nodes", headers={"Host": EVIL}).status_code == 400


def test_a_token_file_server_answers_any_host(api: Api) -> None:
    answer = api.call("admin", "GET", "/nodes", headers={"Host": EVIL})
    assert answer.status_code == 200


def _route_refusal(client: TestClient, headers: dict[str, str]) -> str:
    """The close reason of a handshake the route accepted, then refused (no such job)."""
    with (
        client.websocket_connect(LOGS, headers=headers) as socket,
        pytest.raises(WebSocketDisconnect) as refused,
    ):
        socket.receive_text()
    return str(refused.value.reason)


def test_a_websocket_from_another_origin_is_refused(api: Api) -> None:
    admin = {"Authorization": f"Bearer {SECRETS['admin']}"}
    for origin in ("http://evil.example", "null", "https://testserver", "http://testserver:81"):
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            api.client.websocket_connect(LOGS, headers={**admin, "Origin": origin}),
        ):
            pass  # refused before it is accepted: no reason reaches the other site
        assert refused.value.code == 1008 and refused.value.reason == "OriginNotAllowed", origin
    # the server's own origin (and no Origin: not a browser) reaches the route, whose refusal
    # (no such job) comes after the handshake
    own = {**admin, "Origin": "http://testserver"}
    assert _route_refusal(api.client, own).startswith("JobNotFound")
    assert _route_refusal(api.client, admin).startswith("JobNotFound")


def test_an_open_server_refuses_websockets_from_a_foreign_host_or_origin(
    open_api: TestClient,
) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as host,
        open_api.websocket_connect(LOGS, headers={"Host": EVIL, "Origin": f"http://{EVIL}"}),
    ):
        pass
    assert host.value.reason == "HostNotAllowed"
    with (
        pytest.raises(WebSocketDisconnect) as origin,
        open_api.websocket_connect(
            LOGS, headers={"Host": "localhost", "Origin": "http://evil.example"}
        ),
    ):
        pass
    assert origin.value.reason == "OriginNotAllowed"
    own = {"Host": "localhost", "Origin": "http://localhost"}
    assert _route_refusal(open_api, own).startswith("JobNotFound")


def test_serve_checks_allowed_host_values(tmp_path: Path, token_file: Path) -> None:
    none = str(tmp_path / "none")
    for flags, words in (
        (("--allowed-host", "gpu-box.local:8000"), "--allowed-host gpu-box.local:8000: give a"),
        (("--allowed-host", "a/b"), "--allowed-host a/b: give a host name"),
        (
            ("--tokens", str(token_file), "--allowed-host", "gpu-box.local"),
            "--allowed-host applies only without --tokens and --auth",
        ),
    ):
        done = subprocess.run(
            [str(GPUCTL), "serve", *flags, "--kubeconfig", none],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2 and words in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_installed_serve_without_auth_refuses_a_rebound_host(env: Env) -> None:
    port = free_port()
    server = subprocess.Popen(
        [str(GPUCTL), "serve", "--port", str(port), "--kubeconfig", str(env.kubeconfig)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}/api/v1"
        deadline = time.monotonic() + 30
        while True:
            try:
                own = httpx.get(f"{base}/nodes")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "gpuctl serve did not start"
                time.sleep(0.1)
        assert own.status_code == 200
        rebound = httpx.post(
            f"{base}/jobs", headers={"Host": f"{EVIL}:{port}"}, json={"yamlContent": ETC_MOUNT}
        )
        assert rebound.status_code == 400 and rebound.json()["error"] == "HostNotAllowed"
        assert httpx.get(f"{base}/jobs/default.rebound").status_code == 404
    finally:
        server.terminate()
        server.communicate(timeout=30)
