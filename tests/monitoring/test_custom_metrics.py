"""A job's own values pushed through `POST /api/v1/metrics/custom` to a real Pushgateway
(Debian's `prometheus-pushgateway`), scraped by a real Prometheus (honor_labels), and read back
by `GET /jobs/{id}/metrics`, `gpuctl get jobs` (PROGRESS) and `gpuctl describe job` (curves);
and every push the rules refuse, none of which reaches the Pushgateway."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import urllib3
from fastapi.testclient import TestClient

from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens
from tests.conftest import Env
from tests.server.conftest import QUOTA, SECRETS, TOKEN_FILE, inference
from tests.support.ports import free_port
from tests.support.sandbox import wait_for


class Api:
    def __init__(self, client: TestClient) -> None:
        self.client = client

    def call(self, who: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}))
        if who is not None:
            headers["Authorization"] = f"Bearer {SECRETS[who]}"
        answer: httpx.Response = self.client.request(
            method, "/api/v1" + path, headers=headers, **kwargs
        )
        return answer

    def push(self, who: str, job_id: str, metrics: Any) -> httpx.Response:
        """The body as Python's json writes it: NaN and Infinity as those (invalid) words."""
        body = json.dumps({"jobId": job_id, "metrics": metrics})
        headers = {"Content-Type": "application/json"}
        return self.call(who, "POST", "/metrics/custom", content=body, headers=headers)


@contextmanager
def serving(
    env: Env, tmp_path: Path, prometheus: str | None = None, pushgateway: str | None = None
) -> Iterator[Api]:
    path = tmp_path / "tokens.yaml"
    path.write_text(TOKEN_FILE)
    app = create_app(env.cluster, Tokens.load(str(path)), prometheus, pushgateway_url=pushgateway)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client)


def _world(api: Api) -> None:
    """alice runs `mine`, bob runs `other` (each in their own namespace)."""
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    for who, name in (("alice", "mine"), ("bob", "other")):
        made = api.call(who, "POST", "/jobs", json={"yamlContent": inference(name, replicas=1)})
        assert made.status_code == 201, made.text


def _gateway_text(pushgateway: str) -> str:
    answer = urllib3.PoolManager().request("GET", pushgateway + "/metrics")
    assert answer.status == 200
    return answer.data.decode()


def _pushed_lines(pushgateway: str) -> list[str]:
    """The Pushgateway's series of pushed job values, without comments."""
    return sorted(
        line for line in _gateway_text(pushgateway).splitlines() if line.startswith("gpuctl_job_")
    )


def _last(points: list[dict[str, Any]]) -> float:
    value: float = points[-1]["value"]
    return value


def _metrics(api: Api, job_id: str, query: str = "") -> dict[str, Any]:
    answer = api.call("alice", "GET", f"/jobs/{job_id}/metrics{query}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_pushed_values_are_read_back_by_the_api_get_jobs_and_describe(
    env: Env, tmp_path: Path, prometheus_and_pushgateway: tuple[str, str]
) -> None:
    prometheus, pushgateway = prometheus_and_pushgateway
    with serving(env, tmp_path, prometheus, pushgateway) as api:
        _world(api)
        values = {"loss": 2.5, "tokensPerSecond": 5100, "progress": 10}
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 5))
        first = api.push("alice", "alice.mine", values)
        assert first.status_code == 200, first.text
        assert first.json() == {
            "jobId": "alice.mine",
            "stored": ["loss", "progress", "tokensPerSecond"],
            "pushgateway": pushgateway,
        }
        wait_for(
            lambda: _metrics(api, "alice.mine").get("custom", {}).get("progress"),
            timeout=30,
            what="the first push scraped",
        )
        # POST semantics: a later push replaces the names it carries and keeps the others
        later = api.push("alice", "alice.mine", {"loss": 1.75, "progress": 42.5})
        assert later.status_code == 200, later.text
        assert _pushed_lines(pushgateway) == [
            'gpuctl_job_loss{instance="",job="mine",namespace="alice"} 1.75',
            'gpuctl_job_progress{instance="",job="mine",namespace="alice"} 42.5',
            'gpuctl_job_tokensPerSecond{instance="",job="mine",namespace="alice"} 5100',
        ]
        wait_for(
            lambda: _last(_metrics(api, "alice.mine")["custom"]["progress"]) == 42.5,
            timeout=30,
            what="the second push scraped",
        )
        body = _metrics(api, "alice.mine")
        assert sorted(body["custom"]) == ["loss", "progress", "tokensPerSecond"]
        assert _last(body["custom"]["loss"]) == 1.75

        def recent_losses() -> set[float]:  # one point a second since the first push
            recent = _metrics(api, "alice.mine", f"?startTime={since}")
            return {p["value"] for p in recent["custom"]["loss"]}

        wait_for(lambda: recent_losses() == {2.5, 1.75}, timeout=10, what="both losses")
        assert body["throughput"] == body["custom"]["tokensPerSecond"]
        assert _last(body["throughput"]) == 5100
        assert body["message"] == "" and body["source"] == prometheus
        only = api.call("alice", "GET", "/jobs/alice.mine/metrics?metric=throughput").json()
        assert set(only) == {"throughput", "source", "message"}
        # bob's job pushed nothing: empty, and saying why throughput is
        bobs = api.call("bob", "GET", "/jobs/bob.other/metrics").json()
        assert bobs["custom"] == {} and bobs["throughput"] == []
        assert "pushed no tokensPerSecond" in bobs["message"]
        # the job's page: its pushed throughput now (bob's job pushed none)
        detail = api.call("alice", "GET", "/jobs/alice.mine").json()
        assert detail["metrics"]["throughput"] == "5100 tokens/s", detail["metrics"]
        assert api.call("bob", "GET", "/jobs/bob.other").json()["metrics"]["throughput"] is None

        _cli_reads_the_same(env, prometheus)

        deleted = api.call("alice", "DELETE", "/jobs/alice.mine")
        assert deleted.status_code == 200, deleted.text
        forgotten = f"the Pushgateway at {pushgateway} now holds no values pushed by job mine"
        assert f"{forgotten} (namespace alice)" in deleted.json()["message"]
        assert deleted.json()["message"].count(forgotten) == 1  # said once
        assert _pushed_lines(pushgateway) == []


def _cli_reads_the_same(env: Env, prometheus: str) -> None:
    listed = env.gpuctl("get", "jobs", "-n", "alice", "--prometheus-url", prometheus)
    assert listed.returncode == 0, listed.stderr
    header, row = (line.split() for line in listed.stdout.splitlines())
    assert header[-1] == "PROGRESS" and row[0] == "mine" and row[-1] == "42.5%"
    everyone = env.gpuctl("get", "jobs", "-A", env={"GPUCTL_PROMETHEUS_URL": prometheus})
    rows = {line.split()[1]: line.split()[-1] for line in everyone.stdout.splitlines()[1:]}
    assert rows["mine"] == "42.5%" and rows["other"] == "-"
    # no listed job reports a progress: no column
    bobs = env.gpuctl("get", "jobs", "-n", "bob", "--prometheus-url", prometheus)
    assert bobs.returncode == 0 and "PROGRESS" not in bobs.stdout
    gone = env.gpuctl("get", "jobs", "-n", "alice", "--prometheus-url", "http://127.0.0.1:9")
    assert gone.returncode == 0 and "PROGRESS" not in gone.stdout
    assert gone.stderr.startswith("warning: PROGRESS: Prometheus at http://127.0.0.1:9 is")

    described = env.gpuctl(
        "describe", "job", "mine", "-n", "alice", "--since", "1m", "--prometheus-url", prometheus
    )
    assert described.returncode == 0, described.stderr
    section = described.stdout.split("Job metrics (pushed):\n", 1)[1].splitlines()
    assert section[0].split()[:2] == ["METRIC", "NOW"]
    curves = {line.split()[0]: line.split()[1:] for line in section[1:]}
    assert list(curves) == ["loss", "tokensPerSecond", "progress"]  # loss and throughput first
    assert curves["loss"][0] == "1.75" and curves["tokensPerSecond"][0] == "5100"
    # one point a second: the loss curve goes from its highest (2.5) to its lowest (1.75)
    curve = curves["loss"][1]
    assert curve[0] == "█" and curve[-1] == "▁", curve


def test_hostile_pushes_are_refused_and_reach_nothing(
    env: Env, tmp_path: Path, pushgateway_url: str
) -> None:
    with serving(env, tmp_path, None, pushgateway_url) as api:
        _world(api)
        # another tenant's job, a forged id, a job that does not exist: 404 like every route
        for who, job_id in (("bob", "alice.mine"), ("bob", "alice.mine/../x"), ("alice", "x.y")):
            answer = api.push(who, job_id, {"loss": 1})
            assert answer.status_code == 404, answer.text
            assert answer.json() == {"error": "JobNotFound", "message": f"no job {job_id!r}"}
        invalid: list[tuple[Any, str]] = [
            ({"loss": float("nan")}, "metrics.loss"),
            ({"loss": float("inf")}, "metrics.loss"),
            ({"loss": 10**400}, "metrics.loss"),
            ({"loss": "0.5"}, "metrics.loss"),
            ({"loss": True}, "metrics.loss"),
            ({"bad-name": 1}, "metrics.bad-name"),
            ({"9lives": 1}, "metrics.9lives"),
            ({"a:b": 1}, "metrics.a:b"),
            ({"progress": 101}, "metrics.progress"),
            ({}, "metrics"),
            ({f"m{i}": i for i in range(33)}, "metrics"),
            ([1, 2], "metrics"),
        ]
        overflow = '{"jobId": "alice.mine", "metrics": {"loss": 1e999}}'  # inf when parsed
        headers = {"Content-Type": "application/json"}
        answer = api.call("alice", "POST", "/metrics/custom", content=overflow, headers=headers)
        assert answer.status_code == 400 and answer.json()["field"] == "metrics.loss"
        for metrics, field in invalid:
            answer = api.push("alice", "alice.mine", metrics)
            assert answer.status_code == 400, answer.text
            body = answer.json()
            assert (body["error"], body["field"]) == ("InvalidRequest", field), body
            assert body["message"].startswith(f"{field}: ") and "Traceback" not in answer.text
        # past 16 KiB, however large (10 MiB is past the 2 MiB of other routes) or sent
        # chunked: the push's own rule, before the body is read
        refused = {
            "error": "TooLarge",
            "message": "the request body is over 16 KiB, the most the server reads "
            "(a push is at most 32 values)",
        }
        for size in (17 * 1024, 1024 * 1024, 10 * 1024 * 1024):
            huge = {"jobId": "alice.mine", "metrics": {"loss": 1.0}, "padding": "x" * size}
            too_large = api.call("alice", "POST", "/metrics/custom", json=huge)
            assert (too_large.status_code, too_large.json()) == (413, refused), size
            chunked = api.call(
                "alice",
                "POST",
                "/metrics/custom",
                content=iter([json.dumps(huge).encode()]),
                headers={"Content-Type": "application/json"},
            )
            assert (chunked.status_code, chunked.json()) == (413, refused), size
        many = {"jobId": "alice.mine", "metrics": {f"m{i}": i for i in range(10_000)}}
        assert api.call("alice", "POST", "/metrics/custom", json=many).json() == refused
        anonymous = api.call(None, "POST", "/metrics/custom", json={"jobId": "alice.mine"})
        assert anonymous.status_code == 401
        assert _pushed_lines(pushgateway_url) == []
        fine = api.push("alice", "alice.mine", {"samplesPerSecond": 12})
        assert fine.status_code == 200, fine.text
        assert _pushed_lines(pushgateway_url) == [
            'gpuctl_job_samplesPerSecond{instance="",job="mine",namespace="alice"} 12'
        ]
        assert api.call("alice", "DELETE", "/jobs/alice.mine").status_code == 200
        assert _pushed_lines(pushgateway_url) == []


def test_without_a_working_pushgateway_a_push_is_a_documented_error(
    env: Env, tmp_path: Path, prometheus_url: str
) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    cases = [
        (None, 503, "PushgatewayNotConfigured", "start it with --pushgateway-url URL"),
        # something else answers there (a Prometheus): it refuses the push
        (prometheus_url, 502, "PushgatewayError", f"the Pushgateway at {prometheus_url} answered"),
        (closed, 503, "PushgatewayUnavailable", f"the Pushgateway at {closed} is unreachable"),
    ]
    for pushgateway, status, code, words in cases:
        with serving(env, tmp_path, None, pushgateway) as api:
            if pushgateway is None:
                _world(api)
            answer = api.push("alice", "alice.mine", {"loss": 0.5})
            assert answer.status_code == status, answer.text
            body = answer.json()
            assert set(body) == {"error", "message"} and body["error"] == code
            assert words in body["message"] and "Traceback" not in answer.text
    # the job is deleted all the same; the answer says what is left
    with serving(env, tmp_path, None, closed) as api:
        deleted = api.call("alice", "DELETE", "/jobs/alice.mine")
        assert deleted.status_code == 200, deleted.text
        message = deleted.json()["message"]
        assert "deployment.apps/mine deleted" in message
        left = "the Pushgateway may still hold values pushed by job mine (namespace alice): "
        assert f"{left}the Pushgateway at {closed} is unreachable" in message
        assert f"curl -X DELETE {closed}/metrics/job/mine/namespace/alice" in message


def test_gpuctl_delete_deletes_the_jobs_pushed_values_as_the_api_does(
    env: Env, tmp_path: Path, pushgateway_url: str
) -> None:
    """`gpuctl delete job` and `gpuctl delete -f` delete the job's Pushgateway group (found as
    `gpuctl serve` finds it: $GPUCTL_PUSHGATEWAY_URL, else the config file), so that a new job
    of the same name starts without the old one's values; other jobs' groups stay."""
    forgotten = "the Pushgateway at {2} now holds no values pushed by job {0} (namespace {1})"
    with serving(env, tmp_path, None, pushgateway_url) as api:
        _world(api)
        for who, job_id in (("alice", "alice.mine"), ("bob", "bob.other")):
            assert api.push(who, job_id, {"loss": 2.5, "progress": 10}).status_code == 200
        by_env = {"GPUCTL_PUSHGATEWAY_URL": pushgateway_url}
        deleted = env.gpuctl("delete", "job", "mine", "-n", "alice", env=by_env)
        assert deleted.returncode == 0 and deleted.stderr == "", deleted.stderr
        assert deleted.stdout.splitlines() == [
            "deployment.apps/mine deleted",
            "service/svc-mine deleted",
            forgotten.format("mine", "alice", pushgateway_url),
        ]
        assert [line.split("{")[1] for line in _pushed_lines(pushgateway_url)] == [
            'instance="",job="other",namespace="bob"} 2.5',
            'instance="",job="other",namespace="bob"} 10',
        ]
        # from the config file, for `delete -f` (what the spec renders) as well
        config = tmp_path / "config" / "gpuctl" / "config.yaml"
        config.parent.mkdir(parents=True)
        config.write_text(f"pushgatewayUrl: {pushgateway_url}\n")
        spec = tmp_path / "other.yaml"
        spec.write_text(inference("other", replicas=1))
        by_file = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "GPUCTL_PUSHGATEWAY_URL": ""}
        deleted = env.gpuctl("delete", "-f", str(spec), "-n", "bob", env=by_file)
        assert deleted.returncode == 0 and deleted.stderr == "", deleted.stderr
        assert deleted.stdout.splitlines()[-1] == forgotten.format("other", "bob", pushgateway_url)
        assert _pushed_lines(pushgateway_url) == []


def test_gpuctl_delete_with_the_pushgateway_down_deletes_the_job_and_warns(
    env: Env, tmp_path: Path
) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    with serving(env, tmp_path) as api:
        _world(api)
    deleted = env.gpuctl(
        "delete", "job", "mine", "-n", "alice", env={"GPUCTL_PUSHGATEWAY_URL": closed}
    )
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout.splitlines() == [
        "deployment.apps/mine deleted",
        "service/svc-mine deleted",
    ]
    warning = (
        "warning: the Pushgateway may still hold values pushed by job mine (namespace alice): "
        f"the Pushgateway at {closed} is unreachable"
    )
    assert deleted.stderr.startswith(warning), deleted.stderr
    hint = f"delete them with `curl -X DELETE {closed}/metrics/job/mine/namespace/alice`\n"
    assert deleted.stderr.endswith(hint) and "Traceback" not in deleted.stderr
    listed = env.gpuctl("get", "jobs", "-n", "alice")
    assert "mine" not in listed.stdout
