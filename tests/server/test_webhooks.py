"""Webhooks through the installed `gpuctl serve` on the sandbox, to a receiver that verifies
every request with the `standardwebhooks` package (not our code): a signed event for each
transition of a job, the same webhook-id on each retry, delivery after a `kill -9` of the
server, loopback refused unless allowed, one user's subscriptions hidden from another, secret
rotation with both signatures during the overlap.

On the sandbox only: the servers that deliver take turns by one Lease per cluster, and the
subscriptions are the whole cluster's, so on the shared control plane another test's `gpuctl
serve` may hold the Lease (a killed one keeps it until it expires) and deliver these tests'
events, or these servers theirs. On the real control plane: the Lease itself
(test_webhook_lease.py), webhooks under Kubernetes authentication with their delivery
(test_webhook_kube_auth.py), the subscriptions' API without delivery (test_webhook_api.py),
and every webhook route's answer to each caller (test_auth.py)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from gpuctl.sandbox.config import SandboxConfig
from tests.support.ports import free_port
from tests.support.sandbox import wait_for

from ..conftest import GPUCTL, Env
from .conftest import QUOTA, SECRETS, Api, training
from .webhook_receiver import Receiver, _receiver  # noqa: F401  (the fixture)

ALL_EVENTS = ["job.created", "job.running", "job.succeeded", "job.failed", "job.deleted"]


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    return SandboxConfig.fast(job_run_seconds=3.0)  # a job runs long enough to be seen running


@dataclass
class Serve:
    """The installed `gpuctl serve`, started (and started again) with the same flags."""

    env: Env
    token_file: Path
    extra: tuple[str, ...]
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *(str(GPUCTL), "serve", "--port", str(self.port), "--tokens", str(self.token_file)),
                *("--kubeconfig", str(self.env.kubeconfig), "--webhook-retry-base", "0.2"),
                *self.extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/readyz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert self.process.poll() is None, self.process.communicate()[0]
            assert time.monotonic() < deadline, "gpuctl serve did not start"
            time.sleep(0.1)

    def kill(self, sig: int = signal.SIGTERM) -> str:
        assert self.process is not None
        self.process.send_signal(sig)
        output, _ = self.process.communicate(timeout=30)
        self.process = None
        return output

    def call(self, who: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {SECRETS[who]}"}
        return httpx.request(method, self.api + path, headers=headers, timeout=30, **kwargs)

    def subscribe(self, who: str, url: str, events: list[str] = ALL_EVENTS) -> dict[str, Any]:
        answer = self.call(who, "POST", "/webhooks", json={"url": url, "events": events})
        assert answer.status_code == 201, answer.text
        body: dict[str, Any] = answer.json()
        return body


@pytest.fixture
def serve(env: Env, token_file: Path) -> Iterator[Serve]:
    server = Serve(env, token_file, ("--webhook-allow-cidr", "127.0.0.0/8"))
    server.start()
    output = ""
    try:
        yield server
    finally:
        if server.process is not None:
            output = server.kill()
    for secret in SECRETS.values():
        assert secret not in output  # no token in the log


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _create(serve: Serve, text: str, who: str = "admin") -> str:
    made = serve.call(who, "POST", "/jobs", json={"yamlContent": text})
    assert made.status_code == 201, made.text
    job_id: str = made.json()["jobId"]
    return job_id


def test_each_transition_of_a_job_arrives_signed(serve: Serve, receiver: Receiver) -> None:
    sub = serve.subscribe("admin", receiver.url)
    assert sub["secret"].startswith("whsec_") and sub["namespace"] is None
    assert "secret" not in serve.call("admin", "GET", f"/webhooks/{sub['id']}").json()
    _create(serve, training("sft"))
    wait_for(lambda: "job.succeeded" in receiver.types(), timeout=60, what="job.succeeded")
    failing = training("broken").replace("echo hello from broken; sleep 30", "exit 3")
    _create(serve, failing)
    wait_for(lambda: "job.failed" in receiver.types(), timeout=60, what="job.failed")
    assert serve.call("admin", "DELETE", "/jobs/default.sft").status_code == 200
    wait_for(lambda: "job.deleted" in receiver.types(), timeout=60, what="job.deleted")

    events = receiver.verified(sub["secret"])
    sft = [e for e in events if e["data"]["jobId"] == "default.sft"]
    assert [e["type"] for e in sft] == [
        "job.created",
        "job.running",
        "job.succeeded",
        "job.deleted",
    ]
    assert [e["data"]["status"] for e in sft] == ["pending", "running", "succeeded", "deleted"]
    assert sft[-1]["data"]["reason"] == ""
    assert {k for e in sft for k in e["data"]} == {
        *("jobId", "name", "kind", "namespace", "status", "reason", "time"),
    }
    assert sft[0]["data"]["kind"] == "training" and sft[0]["data"]["namespace"] == "default"
    broken = [e for e in events if e["data"]["jobId"] == "default.broken"]
    assert broken[-1]["type"] == "job.failed"
    assert "BackoffLimitExceeded" in broken[-1]["data"]["reason"]
    assert len({r.headers["webhook-id"] for r in receiver.got}) == len(receiver.got)
    detail = serve.call("admin", "GET", f"/webhooks/{sub['id']}").json()
    assert {d["outcome"] for d in detail["deliveries"]} == {"delivered"}
    assert detail["pending"] == 0


def test_a_receiver_that_fails_twice_gets_the_same_webhook_id_a_third_time(
    serve: Serve, receiver: Receiver
) -> None:
    sub = serve.subscribe("admin", receiver.url, ["job.created"])
    receiver.answers = [500, 500]
    _create(serve, training("sft"))
    wait_for(lambda: len(receiver.got) >= 3, timeout=60, what="three attempts")
    time.sleep(1)
    assert len(receiver.got) == 3  # delivered at the third: no fourth
    assert len({r.headers["webhook-id"] for r in receiver.got}) == 1
    assert len(receiver.verified(sub["secret"])) == 3  # each attempt signed anew, all valid
    detail = serve.call("admin", "GET", f"/webhooks/{sub['id']}").json()
    assert [(d["attempt"], d["outcome"], d["statusCode"]) for d in detail["deliveries"]] == [
        (3, "delivered", 200),
        (2, "retrying", 500),
        (1, "retrying", 500),
    ]


def test_a_kill_9_between_a_transition_and_its_delivery_still_delivers(
    serve: Serve, receiver: Receiver
) -> None:
    sub = serve.subscribe("admin", receiver.url, ["job.succeeded"])
    receiver.answers = [503] * 1000  # nothing gets through while the first server runs
    _create(serve, training("sft"))
    wait_for(lambda: len(receiver.got) >= 1, timeout=60, what="a first attempt")
    first_id = receiver.got[0].headers["webhook-id"]
    serve.kill(signal.SIGKILL)
    receiver.answers.clear()
    receiver.got.clear()
    serve.start()  # it takes over the Lease once the dead one's expires
    wait_for(lambda: len(receiver.got) >= 1, timeout=60, what="the delivery after the restart")
    time.sleep(1)
    assert [r.headers["webhook-id"] for r in receiver.got] == [first_id]
    assert [e["type"] for e in receiver.verified(sub["secret"])] == ["job.succeeded"]


def test_loopback_is_refused_unless_allowed(env: Env, token_file: Path) -> None:
    strict = Serve(env, token_file, ())
    strict.start()
    try:
        for url in (
            "http://127.0.0.1:9/hook",
            "http://localhost/hook",
            "http://169.254.169.254/latest/meta-data/",
            "http://10.96.0.1/",
            "http://[::ffff:127.0.0.1]/",
            "file:///etc/passwd",
        ):
            answer = strict.call(
                "admin", "POST", "/webhooks", json={"url": url, "events": ALL_EVENTS}
            )
            assert answer.status_code == 422, (url, answer.text)
            assert answer.json()["error"] == "WebhookUrlNotAllowed"
            assert answer.json()["field"] == "url"
        assert strict.call("admin", "GET", "/webhooks").json()["total"] == 0
    finally:
        strict.kill()


def test_one_users_subscriptions_are_not_found_by_another(serve: Serve, receiver: Receiver) -> None:
    assert serve.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    alice = serve.subscribe("alice", receiver.url, ["job.created"])
    assert alice["namespace"] == "alice" and alice["owner"] == "alice"
    path = f"/webhooks/{alice['id']}"
    for method, suffix in (("GET", ""), ("DELETE", ""), ("POST", "/test"), ("POST", "/rotate")):
        answer = serve.call("bob", method, path + suffix)
        assert answer.status_code == 404, (method, suffix, answer.text)
        assert answer.json()["error"] == "WebhookNotFound"
    assert serve.call("bob", "GET", "/webhooks").json() == {"total": 0, "items": []}
    forged = serve.call("admin", "GET", "/webhooks/" + "a" * 5000)
    assert forged.status_code == 404 and len(forged.json()["message"]) < 80
    assert serve.call("admin", "GET", "/webhooks").json()["total"] == 1
    mine = {"url": receiver.url, "events": ["job.created"], "namespace": "alice"}
    assert serve.call("bob", "POST", "/webhooks", json=mine).status_code == 403
    # bob's job is not alice's event
    _create(serve, training("theirs"), who="bob")
    _create(serve, training("hers"), who="alice")
    wait_for(lambda: len(receiver.got) >= 1, timeout=60, what="alice's job.created")
    time.sleep(1)
    assert [e["data"]["jobId"] for e in receiver.verified(alice["secret"])] == ["alice.hers"]
    assert serve.call("alice", "DELETE", path).status_code == 200
    assert serve.call("alice", "GET", path).status_code == 404


def test_a_rotated_secret_signs_beside_the_old_one(serve: Serve, receiver: Receiver) -> None:
    sub = serve.subscribe("admin", receiver.url, ["job.created"])
    rotated = serve.call("admin", "POST", f"/webhooks/{sub['id']}/rotate")
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()["secret"]
    assert new.startswith("whsec_") and new != sub["secret"]
    queued = serve.call("admin", "POST", f"/webhooks/{sub['id']}/test")
    assert queued.status_code == 202, queued.text
    wait_for(lambda: len(receiver.got) >= 1, timeout=60, what="the test event")
    assert len(receiver.got[0].headers["webhook-signature"].split(" ")) == 2
    assert receiver.verified(new)[0]["type"] == "webhook.test"
    assert receiver.verified(sub["secret"])[0]["type"] == "webhook.test"
    assert receiver.got[0].headers["webhook-id"] == queued.json()["webhookId"]


def test_a_url_that_is_not_plain_http_is_refused_before_any_write(api: Api) -> None:
    for url in ("ftp://example.com/x", "http://user:pw@example.com/x", "/relative", "x" * 3000):
        answer = api.call("admin", "POST", "/webhooks", json={"url": url, "events": ALL_EVENTS})
        assert answer.status_code in (400, 422), (url, answer.text)
        if answer.status_code == 422:
            assert answer.json()["error"] == "WebhookUrlNotAllowed"
            assert "pw" not in answer.json()["message"]
    assert api.call("admin", "GET", "/webhooks").json() == {"total": 0, "items": []}
    unknown = api.call("admin", "POST", "/webhooks", json={"url": "https://e.com", "events": ["x"]})
    assert unknown.status_code == 400


def test_of_two_replicas_only_the_lease_holder_delivers_and_the_other_takes_over(
    serve: Serve, receiver: Receiver, env: Env, token_file: Path
) -> None:
    other = Serve(env, token_file, ("--webhook-allow-cidr", "127.0.0.0/8"))
    other.start()
    try:
        sub = serve.subscribe("admin", receiver.url, ["job.created"])
        assert other.call("admin", "GET", f"/webhooks/{sub['id']}").status_code == 200
        _create(other, training("one"))
        wait_for(lambda: len(receiver.got) >= 1, timeout=60, what="job.created of one")
        serve.kill()  # the first replica ends (it held the lease: it started first)
        _create(other, training("two"))
        wait_for(lambda: len(receiver.got) >= 2, timeout=60, what="job.created of two")
        time.sleep(1)
        events = receiver.verified(sub["secret"])
        assert [e["data"]["jobId"] for e in events] == ["default.one", "default.two"]
    finally:
        other.kill()


def test_the_guides_receiver_verifies_and_prints_the_test_event_and_a_jobs_events(
    serve: Serve, tmp_path: Path
) -> None:
    """The Python receiver of docs/guides/webhooks.md, as written (on a free loopback port): it
    verifies with the standardwebhooks package and prints the test event and each job event."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guides" / "webhooks.md").read_text()
    code = re.search(r"```python\n(.*?)```", guide, re.S)
    assert code is not None
    port = free_port()
    listen = '("0.0.0.0", 9000)'
    assert listen in code.group(1)
    script = tmp_path / "receiver.py"
    script.write_text(code.group(1).replace(listen, f'("127.0.0.1", {port})'))
    sub = serve.subscribe("admin", f"http://127.0.0.1:{port}/gpuctl")
    log = (tmp_path / "receiver.log").open("w")
    receiver = subprocess.Popen(
        [sys.executable, "-u", str(script)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "GPUCTL_WEBHOOK_SECRET": sub["secret"]},
    )
    try:
        # the test event goes as soon as it is queued: only once the receiver listens
        wait_for(lambda: _listening(port), timeout=30, what="the guide's receiver")
        tested = serve.call("admin", "POST", f"/webhooks/{sub['id']}/test")
        assert tested.status_code == 202, tested.text
        _create(serve, training("sft"))
        printed = tmp_path / "receiver.log"
        wait_for(
            lambda: "job.succeeded default.sft succeeded" in printed.read_text(),
            timeout=60,
            what="the receiver printing job.succeeded",
        )
    finally:
        receiver.terminate()
        receiver.wait(10)
        log.close()
    lines = [line for line in printed.read_text().splitlines() if not line.startswith("127.")]
    assert [line for line in lines if line.startswith("job.")] == [
        "job.created default.sft pending",
        "job.running default.sft running",
        "job.succeeded default.sft succeeded",
    ]
    # the test event is delivered beside job.created, in either order
    assert [line for line in lines if not line.startswith("job.")] == [f"webhook.test {sub['id']}"]
    detail = serve.call("admin", "GET", f"/webhooks/{sub['id']}").json()
    assert {d["outcome"] for d in detail["deliveries"]} == {"delivered"}
