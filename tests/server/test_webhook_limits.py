"""What one caller may cost the webhooks: test events of a subscription are rate-limited (429
TooManyRequests with Retry-After), and the subscriptions one caller has stay within the cap
however many creates run at once."""

from __future__ import annotations

import ipaddress
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuctl.server import limits
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens
from gpuctl.server.errors import ApiError
from gpuctl.server.routes.webhooks import MAX_PER_OWNER
from gpuctl.server.webhooks import store
from gpuctl.server.webhooks.worker import Settings

from ..conftest import Env
from .conftest import Api

URL = "http://8.8.8.8/hook"
HOOK = {"url": URL, "events": ["job.created"]}


def _subscribe(api: Api, who: str = "bob") -> str:
    made = api.call(who, "POST", "/webhooks", json=HOOK)
    assert made.status_code == 201, made.text
    webhook_id: str = made.json()["id"]
    return webhook_id


def test_test_events_of_one_subscription_are_limited_with_retry_after(api: Api) -> None:
    first, second = _subscribe(api), _subscribe(api)
    codes = [api.call("bob", "POST", f"/webhooks/{first}/test").status_code for _ in range(5)]
    assert codes == [202] * 5
    refused = api.call("bob", "POST", f"/webhooks/{first}/test")
    assert refused.status_code == 429, refused.text
    body = refused.json()
    assert body["error"] == "TooManyRequests"
    assert f"test events of webhook {first}: at most 5 at once, then 5 a minute" in body["message"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 12
    pending = api.call("bob", "GET", f"/webhooks/{first}").json()["pending"]
    assert pending == 5  # the refused one was not queued
    # another subscription has its own budget; another user's is not found (404, not 429)
    assert api.call("bob", "POST", f"/webhooks/{second}/test").status_code == 202
    assert api.call("alice", "POST", f"/webhooks/{first}/test").status_code == 404


def test_the_test_event_bucket_refills_one_every_12_seconds() -> None:
    now = [1000.0]
    rate = limits.PerKeyRate(5, 12.0, "test events of webhook", clock=lambda: now[0])
    for _ in range(5):
        rate.take("wh1")
    with pytest.raises(ApiError) as refused:
        rate.take("wh1")
    assert (refused.value.status, refused.value.headers) == (429, {"Retry-After": "12"})
    now[0] += 9.5
    with pytest.raises(ApiError) as again:
        rate.take("wh1")
    assert again.value.headers == {"Retry-After": "3"}
    now[0] += 2.5
    rate.take("wh1")  # 12 s after the burst: one more
    now[0] += 3600
    for _ in range(5):  # a full bucket holds no more than the burst
        rate.take("wh1")
    with pytest.raises(ApiError):
        rate.take("wh1")


def test_concurrent_creates_never_exceed_the_cap(env: Env, token_file: Path) -> None:
    loopback = (ipaddress.ip_network("127.0.0.0/8"),)
    app = create_app(env.cluster, Tokens.load(str(token_file)), webhook_settings=Settings(loopback))
    with TestClient(app, raise_server_exceptions=False) as client:
        api = Api(client, env)
        for _ in range(MAX_PER_OWNER - 5):
            _subscribe(api)
        app.state.writes = limits.PerUser(64, "TooManyRequests", "writes")  # all 30 at once

        def create(_: int) -> int:
            return api.call("bob", "POST", "/webhooks", json=HOOK).status_code

        with ThreadPoolExecutor(30) as pool:
            codes = list(pool.map(create, range(30)))
        assert codes.count(201) == 5, codes
        assert set(codes) == {201, 409}, codes
        assert api.call("bob", "GET", "/webhooks").json()["total"] == MAX_PER_OWNER


def test_reservations_of_replicas_at_once_never_exceed_the_cap(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the in-process lock (as on replicas of their own), the reservations' writes at
    a resourceVersion decide: of 12 at once with room for 4, 4 are reserved."""
    monkeypatch.setattr(store, "_owner_lock", lambda _owner: threading.Lock())
    for _ in range(MAX_PER_OWNER - 4):
        store.create(env.cluster, URL, ["job.created"], "carol", None, "whsec_x")

    def reserve(_: int) -> str:
        try:
            sid = store.reserve(env.cluster, "carol", MAX_PER_OWNER)
        except store.CapReached:
            return "cap"
        store.create(env.cluster, URL, ["job.created"], "carol", None, "whsec_x", sid)
        return "made"

    with ThreadPoolExecutor(12) as pool:
        outcomes = list(pool.map(reserve, range(12)))
    assert outcomes.count("made") == 4, outcomes
    assert len([s for s in store.listed(env.cluster) if s.owner == "carol"]) == MAX_PER_OWNER
