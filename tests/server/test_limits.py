"""What one request and one user may cost the server: the caller is known before the body is
read, bodies are capped (also chunked ones, and each spec of a batch), YAML aliases are
bounded, and each user has a few writes in progress at most."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI

from gpuctl.server.limits import MAX_BODY, WRITES_PER_USER

from .conftest import SECRETS, Api, training

CHUNK = 64 * 1024
YAML = "application/yaml"
# POST /jobs takes the JSON form ({"yamlContent": ...}) and the spec itself as application/yaml:
# the same caps and the same order (the caller first, then the body) apply to both.
MEDIA = ("application/json", "application/yaml")


def _job_body(media: str, spec: str) -> bytes:
    return json.dumps({"yamlContent": spec}).encode() if media.endswith("json") else spec.encode()


@dataclass
class Exchange:
    """One request sent straight to the ASGI app: what it read of the body, what it answered."""

    read: int = 0  # bytes of the body the app took
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> Any:
        return json.loads(self.body)


def _post(app: FastAPI, headers: dict[str, str], body: bytes | None, endless: bool) -> Exchange:
    """POST /api/v1/jobs with `body` (None: a chunk of CHUNK bytes at a time, forever when
    `endless`)."""
    exchange = Exchange()

    async def receive() -> dict[str, Any]:
        if body is not None:
            exchange.read += len(body)
            return {"type": "http.request", "body": body, "more_body": False}
        exchange.read += CHUNK
        return {"type": "http.request", "body": b"x" * CHUNK, "more_body": endless}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            exchange.status = message["status"]
            exchange.headers = {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            exchange.body += message.get("body", b"")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/jobs",
        "raw_path": b"/api/v1/jobs",
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    return exchange


def _app(api: Api) -> FastAPI:
    app = api.client.app
    assert isinstance(app, FastAPI)
    return app


@pytest.mark.parametrize("media", MEDIA)
def test_an_unknown_caller_is_401_before_a_byte_of_the_body_is_read(api: Api, media: str) -> None:
    huge = {"Content-Type": media, "Content-Length": str(100 * 1024 * 1024)}
    for headers in (huge, {**huge, "Authorization": "Bearer not-a-token"}):
        answer = _post(_app(api), headers, None, endless=True)
        assert answer.status == 401 and answer.read == 0
        assert answer.json()["error"] == "Unauthorized"
        assert answer.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("media", MEDIA)
def test_a_body_over_the_cap_is_413_without_reading_past_it(api: Api, media: str) -> None:
    admin = {"Authorization": f"Bearer {SECRETS['admin']}", "Content-Type": media}
    declared = _post(_app(api), {**admin, "Content-Length": str(MAX_BODY + 1)}, None, True)
    assert declared.status == 413 and declared.read == 0
    assert declared.json() == {
        "error": "TooLarge",
        "message": "the request body is over 2 MiB, the most the server reads (a spec is at "
        "most 1 MiB: split a batch into several requests)",
    }
    chunked = _post(_app(api), admin, None, endless=True)  # no Content-Length: chunked
    assert chunked.status == 413 and chunked.json()["error"] == "TooLarge"
    assert MAX_BODY < chunked.read <= MAX_BODY + CHUNK
    assert api.env.cluster.list("Job", None) == []


@pytest.mark.parametrize("media", MEDIA)
def test_a_body_within_the_cap_is_read_whole(api: Api, media: str) -> None:
    admin = {"Authorization": f"Bearer {SECRETS['admin']}", "Content-Type": media}
    body = _job_body(media, training("sft"))
    answer = _post(_app(api), {**admin, "Content-Length": str(len(body))}, body, endless=False)
    assert answer.status == 201, answer.body
    assert answer.json()["jobId"] == "default.sft"
    assert [job["metadata"]["name"] for job in api.env.cluster.list("Job", None)] == ["sft"]


def test_a_yaml_spec_over_one_mib_is_refused_as_the_json_form_is(api: Api) -> None:
    big = training("big") + "#" * (1024 * 1024) + "\n"
    answer = api.call("admin", "POST", "/jobs", content=big, headers={"Content-Type": "text/yaml"})
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "InvalidRequest",
        "message": f"the spec is {len(big)} characters, over the 1048576 (1 MiB) one spec may have",
    }
    assert api.env.cluster.list("Job", None) == []


def test_a_yaml_body_that_is_not_utf8_is_400(api: Api) -> None:
    body = training("latin").replace("latin", "caf\u00e9").encode("latin-1")
    answer = api.call("admin", "POST", "/jobs", content=body, headers={"Content-Type": YAML})
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "BadRequest",
        "message": f"the YAML body is not UTF-8 (byte {body.index(0xE9)}): send UTF-8",
    }


def test_every_spec_of_a_batch_is_capped_at_one_mib(api: Api) -> None:
    big = training("big") + "#" * (1024 * 1024) + "\n"
    answer = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": [training("a"), big]})
    assert answer.status_code == 400
    assert answer.json()["field"] == "yamlContents.1"
    assert api.env.cluster.list("Job", None) == []


@pytest.mark.parametrize("media", MEDIA)
def test_an_alias_bomb_is_refused_before_it_expands(api: Api, media: str) -> None:
    levels = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, 9):
        levels.append(f"a{level}: &a{level} [{','.join([f'*a{level - 1}'] * 9)}]")
    bomb = "kind: training\nversion: v0.1\n" + "\n".join(levels) + "\n"
    assert len(bomb) < 700
    body = _job_body(media, bomb)
    answer = api.call("alice", "POST", "/jobs", content=body, headers={"Content-Type": media})
    assert answer.status_code == 400
    body = answer.json()
    assert body["error"] == "InvalidYAML"
    assert "YAML aliases expand to more than 10000 values" in body["message"]


def test_each_user_has_a_few_writes_in_progress_at_most(api: Api) -> None:
    writes = _app(api).state.writes
    for _ in range(WRITES_PER_USER):
        writes.take("alice")
    try:
        refused = api.call("alice", "POST", "/jobs", json={"yamlContent": training("a")})
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "1"
        assert refused.json()["error"] == "TooManyRequests"
        other = api.call("bob", "POST", "/jobs", json={"yamlContent": training("b")})
        assert other.status_code == 404  # bob's own limit is untouched: he has no namespace
        assert other.json()["error"] == "NamespaceNotFound"
    finally:
        for _ in range(WRITES_PER_USER):
            writes.give_back("alice")
    assert writes.held("alice") == 0 and writes.held("bob") == 0
