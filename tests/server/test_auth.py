"""Who may do what: every route × no token, a wrong token, the owner (alice), another user
(bob) and an admin, with the exact codes, on the `cluster` fixture (the sandbox and the local
real control plane); and the token file's own rules."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuctl.errors import GpuctlError
from gpuctl.server.app import create_app
from gpuctl.server.auth import Principal, Tokens

from ..conftest import Env
from .conftest import SECRETS, ClusterApi, quota, training

# (method, path, json body, code for alice, bob, admin). alice owns job alice.t1 ("alice" in a
# path or body stands for her name, which is the test's own: `_named`). Writes use requests
# that pass authorisation and then fail without changing anything, so every caller meets the
# same cluster.
MATRIX: list[tuple[str, str, Any, int, int, int]] = [
    ("GET", "/jobs", None, 200, 200, 200),
    ("POST", "/jobs", {"yamlContent": "kind: training\n"}, 400, 400, 400),
    ("POST", "/jobs/batch", {"yamlContents": []}, 201, 201, 201),
    ("GET", "/jobs/alice.t1", None, 200, 404, 200),
    ("DELETE", "/jobs/alice.no-such-job", None, 404, 404, 404),
    ("GET", "/jobs/alice.t1/logs", None, 200, 404, 200),
    ("GET", "/jobs/alice.t1/metrics", None, 200, 404, 200),
    ("GET", "/metrics/jobs", None, 200, 200, 200),  # each caller's own jobs (an admin: all)
    ("GET", "/jobs/alice.t1/manifests", None, 200, 404, 200),
    # no Pushgateway here: a push for a job the caller may see is 503, for another's job 404
    ("POST", "/metrics/custom", {"jobId": "alice.t1", "metrics": {"loss": 0.5}}, 503, 404, 503),
    ("GET", "/pools", None, 200, 200, 200),
    ("GET", "/pools/no-such-pool", None, 404, 404, 404),
    ("POST", "/pools", {"name": "p", "nodes": ["no-such-node"]}, 403, 403, 409),
    ("DELETE", "/pools/no-such-pool", None, 403, 403, 404),
    ("PATCH", "/pools/no-such-pool", {"maxGpus": 4}, 403, 403, 404),
    ("POST", "/pools/no-such-pool/nodes", {"nodes": ["gpu-a100-0"]}, 403, 403, 404),
    ("DELETE", "/pools/no-such-pool/nodes/gpu-a100-0", None, 403, 403, 404),
    ("GET", "/workloads", None, 200, 200, 200),
    ("GET", "/nodes", None, 200, 200, 200),
    ("GET", "/nodes/gpu-a100-0", None, 200, 200, 200),
    ("GET", "/nodes/labels?key=g8s.host/x", None, 200, 200, 200),
    ("GET", "/nodes/labels/all", None, 200, 200, 200),
    ("GET", "/nodes/gpu-a100-0/labels/g8s.host/x", None, 404, 404, 404),
    ("POST", "/nodes/gpu-a100-0/labels", {"key": "other/x", "value": "v"}, 403, 403, 400),
    (
        "POST",
        "/nodes/labels/batch",
        {"nodeNames": ["no-such-node"], "key": "g8s.host/x", "value": "v"},
        403,
        403,
        200,
    ),
    ("DELETE", "/nodes/gpu-a100-0/labels/g8s.host/x", None, 403, 403, 404),
    ("GET", "/quotas", None, 200, 200, 200),
    ("GET", "/quotas/alice", None, 200, 403, 200),
    ("POST", "/quotas", {"yamlContent": training("x")}, 403, 403, 400),
    ("DELETE", "/quotas/no-such-user", None, 403, 403, 404),
    ("POST", "/auth/check", {"resource": "jobs", "action": "get"}, 200, 200, 200),
    ("GET", "/webhooks", None, 200, 200, 200),
    ("POST", "/webhooks", {"url": "http://127.0.0.1/", "events": ["job.created"]}, 422, 422, 422),
    ("GET", "/webhooks/whnosuch", None, 404, 404, 404),
    ("DELETE", "/webhooks/whnosuch", None, 404, 404, 404),
    ("POST", "/webhooks/whnosuch/test", None, 404, 404, 404),
    ("POST", "/webhooks/whnosuch/rotate", None, 404, 404, 404),
    ("POST", "/webhooks/whnosuch/enable", None, 404, 404, 404),
]


@pytest.fixture
def world(cluster_api: ClusterApi) -> ClusterApi:
    api = cluster_api
    team = quota(api.user("alice"), api.user("bob"))
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": team}).status_code == 201
    made = api.call("alice", "POST", "/jobs", json={"yamlContent": training("t1")})
    assert made.status_code == 201, made.text
    return api


def _named(api: ClusterApi, text: str) -> str:
    """`text` with the user names alice and bob replaced by the test's own."""
    return re.sub(r"\b(alice|bob)\b", lambda found: api.user(found.group(1)), text)


def test_every_route_answers_each_caller_with_the_exact_code(world: ClusterApi) -> None:
    wrong: list[str] = []
    for method, template, template_body, *codes in MATRIX:
        path = _named(world, template)
        body = json.loads(_named(world, json.dumps(template_body)))
        expected = dict(zip(("alice", "bob", "admin"), codes, strict=True))
        expected |= {None: 401, "not-a-token": 401}  # type: ignore[dict-item]
        for who, code in expected.items():
            answer = world.call(who, method, path, json=body)
            if answer.status_code != code:
                wrong.append(f"{method} {path} as {who}: {answer.status_code} {answer.text}")
            if code == 401:
                assert answer.headers["www-authenticate"] == "Bearer"
                assert answer.json()["error"] == "Unauthorized"
    assert wrong == []


def test_every_api_route_is_in_the_matrix(world: ClusterApi) -> None:
    document = world.client.get("/api/v1/openapi.json").json()
    routes = {
        (method.upper(), path.removeprefix("/api/v1"))
        for path, operations in document["paths"].items()
        for method in operations
    }
    covered = {(method, _template(path)) for method, path, *_ in MATRIX}
    assert routes - covered == set()


def _template(path: str) -> str:
    path = path.split("?")[0]
    for concrete, template in (
        ("/jobs/alice.t1", "/jobs/{jobId}"),
        ("/jobs/alice.t1/logs", "/jobs/{jobId}/logs"),
        ("/jobs/alice.t1/metrics", "/jobs/{jobId}/metrics"),
        ("/jobs/alice.t1/manifests", "/jobs/{jobId}/manifests"),
        ("/jobs/alice.no-such-job", "/jobs/{jobId}"),
        ("/pools/no-such-pool", "/pools/{poolName}"),
        ("/pools/no-such-pool/nodes", "/pools/{poolName}/nodes"),
        ("/pools/no-such-pool/nodes/gpu-a100-0", "/pools/{poolName}/nodes/{nodeName}"),
        ("/nodes/gpu-a100-0/labels/g8s.host/x", "/nodes/{nodeName}/labels/{key}"),
        ("/nodes/gpu-a100-0/labels", "/nodes/{nodeName}/labels"),
        ("/nodes/gpu-a100-0", "/nodes/{nodeName}"),
        ("/quotas/alice", "/quotas/{userName}"),
        ("/quotas/no-such-user", "/quotas/{userName}"),
        ("/webhooks/whnosuch", "/webhooks/{webhookId}"),
        ("/webhooks/whnosuch/test", "/webhooks/{webhookId}/test"),
        ("/webhooks/whnosuch/rotate", "/webhooks/{webhookId}/rotate"),
        ("/webhooks/whnosuch/enable", "/webhooks/{webhookId}/enable"),
    ):
        if path == concrete:
            return template
    return path


def test_a_user_cannot_delete_another_users_job_but_may_delete_their_own(
    world: ClusterApi,
) -> None:
    t1 = world.job_id("t1", owner="alice")
    assert world.call("bob", "DELETE", f"/jobs/{t1}").status_code == 404
    assert world.cluster.find("Job", "t1", world.user("alice")) is not None
    answer = world.call("alice", "DELETE", f"/jobs/{t1}")
    assert answer.status_code == 200
    assert answer.json()["status"] == "terminating"


def test_a_users_job_naming_another_namespace_is_refused_and_their_own_is_taken(
    world: ClusterApi,
) -> None:
    bob = world.user("bob")
    spec = training("t2").replace("  name: t2", f"  name: t2\n  namespace: {bob}")
    refused = world.call("alice", "POST", "/jobs", json={"yamlContent": spec})
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == "Forbidden"
    assert refused.json()["field"] == "job.namespace"
    assert f"acts only in namespace {world.user('alice')}, not {bob}" in refused.json()["message"]
    assert world.cluster.find("Job", "t2", bob) is None
    assert world.cluster.find("Job", "t2", world.user("alice")) is None
    assert world.call("bob", "GET", "/jobs").json() == {"total": 0, "items": []}
    own = spec.replace(f"namespace: {bob}", f"namespace: {world.user('alice')}")
    made = world.call("alice", "POST", "/jobs", json={"yamlContent": own})
    assert made.status_code == 201, made.text
    assert made.json()["jobId"] == world.job_id("t2", owner="alice")


def test_auth_check_answers_with_the_rules_the_routes_apply(world: ClusterApi) -> None:
    def check(who: str, **body: str) -> dict[str, Any]:
        answer: dict[str, Any] = world.call(who, "POST", "/auth/check", json=body).json()
        return answer

    assert check("alice", resource="jobs", action="create")["allowed"] is True
    bob = world.user("bob")
    assert check("alice", resource="jobs", action="get", user=bob)["allowed"] is False
    assert check("alice", resource="pools", action="create") == {
        "allowed": False,
        "message": "create pools: admins only",
        "user": world.user("alice"),
        "role": "user",
    }
    assert check("alice", resource="pools", action="get")["allowed"] is True
    assert check("admin", resource="pools", action="create", pool="training")["allowed"] is True


LONG = "a-secret-of-20-chars"
DIGEST_FORM = "sha256:" + hashlib.sha256(LONG.encode()).hexdigest()
UPPER_FORM = "sha256:" + hashlib.sha256(LONG.encode()).hexdigest().upper()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("tokens: []", "give `tokens:` as a list"),
        ("tokens: [{user: a, role: user}]", "tokens[0].token: give the secret"),
        ("tokens: [{token: x, user: A_B}]", "tokens[0].user: a user name is a namespace name"),
        ("tokens: [{token: x, user: a, role: root}]", "tokens[0].role: 'root' is not one of"),
        ("tokens: [{token: 'sha256:abc', user: a}]", "sha256: takes 64 hex digits"),
        ("tokens: [", "cannot read the token file"),
        (
            "tokens: [{token: short-secret, user: a}]",
            "1:18: tokens[0].token: a token has at least 16",
        ),
        (
            f"tokens: [{{token: {LONG}, user: bob}},\n  {{token: {LONG}, user: eve, role: admin}}]",
            "2:11: tokens[1].token: the same token as tokens[0]",
        ),
        (
            f"tokens: [{{token: {LONG}, user: bob}},\n  {{token: '{DIGEST_FORM}', user: eve}}]",
            "tokens[1].token: the same token as tokens[0] (also when one is the sha256: of",
        ),
        (
            f"tokens: [{{token: '{UPPER_FORM}', user: bob}}, {{token: {LONG}, user: e}}]",
            "tokens[1].token: the same token as tokens[0]",
        ),
        (
            f"tokens: [{{token: {LONG}, user: default}}]",
            "tokens[0].user: default is a system namespace",
        ),
        (f"tokens: [{{token: {LONG}, user: kube-public}}]", "kube-public is a system namespace"),
        (
            f"tokens: [{{token: {LONG}, user: gpuctl-system}}]",
            "gpuctl-system is a system namespace",
        ),
        (f"tokens: [{{token: {LONG}, user: gpu-orchestrator-system}}]", "is a system namespace"),
        (f"tokens: [{{token: {LONG}, user: {'a' * 64}}}]", "a user name is a namespace name"),
        (
            f'tokens: [{{token: {LONG}, user: "alice\\n"}}]',
            "1:46: tokens[0].user: a user name is a namespace name (a DNS-1123 label, e.g. "
            "alice), not 'alice\\n'",
        ),
        (
            f"tokens: [{{token: {LONG}, user: bob}},\n"
            f"  {{token: {LONG}2, user: bob, role: admin}}]",
            "2:40: tokens[1].user: bob is listed already (tokens[0], line 1, role user): a user "
            "has one entry, so one token and one role",
        ),
        (
            f"tokens:\n- {{token: {LONG}, user: bob}}\n- {{token: {LONG}2, user: bob}}",
            "3:40: tokens[1].user: bob is listed already (tokens[0], line 2, role user)",
        ),
    ],
)
def test_a_bad_token_file_is_one_clear_error(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text(text)
    with pytest.raises(GpuctlError) as refused:
        Tokens.load(str(path))
    assert problem in str(refused.value)
    assert "\n" not in str(refused.value) and LONG not in str(refused.value)


def test_a_malformed_token_file_names_the_line_and_column_and_never_its_secrets(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text(f'tokens:\n  - {{token: "{LONG}", user: bob\n  - {{token: "{LONG}x"}}\n')
    with pytest.raises(GpuctlError) as refused:
        Tokens.load(str(path))
    message = str(refused.value)
    assert message.startswith(f"{path}:3:5: cannot read the token file: invalid YAML: ")
    assert "\n" not in message and LONG not in message


def test_a_token_and_its_digest_are_one_user(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text(f"tokens: [{{token: {LONG}, user: bob}}, {{token: {LONG}2, user: eve}}]")
    tokens = Tokens.load(str(path))
    assert tokens.who(LONG) == Principal("bob", "user")
    assert tokens.who(LONG + "2") == Principal("eve", "user")


def test_a_namespace_filter_is_a_users_own_or_an_admins_choice(world: ClusterApi) -> None:
    alice, bob, t1 = world.user("alice"), world.user("bob"), world.job_id("t1", owner="alice")
    own = world.call("alice", "GET", f"/jobs?namespace={alice}")
    assert [item["jobId"] for item in own.json()["items"]] == [t1]
    refused = world.call("bob", "GET", f"/jobs?namespace={alice}")
    assert refused.status_code == 403
    assert refused.json() == {
        "error": "Forbidden",
        "message": f"{bob} acts only in namespace {bob}",
    }
    chosen = world.call("admin", "GET", f"/jobs?namespace={alice}")
    assert [item["jobId"] for item in chosen.json()["items"]] == [t1]
    assert world.call("admin", "GET", f"/jobs?namespace={bob}").json() == {"total": 0, "items": []}


class CountingAuthenticator:
    """The token file behind another authenticator (as a TokenReview one is: not `Tokens`),
    counting the tokens it is asked about."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens
        self.asked = 0

    def who(self, secret: str) -> Principal | None:
        self.asked += 1
        return self.tokens.who(secret)


def test_a_request_authenticates_its_caller_once(env: Env, token_file: Path) -> None:
    """Each route's dependencies (the caller, the cluster as the caller, the reads) share one
    authentication: a TokenReview is a request to the cluster. (On the sandbox only: it counts
    the server's own calls, which are the same whatever the cluster.)"""
    auth = CountingAuthenticator(Tokens.load(str(token_file)))
    with TestClient(create_app(env.cluster, auth), raise_server_exceptions=False) as client:
        for path in ("/api/v1/jobs", "/api/v1/jobs/default.nothing-here", "/api/v1/nodes"):
            before = auth.asked
            answer = client.get(path, headers={"Authorization": f"Bearer {SECRETS['bob']}"})
            assert answer.status_code in (200, 404), answer.text
            assert auth.asked - before == 1, path
        answer = client.get("/api/v1/jobs", headers={"Authorization": "Bearer forged"})
        assert answer.status_code == 401
