"""The webhook subscriptions' API on the `cluster` fixture (the sandbox and the local real
control plane): one user's subscriptions are not found by another, a secret rotates, and a URL
that is not plain http is refused before any write. Nothing is delivered here (the server runs
no delivery worker); delivery is test_webhooks.py's, on the sandbox. A subscription's URL is a
loopback one the server is told to allow, where nothing listens."""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens
from gpuctl.server.webhooks.worker import Settings

from .conftest import ClusterApi, quota

EVENTS = ["job.created"]
NOWHERE = "http://127.0.0.1:9/hook"  # the discard port


@pytest.fixture
def api(cluster_api: ClusterApi) -> Iterator[ClusterApi]:
    """The API allowing loopback receivers (`serve --webhook-allow-cidr 127.0.0.0/8`), with the
    users' namespaces made (by their quota)."""
    settings = Settings(allowed=(ipaddress.ip_network("127.0.0.0/8"),))
    app = create_app(
        cluster_api.cluster, Tokens.load(str(cluster_api.token_file)), webhook_settings=settings
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        api = dataclasses.replace(cluster_api, client=client)
        team = quota(api.user("alice"), api.user("bob"))
        assert api.call("admin", "POST", "/quotas", json={"yamlContent": team}).status_code == 201
        yield api


def test_one_users_subscriptions_are_not_found_by_another(api: ClusterApi) -> None:
    alice = api.user("alice")
    made = api.call("alice", "POST", "/webhooks", json={"url": NOWHERE, "events": EVENTS})
    assert made.status_code == 201, made.text
    sub = made.json()
    assert (sub["namespace"], sub["owner"]) == (alice, alice)
    path = f"/webhooks/{sub['id']}"
    for method, suffix in (("GET", ""), ("DELETE", ""), ("POST", "/test"), ("POST", "/rotate")):
        answer = api.call("bob", method, path + suffix)
        assert answer.status_code == 404, (method, suffix, answer.text)
        assert answer.json()["error"] == "WebhookNotFound"
    assert api.call("bob", "GET", "/webhooks").json() == {"total": 0, "items": []}
    forged = api.call("admin", "GET", "/webhooks/" + "a" * 5000)
    assert forged.status_code == 404 and len(forged.json()["message"]) < 80
    every = api.call("admin", "GET", "/webhooks").json()["items"]  # every user's, cluster-wide
    assert sub["id"] in [item["id"] for item in every]
    assert [item["id"] for item in api.call("alice", "GET", "/webhooks").json()["items"]] == [
        sub["id"]
    ]
    hers = {"url": NOWHERE, "events": EVENTS, "namespace": alice}
    assert api.call("bob", "POST", "/webhooks", json=hers).status_code == 403
    assert api.call("alice", "DELETE", path).status_code == 200
    assert api.call("alice", "GET", path).status_code == 404


def test_a_rotated_secret_is_new_and_the_old_one_is_not_shown_again(api: ClusterApi) -> None:
    made = api.call("alice", "POST", "/webhooks", json={"url": NOWHERE, "events": EVENTS})
    assert made.status_code == 201, made.text
    sub = made.json()
    rotated = api.call("alice", "POST", f"/webhooks/{sub['id']}/rotate")
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()["secret"]
    assert new.startswith("whsec_") and new != sub["secret"]
    shown = api.call("alice", "GET", f"/webhooks/{sub['id']}").text
    assert new not in shown and sub["secret"] not in shown
    assert api.call("alice", "DELETE", f"/webhooks/{sub['id']}").status_code == 200


def test_a_url_that_is_not_plain_http_is_refused_before_any_write(api: ClusterApi) -> None:
    urls = ("ftp://example.com/x", "http://user:pw@example.com/x", "/relative", "x" * 3000)
    for url in urls:
        answer = api.call("alice", "POST", "/webhooks", json={"url": url, "events": EVENTS})
        assert answer.status_code in (400, 422), (url, answer.text)
        if answer.status_code == 422:
            assert answer.json()["error"] == "WebhookUrlNotAllowed"
            assert "pw" not in answer.json()["message"]
    assert api.call("alice", "GET", "/webhooks").json() == {"total": 0, "items": []}
    unknown = api.call("alice", "POST", "/webhooks", json={"url": NOWHERE, "events": ["x"]})
    assert unknown.status_code == 400
