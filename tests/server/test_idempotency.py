"""`Idempotency-Key` on POST /jobs and POST /jobs/batch against the sandbox: a repeat with the
same body answers the first job (200, one Job in the cluster), another body is 422, and the
key is kept with the job, so a new server (a restart, another replica) answers the same."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens

from .conftest import QUOTA, Api, training

KEY = {"Idempotency-Key": "3f0c2a9e-create-sft"}


def _jobs_named(api: Api, name: str) -> list[str]:
    return [
        f"{job['metadata']['namespace']}.{job['metadata']['name']}"
        for job in api.env.cluster.list("Job", None)
        if job["metadata"]["name"] == name
    ]


def test_a_repeated_key_with_the_same_body_answers_the_first_job(api: Api) -> None:
    body = {"yamlContent": training("sft")}
    first = api.call("admin", "POST", "/jobs", json=body, headers=KEY)
    assert first.status_code == 201, first.text
    again = api.call("admin", "POST", "/jobs", json=body, headers=KEY)
    assert again.status_code == 200, again.text
    assert again.json()["jobId"] == first.json()["jobId"] == "default.sft"
    assert again.json()["kind"] == "training"
    assert "earlier request with this Idempotency-Key" in again.json()["message"]
    assert _jobs_named(api, "sft") == ["default.sft"]
    # without the key the same body is a second create, which the cluster refuses
    assert api.call("admin", "POST", "/jobs", json=body).status_code == 409


def test_a_repeated_key_with_another_body_is_422_and_creates_nothing(api: Api) -> None:
    assert api.call("admin", "POST", "/jobs", json={"yamlContent": training("a")}, headers=KEY)
    other = api.call("admin", "POST", "/jobs", json={"yamlContent": training("b")}, headers=KEY)
    assert other.status_code == 422, other.text
    assert other.json()["error"] == "IdempotencyKeyReused"
    assert other.json()["field"] == "Idempotency-Key"
    assert "default.a" in other.json()["message"]
    assert _jobs_named(api, "b") == []


def test_the_key_survives_a_new_server_on_the_same_cluster(api: Api, token_file: Path) -> None:
    body = {"yamlContent": training("sft")}
    first = api.call("admin", "POST", "/jobs", json=body, headers=KEY)
    assert first.status_code == 201, first.text
    restarted = create_app(api.env.cluster, Tokens.load(str(token_file)))
    with TestClient(restarted, raise_server_exceptions=False) as client:
        second = Api(client, api.env)
        again = second.call("admin", "POST", "/jobs", json=body, headers=KEY)
        assert (again.status_code, again.json()["jobId"]) == (200, "default.sft")
        other = {"yamlContent": training("other")}
        assert second.call("admin", "POST", "/jobs", json=other, headers=KEY).status_code == 422
    assert _jobs_named(api, "sft") == ["default.sft"]
    assert _jobs_named(api, "other") == []


def test_keys_are_each_users_own(api: Api) -> None:
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    body = {"yamlContent": training("sft")}
    alice = api.call("alice", "POST", "/jobs", json=body, headers=KEY)
    bob = api.call("bob", "POST", "/jobs", json=body, headers=KEY)
    assert (alice.status_code, alice.json()["jobId"]) == (201, "alice.sft")
    assert (bob.status_code, bob.json()["jobId"]) == (201, "bob.sft")
    assert sorted(_jobs_named(api, "sft")) == ["alice.sft", "bob.sft"]


def test_a_malformed_key_is_400(api: Api) -> None:
    body = {"yamlContent": training("sft")}
    for key in ("x" * 256, "two words"):
        answer = api.call("admin", "POST", "/jobs", json=body, headers={"Idempotency-Key": key})
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "BadIdempotencyKey"
    assert _jobs_named(api, "sft") == []


def test_a_repeated_batch_creates_only_what_the_first_did_not(api: Api) -> None:
    texts = [training("one"), "kind: training\nversion: v0.1\n", training("two")]
    first = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": texts}, headers=KEY)
    assert first.status_code == 207, first.text
    assert [item["jobId"] for item in first.json()["success"]] == ["default.one", "default.two"]
    again = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": texts}, headers=KEY)
    assert again.status_code == 207, again.text
    assert again.json()["success"] == first.json()["success"]
    assert [item["index"] for item in again.json()["failed"]] == [1]
    assert _jobs_named(api, "one") == ["default.one"]
    assert _jobs_named(api, "two") == ["default.two"]
    whole = [training("three")]
    made = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": whole}, headers=KEY)
    assert made.status_code == 422  # the key was used for another batch
    assert made.json()["error"] == "IdempotencyKeyReused"
    assert _jobs_named(api, "three") == []
    fresh = {"Idempotency-Key": "batch-2"}
    assert api.call("admin", "POST", "/jobs/batch", json={"yamlContents": whole}, headers=fresh)
    repeated = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": whole}, headers=fresh)
    assert repeated.status_code == 200, repeated.text
    assert repeated.json() == {
        "success": [{"jobId": "default.three", "name": "three"}],
        "failed": [],
    }
    # the same key on the other route is another request
    single = api.call("admin", "POST", "/jobs", json={"yamlContent": whole[0]}, headers=fresh)
    assert single.status_code == 422


def test_two_requests_with_one_key_at_once_make_one_job(api: Api) -> None:
    from concurrent.futures import ThreadPoolExecutor

    body = {"yamlContent": training("sft")}
    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(lambda _: api.call("admin", "POST", "/jobs", json=body, headers=KEY), (1, 2))
        )
    assert sorted(a.status_code for a in answers) == [200, 201], [a.text for a in answers]
    assert {a.json()["jobId"] for a in answers} == {"default.sft"}
    assert _jobs_named(api, "sft") == ["default.sft"]
