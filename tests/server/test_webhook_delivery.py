"""The webhook worker's parts in process: where a delivery may connect (the address it checked,
never one a second resolution gives), and a subscription disabled once a message has failed
for the whole retry window, shown as such."""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens
from gpuctl.server.webhooks import safety, signing, store
from gpuctl.server.webhooks.worker import Deliverer, Settings

from ..conftest import Env
from .conftest import Api
from .webhook_receiver import Receiver, _receiver  # noqa: F401  (the fixture)

LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"),)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _resolving_to(monkeypatch: pytest.MonkeyPatch, address: str) -> list[str]:
    """`rebind.example` resolves to `address` (a DNS answer the attacker controls); the
    names asked, in order."""
    asked: list[str] = []
    real = socket.getaddrinfo

    def fake(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(host)
        if host == "rebind.example":
            return real(address, port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return asked


@pytest.mark.parametrize(
    ("address", "what"),
    [
        ("127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local (cloud metadata)"),
        ("10.96.0.1", "private or cluster-internal"),
        ("::ffff:127.0.0.1", "loopback"),
        ("100.64.0.1", "private or cluster-internal"),
    ],
)
def test_a_name_that_resolves_to_an_internal_address_is_refused_at_the_attempt(
    monkeypatch: pytest.MonkeyPatch,
    receiver: Receiver,
    address: str,
    what: str,
) -> None:
    _resolving_to(monkeypatch, address)
    port = receiver.server.server_address[1]
    with pytest.raises(
        safety.RefusedUrl, match=rf"rebind\.example resolves to .* {re.escape(what)}"
    ):
        safety.post(f"http://rebind.example:{port}/x", b"{}", {}, (), timeout=2)
    assert receiver.got == []


def test_the_attempt_connects_to_the_address_it_checked_with_the_urls_host(
    monkeypatch: pytest.MonkeyPatch,
    receiver: Receiver,
) -> None:
    asked = _resolving_to(monkeypatch, "127.0.0.1")
    port = receiver.server.server_address[1]
    code = safety.post(f"http://rebind.example:{port}/x?y=1", b"{}", {}, LOOPBACK, timeout=2)
    assert code == 200
    names = [host for host in asked if not _is_address(host)]
    assert names == ["rebind.example"]  # resolved once: the connection used that answer
    assert receiver.got[0].headers["Host"] == f"rebind.example:{port}"


def test_a_message_failing_for_the_whole_window_disables_its_subscription(
    api: Api,
    env: Env,
    receiver: Receiver,
) -> None:
    receiver.answers = [500]
    secret = signing.new_secret()
    sub = store.create(env.cluster, receiver.url, ["job.created"], "ops", None, secret)
    message = store.Message(sub.id, "msg_1", "job.created", "{}", 0, time.time() - 10, 0.0)
    assert store.enqueue(env.cluster, message)
    assert not store.enqueue(env.cluster, message)  # queued once, however often written
    Deliverer(env.cluster, Settings(LOOPBACK, window=5.0)).run(store.listed(env.cluster))
    shown = api.call("admin", "GET", f"/webhooks/{sub.id}").json()
    assert shown["disabled"].startswith("disabled at ")
    assert "msg_1 failed for 5s (answered 500)" in shown["disabled"]
    assert [(d["outcome"], d["statusCode"]) for d in shown["deliveries"]] == [("gave-up", 500)]
    assert shown["pending"] == 0
    # a disabled subscription gets nothing more until it is enabled again
    store.enqueue(env.cluster, store.Message(sub.id, "msg_2", "x", "{}", 0, time.time(), 0.0))
    Deliverer(env.cluster, Settings(LOOPBACK)).run(store.listed(env.cluster))
    assert len(receiver.got) == 1
    enabled = api.call("admin", "POST", f"/webhooks/{sub.id}/enable")
    assert enabled.status_code == 422  # this server does not allow loopback
    store.update(env.cluster, sub.id, lambda data: data.update(disabled=""))
    Deliverer(env.cluster, Settings(LOOPBACK)).run(store.listed(env.cluster))
    assert [r.headers["webhook-id"] for r in receiver.got] == ["msg_1", "msg_2"]


def test_one_caller_has_at_most_25_subscriptions(env: Env, token_file: Path) -> None:
    app = create_app(env.cluster, Tokens.load(str(token_file)), webhook_settings=Settings(LOOPBACK))
    with TestClient(app, raise_server_exceptions=False) as client:
        api = Api(client, env)
        body = {"url": "http://127.0.0.1:9/hook", "events": ["job.created"]}
        for _ in range(25):
            assert api.call("bob", "POST", "/webhooks", json=body).status_code == 201
        refused = api.call("bob", "POST", "/webhooks", json=body)
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"] == "TooManyWebhooks"
        assert api.call("bob", "GET", "/webhooks").json()["total"] == 25
        assert api.call("admin", "POST", "/webhooks", json=body).status_code == 201
