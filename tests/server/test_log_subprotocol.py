"""A browser cannot set the Authorization header of a WebSocket upgrade, and a token in the
URL would end up in logs: the followed logs also take the token in a subprotocol
(`base64url.bearer.authorization.k8s.io.<token>` beside `logs.gpuctl.v1`, as Kubernetes'
API does), and the server answers with `logs.gpuctl.v1`, never echoing the token."""

from __future__ import annotations

import base64

import pytest
from starlette.websockets import WebSocketDisconnect

from gpuctl.server.routes.logs import bearer_of_subprotocols
from tests.support.sandbox import wait_for

from .conftest import SECRETS, Api, inference

PATH = "/api/v1/jobs/default.web/logs?tail=0"


def _protocols(token: str) -> list[str]:
    encoded = base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")
    return ["logs.gpuctl.v1", f"base64url.bearer.authorization.k8s.io.{encoded}"]


def test_the_token_in_a_subprotocol_follows_the_logs(api: Api) -> None:
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web", replicas=1)})
    assert made.status_code == 201, made.text
    wait_for(
        lambda: api.call("admin", "GET", "/jobs/default.web").json()["status"] == "running",
        what="web running",
    )
    with api.client.websocket_connect(PATH, subprotocols=_protocols(SECRETS["admin"])) as socket:
        assert socket.accepted_subprotocol == "logs.gpuctl.v1"
        lines = [socket.receive_text() for _ in range(2)]
    assert len(set(lines)) == 2
    # another user's token in the subprotocol: their refusal, as with the header
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        api.client.websocket_connect(PATH, subprotocols=_protocols(SECRETS["bob"])) as socket,
    ):
        socket.receive_text()
    assert refused.value.code == 1008 and "JobNotFound" in str(refused.value.reason)
    with (
        pytest.raises(WebSocketDisconnect) as unknown,
        api.client.websocket_connect(PATH, subprotocols=_protocols("forged")) as socket,
    ):
        socket.receive_text()
    assert unknown.value.code == 1008 and "forged" not in str(unknown.value.reason)


def test_a_subprotocol_that_is_not_a_token_is_none() -> None:
    assert bearer_of_subprotocols(["logs.gpuctl.v1"]) is None
    assert bearer_of_subprotocols(["base64url.bearer.authorization.k8s.io.%%%"]) is None
    assert bearer_of_subprotocols(["base64url.bearer.authorization.k8s.io.__8"]) is None
    assert bearer_of_subprotocols(_protocols("t0k")) == "Bearer t0k"
