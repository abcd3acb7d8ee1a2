"""Retries through a proxy in front of `serve` that injects faults: a create whose answer is
lost after the server made the job (503) is retried with the same Idempotency-Key and makes one
job; a 429's Retry-After is waited for; the retries stop at the deadline. And the retry rules
themselves on a mock transport: what is sent again, and what never is."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import httpx
import pytest
from gpuctl_client import Client, ConnectionFailed, RateLimited, RetryPolicy, ServerError
from gpuctl_client.retry import RetryTransport, retry_after
from sdk_helpers import FAST_RETRIES, Proxy, Rule, Seen, spec

from tests.conftest import Env
from tests.server.conftest import SECRETS


def _created_once_then_lost(seen: Seen, number: int) -> object:
    """The first POST of jobs reaches the server, and its answer is replaced by a 503."""
    if seen.method == "POST" and number == 1:
        return ("forward", 503, {"Content-Type": "text/html"})
    return "forward"


def test_a_create_whose_answer_is_lost_is_retried_into_one_job(
    make_proxy: Callable[[Rule], Proxy], env: Env
) -> None:
    proxy = make_proxy(_created_once_then_lost)
    with Client(proxy.base, SECRETS["admin"], retry=FAST_RETRIES) as client:
        made = client.jobs.create(spec("once"))
        batch = client.jobs.create_batch([spec("twice-a"), spec("twice-b")])
    assert made.job_id == "default.once"
    assert sorted(job.job_id for job in batch.success) == ["default.twice-a", "default.twice-b"]
    posts = [s for s in proxy.seen if s.method == "POST"]
    # the SDK always says whether a job no node could hold is accepted (here: it is not)
    assert [s.path for s in posts] == ["/api/v1/jobs?allowPending=false"] * 2 + [
        "/api/v1/jobs/batch?allowPending=false"
    ] * 2
    assert posts[0].key and posts[0].key == posts[1].key  # one key for the call's tries
    assert posts[2].key and posts[2].key == posts[3].key != posts[0].key
    names = sorted(job["metadata"]["name"] for job in env.cluster.list("Job", "default"))
    assert names == ["once", "twice-a", "twice-b"]


def test_without_the_key_the_same_retry_would_have_made_a_second_job(
    make_proxy: Callable[[Rule], Proxy], env: Env
) -> None:
    """What the key saves: the server's answer to a repeat without the key is 409 (it made
    the job the first time), so a client that cannot tell would report a failure or, with a
    generated name, make two jobs; with the key the repeat answers the first result."""
    proxy = make_proxy(_created_once_then_lost)
    with Client(proxy.base, SECRETS["admin"], retry=FAST_RETRIES) as client:
        first = client.http.post(
            "/api/v1/jobs", content=spec("bare"), headers={"Content-Type": "application/yaml"}
        )
        assert first.status_code == 503  # a POST without a key is not sent again
        again = client.http.post(
            "/api/v1/jobs", content=spec("bare"), headers={"Content-Type": "application/yaml"}
        )
    assert again.status_code == 409
    assert [job["metadata"]["name"] for job in env.cluster.list("Job", "default")] == ["bare"]


def _each_write_answered_once_then_lost(seen: Seen, number: int) -> object:
    """The first PATCH or POST of each path reaches the server; its answer becomes a 503."""
    if seen.method in ("PATCH", "POST") and number == 1:
        return ("forward", 503, {"Content-Type": "text/html"})
    return "forward"


def test_a_cap_set_and_nodes_added_whose_answers_are_lost_are_sent_again(
    make_proxy: Callable[[Rule], Proxy], env: Env
) -> None:
    """The server did each the first time; the repeat does nothing more and answers 200."""
    with Client(make_proxy(lambda seen, number: "forward").base, SECRETS["admin"]) as direct:
        direct.pools.create("tuning", nodes=["gpu-a100-0"], gpu_type=["A100-80G"])
    proxy = make_proxy(_each_write_answered_once_then_lost)
    with Client(proxy.base, SECRETS["admin"], retry=FAST_RETRIES) as client:
        assert client.pools.set_cap("tuning", 3).gpu_cap == 3
        added = client.pools.add_nodes("tuning", ["gpu-a100-1"])
        assert added.message == "node/gpu-a100-1 already in pool tuning"  # the repeat's answer
        assert client.pools.get("tuning").nodes == ["gpu-a100-0", "gpu-a100-1"]
    writes = [(s.method, s.path) for s in proxy.seen if s.method != "GET"]
    assert (
        writes
        == [("PATCH", "/api/v1/pools/tuning")] * 2 + [("POST", "/api/v1/pools/tuning/nodes")] * 2
    )


def test_retry_after_is_waited_for(make_proxy: Callable[[Rule], Proxy]) -> None:
    def busy_once(seen: Seen, number: int) -> object:
        if seen.method == "GET" and number == 1:
            return (429, {"Retry-After": "1", "Content-Type": "application/json"})
        return "forward"

    proxy = make_proxy(busy_once)
    quick = RetryPolicy(deadline=20.0, base=0.001, cap=0.01)  # the backoff alone: milliseconds
    with Client(proxy.base, SECRETS["admin"], retry=quick) as client:
        assert client.jobs.list().total == 0
    first, second = proxy.seen
    assert second.at - first.at >= 1.0


def test_the_retries_stop_at_the_deadline(make_proxy: Callable[[Rule], Proxy]) -> None:
    proxy = make_proxy(lambda seen, number: (503, {"Content-Type": "application/json"}))
    policy = RetryPolicy(deadline=1.0, base=0.1)
    with (
        Client(proxy.base, SECRETS["admin"], retry=policy) as c,
        pytest.raises(ServerError) as failed,
    ):
        c.jobs.get("default.x")
    assert (failed.value.status, failed.value.error) == (503, "Injected")
    assert len(proxy.seen) >= 2
    assert proxy.seen[-1].at - proxy.seen[0].at < 1.0


# The rules on a mock transport: no server, no waiting (the sleeps are recorded).


class Script:
    """A transport answering from a list (a status, or an exception to raise), recording."""

    def __init__(self, *answers: int | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        headers = {"Retry-After": "3"} if answer == 429 else {}
        return httpx.Response(answer, headers=headers, json={"error": "E", "message": "m"})


def _client(script: Script, sleeps: list[float], deadline: float = 60.0) -> Client:
    clock = itertools.count()  # one second passes at each look at the clock
    policy = RetryPolicy(deadline=deadline, sleep=sleeps.append, clock=lambda: float(next(clock)))
    return Client("http://api", "t", retry=policy, transport=httpx.MockTransport(script))


def test_connection_errors_and_5xx_are_retried_for_reads() -> None:
    sleeps: list[float] = []
    script = Script(httpx.ConnectError("refused"), 502, 504, httpx.ReadError("reset"), 404)
    with _client(script, sleeps) as client, pytest.raises(Exception) as found:
        client.jobs.get("default.a")
    assert type(found.value).__name__ == "NotFound"
    assert len(script.requests) == 5 and len(sleeps) == 4
    assert all(0 <= wait <= min(5.0, 0.2 * 2**i) for i, wait in enumerate(sleeps))


def test_a_post_without_a_key_is_sent_again_only_when_it_surely_did_nothing() -> None:
    sleeps: list[float] = []
    script = Script(httpx.ConnectError("refused"), 429, 503)
    with _client(script, sleeps) as client, pytest.raises(ServerError):
        client.pools.create("p", nodes=["n"])
    assert len(script.requests) == 3  # connect error, 429: again; 503: maybe done, not again
    assert sleeps[1] == 3.0  # Retry-After
    script = Script(httpx.ReadError("reset mid-answer"))
    with _client(script, sleeps) as client, pytest.raises(ConnectionFailed):
        client.pools.create("p", nodes=["n"])
    assert len(script.requests) == 1


def test_a_create_is_sent_again_with_its_one_key() -> None:
    sleeps: list[float] = []
    script = Script(httpx.ReadError("reset"), 503, 201)
    with _client(script, sleeps) as client:
        response = client.http.post(
            "/api/v1/jobs", content=b"kind: training\n", headers={"Idempotency-Key": "k1"}
        )
    assert response.status_code == 201
    assert [r.headers["Idempotency-Key"] for r in script.requests] == ["k1"] * 3
    assert [r.content for r in script.requests] == [b"kind: training\n"] * 3


def test_the_deadline_bounds_the_retries_and_the_last_answer_is_raised() -> None:
    sleeps: list[float] = []
    script = Script(*[503] * 50)
    with _client(script, sleeps, deadline=10.0) as client, pytest.raises(ServerError):
        client.jobs.list()
    assert 1 < len(script.requests) <= 10  # a look at the clock a try: 10 s
    script = Script(429)
    with _client(script, sleeps, deadline=2.0) as client, pytest.raises(RateLimited) as busy:
        client.jobs.list()  # Retry-After 3 s is past the deadline: not waited for
    assert len(script.requests) == 1 and busy.value.retry_after == 3.0


def test_retry_after_as_a_date() -> None:
    assert retry_after(httpx.Headers({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert retry_after(httpx.Headers({"Retry-After": "7"})) == 7.0
    assert retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert isinstance(RetryTransport().policy, RetryPolicy)


def test_writes_whose_repeat_changes_nothing_are_sent_again() -> None:
    """Setting a pool's cap, adding nodes to a pool and pushing a job's values do on a repeat
    what they did once: a 503 after them is retried, with the same body."""
    sleeps: list[float] = []
    calls: list[Callable[[Client], object]] = [
        lambda client: client.pools.set_cap("p", 8),
        lambda client: client.pools.add_nodes("p", ["n"]),
        lambda client: client.metrics.push("a.b", loss=0.5),
    ]
    for call in calls:
        script = Script(503, httpx.ReadError("reset mid-answer"), 404)
        with _client(script, sleeps) as client, pytest.raises(Exception) as found:
            call(client)
        assert type(found.value).__name__ == "NotFound"
        assert len(script.requests) == 3
        assert len({(r.method, r.url.path, r.content) for r in script.requests}) == 1


def test_other_patches_and_posts_are_not_marked_safe_to_repeat() -> None:
    sleeps: list[float] = []
    patch = httpx.Request("PATCH", "http://api/api/v1/pools/p", json={"maxGpus": 1})
    script = Script(503)
    with _client(script, sleeps) as client:
        assert client.http.send(patch).status_code == 503
    assert len(script.requests) == 1
    script = Script(503)
    with _client(script, sleeps) as client, pytest.raises(ServerError):
        client.webhooks.test("w")  # a POST that sends an event: a repeat sends two
    assert len(script.requests) == 1
