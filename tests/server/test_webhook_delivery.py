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


@pytest.mark.parametrize(
    ("url", "embedded"),
    [
        ("http://[::7f00:1]/", "127.0.0.1, a loopback"),  # IPv4-compatible
        ("http://[::ffff:127.0.0.1]:8080/", "127.0.0.1, a loopback"),  # IPv4-mapped
        ("http://[64:ff9b::a9fe:a9fe]/", "169.254.169.254, a link-local (cloud metadata)"),
        ("http://[64:ff9b:1::a00:1]/", "10.0.0.1, a private or cluster-internal"),  # NAT64 local
        ("http://[2002:c0a8:101::1]/", "192.168.1.1, a private or cluster-internal"),  # 6to4
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "127.0.0.1, a loopback"),  # Teredo
    ],
)
def test_an_ipv6_address_that_embeds_an_internal_ipv4_address_is_refused_as_that_address(
    api: Api, url: str, embedded: str
) -> None:
    answer = api.call("admin", "POST", "/webhooks", json={"url": url, "events": ["job.created"]})
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert (body["error"], body["field"]) == ("WebhookUrlNotAllowed", "url")
    assert f"which embeds {embedded} address" in body["message"]
    assert api.call("admin", "GET", "/webhooks").json()["total"] == 0


@pytest.mark.parametrize(
    "host", ["::8.8.8.8", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2606:4700::1"]
)
def test_an_ipv6_address_that_embeds_a_public_ipv4_address_is_allowed(host: str) -> None:
    target = safety.parse(f"http://[{host}]:8080/x")
    assert safety.resolve(target, ()) == [ipaddress.ip_address(host)]


def test_an_embedding_address_is_allowed_by_its_ipv4_range() -> None:
    target = safety.parse("http://[64:ff9b::a00:1]/x")  # 10.0.0.1
    assert safety.resolve(target, (ipaddress.ip_network("10.0.0.0/8"),))
    with pytest.raises(safety.RefusedUrl, match=r"embeds 10\.0\.0\.1"):
        safety.resolve(target, (ipaddress.ip_network("192.168.0.0/16"),))


@pytest.mark.parametrize(
    ("url", "where"),
    [
        ("http://8.8.8.8/a b", "' ') at position 17"),
        ("http://8.8.8.8/a\r\nX-Injected: 1", "'\\r') at position 17"),
        ("http://8.8.8.8/a\nb", "'\\n') at position 17"),
        ("http://8.8\t.8.8/", "'\\t') at position 11"),
        ("http://8.8.8.8/\x00", "'\\x00') at position 16"),
        ("http://8.8.8.8/\x85", "'\\x85') at position 16"),
    ],
)
def test_a_url_with_a_space_or_control_character_is_refused_at_create_with_its_field(
    api: Api, url: str, where: str
) -> None:
    answer = api.call("admin", "POST", "/webhooks", json={"url": url, "events": ["job.created"]})
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert (body["error"], body["field"]) == ("WebhookUrlNotAllowed", "url")
    assert f"space or control character ({where}" in body["message"]
    assert api.call("admin", "GET", "/webhooks").json()["total"] == 0


def test_a_stored_url_with_a_control_character_is_refused_at_the_attempt(
    env: Env, receiver: Receiver
) -> None:
    sub = store.create(env.cluster, receiver.url + "\r\nX: 1", ["job.created"], "ops", None, "")
    store.enqueue(env.cluster, store.Message(sub.id, "msg_1", "x", "{}", 0, time.time(), 0.0))
    Deliverer(env.cluster, Settings(LOOPBACK)).run(store.listed(env.cluster))
    assert receiver.got == []
    shown = store.find(env.cluster, sub.id)
    assert shown is not None
    assert "space or control character" in str(shown.deliveries[0]["error"])
