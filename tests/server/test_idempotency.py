"""`Idempotency-Key` on POST /jobs and POST /jobs/batch on the `cluster` fixture (the sandbox and
the local real control plane): a repeat with the same body answers the first job (200, one Job
in the cluster), another body is 422, and the key is kept with the job, so a new server (a
restart, another replica) answers the same. A key is a caller's across the cluster, so each test
has keys of its own (the shared control plane keeps other tests' jobs and keys)."""

from __future__ import annotations

import dataclasses

import pytest
from fastapi.testclient import TestClient

from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens

from .conftest import ClusterApi, quota, training


@pytest.fixture
def api(cluster_api: ClusterApi) -> ClusterApi:
    return cluster_api


def _key(api: ClusterApi, key: str = "3f0c2a9e-create-sft") -> dict[str, str]:
    return {"Idempotency-Key": f"{key}-{api.tail}"}


def _jobs_named(api: ClusterApi, name: str) -> list[str]:
    """The jobs called `name` in the test's namespaces (its own and its users')."""
    ours = {api.namespace, *api.users.values()}
    return [
        f"{job['metadata']['namespace']}.{job['metadata']['name']}"
        for job in api.cluster.list("Job", None)
        if job["metadata"]["name"] == name and job["metadata"]["namespace"] in ours
    ]


def test_a_repeated_key_with_the_same_body_answers_the_first_job(api: ClusterApi) -> None:
    body = {"yamlContent": training("sft")}
    first = api.call("admin", "POST", "/jobs", json=body, headers=_key(api))
    assert first.status_code == 201, first.text
    again = api.call("admin", "POST", "/jobs", json=body, headers=_key(api))
    assert again.status_code == 200, again.text
    assert again.json()["jobId"] == first.json()["jobId"] == api.job_id("sft")
    assert again.json()["kind"] == "training"
    assert "earlier request with this Idempotency-Key" in again.json()["message"]
    assert _jobs_named(api, "sft") == [api.job_id("sft")]
    # without the key the same body is a second create, which the cluster refuses
    assert api.call("admin", "POST", "/jobs", json=body).status_code == 409


def test_a_repeated_key_with_another_body_is_422_and_creates_nothing(api: ClusterApi) -> None:
    assert api.call(
        "admin", "POST", "/jobs", json={"yamlContent": training("a")}, headers=_key(api)
    )
    other = api.call(
        "admin", "POST", "/jobs", json={"yamlContent": training("b")}, headers=_key(api)
    )
    assert other.status_code == 422, other.text
    assert other.json()["error"] == "IdempotencyKeyReused"
    assert other.json()["field"] == "Idempotency-Key"
    assert api.job_id("a") in other.json()["message"]
    assert _jobs_named(api, "b") == []


def test_the_key_survives_a_new_server_on_the_same_cluster(api: ClusterApi) -> None:
    body = {"yamlContent": training("sft")}
    first = api.call("admin", "POST", "/jobs", json=body, headers=_key(api))
    assert first.status_code == 201, first.text
    restarted = create_app(api.cluster, Tokens.load(str(api.token_file)))
    with TestClient(restarted, raise_server_exceptions=False) as client:
        second = dataclasses.replace(api, client=client)
        again = second.call("admin", "POST", "/jobs", json=body, headers=_key(api))
        assert (again.status_code, again.json()["jobId"]) == (200, api.job_id("sft"))
        other = {"yamlContent": training("other")}
        assert (
            second.call("admin", "POST", "/jobs", json=other, headers=_key(api)).status_code == 422
        )
    assert _jobs_named(api, "sft") == [api.job_id("sft")]
    assert _jobs_named(api, "other") == []


def test_keys_are_each_users_own(api: ClusterApi) -> None:
    team = quota(api.user("alice"), api.user("bob"))
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": team}).status_code == 201
    body = {"yamlContent": training("sft")}
    alice = api.call("alice", "POST", "/jobs", json=body, headers=_key(api))
    bob = api.call("bob", "POST", "/jobs", json=body, headers=_key(api))
    mine, his = api.job_id("sft", owner="alice"), api.job_id("sft", owner="bob")
    assert (alice.status_code, alice.json()["jobId"]) == (201, mine)
    assert (bob.status_code, bob.json()["jobId"]) == (201, his)
    assert sorted(_jobs_named(api, "sft")) == sorted([mine, his])


def test_a_malformed_key_is_400(api: ClusterApi) -> None:
    body = {"yamlContent": training("sft")}
    for key in ("x" * 256, "two words"):
        answer = api.call("admin", "POST", "/jobs", json=body, headers={"Idempotency-Key": key})
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "BadIdempotencyKey"
    assert _jobs_named(api, "sft") == []


def test_a_repeated_batch_creates_only_what_the_first_did_not(api: ClusterApi) -> None:
    texts = [training("one"), "kind: training\nversion: v0.1\n", training("two")]
    first = api.call(
        "admin", "POST", "/jobs/batch", json={"yamlContents": texts}, headers=_key(api)
    )
    assert first.status_code == 207, first.text
    assert [item["jobId"] for item in first.json()["success"]] == [
        api.job_id("one"),
        api.job_id("two"),
    ]
    again = api.call(
        "admin", "POST", "/jobs/batch", json={"yamlContents": texts}, headers=_key(api)
    )
    assert again.status_code == 207, again.text
    assert again.json()["success"] == first.json()["success"]
    assert [item["index"] for item in again.json()["failed"]] == [1]
    assert _jobs_named(api, "one") == [api.job_id("one")]
    assert _jobs_named(api, "two") == [api.job_id("two")]
    whole = [training("three")]
    made = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": whole}, headers=_key(api))
    assert made.status_code == 422  # the key was used for another batch
    assert made.json()["error"] == "IdempotencyKeyReused"
    assert _jobs_named(api, "three") == []
    fresh = _key(api, "batch-2")
    assert api.call("admin", "POST", "/jobs/batch", json={"yamlContents": whole}, headers=fresh)
    repeated = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": whole}, headers=fresh)
    assert repeated.status_code == 200, repeated.text
    assert repeated.json() == {
        "success": [{"jobId": api.job_id("three"), "name": "three"}],
        "failed": [],
    }
    # the same key on the other route is another request
    single = api.call("admin", "POST", "/jobs", json={"yamlContent": whole[0]}, headers=fresh)
    assert single.status_code == 422


def test_two_requests_with_one_key_at_once_make_one_job(api: ClusterApi) -> None:
    from concurrent.futures import ThreadPoolExecutor

    body = {"yamlContent": training("sft")}
    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(
                lambda _: api.call("admin", "POST", "/jobs", json=body, headers=_key(api)), (1, 2)
            )
        )
    assert sorted(a.status_code for a in answers) == [200, 201], [a.text for a in answers]
    assert {a.json()["jobId"] for a in answers} == {api.job_id("sft")}
    assert _jobs_named(api, "sft") == [api.job_id("sft")]
