"""`serve --auth kubernetes` on the REAL control plane (RBAC on): Kubernetes bearer tokens,
reviewed by the cluster (TokenReview), every request made as the caller (impersonation).

The sandbox serves no TokenReview, SelfSubjectAccessReview nor impersonation, so these run on
the local control plane of tests/kube only (skipped, with the reason, where it is not built).

A service account `runner` may work with jobs in its own namespace only (a Role); the
kubeconfig's `admin` (system:masters) may do anything."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gpuctl.cluster.client import Cluster, Forbidden
from gpuctl.errors import GpuctlError
from gpuctl.server.app import create_app
from gpuctl.server.kubeauth import TokenReviews, home_of
from tests.kube import controlplane, session
from tests.support.sandbox import Cluster as TestCluster
from tests.support.sandbox import wait_for

from .conftest import inference, training

pytestmark = pytest.mark.kube

ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "Role",
    "metadata": {"name": "gpuctl-jobs"},
    "rules": [
        {
            "apiGroups": ["", "batch", "apps", "autoscaling", "policy"],
            "resources": [
                "jobs",
                "deployments",
                "statefulsets",
                "horizontalpodautoscalers",
                "poddisruptionbudgets",
                "services",
                "configmaps",
                "pods",
                "pods/log",
                "events",
            ],
            "verbs": ["get", "list", "watch", "create", "delete"],
        }
    ],
}


@dataclass
class KubeApi:
    client: TestClient
    reviews: TokenReviews
    namespace: str  # the service account's
    tokens: dict[str, str]  # "runner", "admin"
    local: TestCluster

    def call(self, who: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens.get(who, who)}"} if who else {}
        answer: httpx.Response = self.client.request(
            method, "/api/v1" + path, headers=headers, **kwargs
        )
        return answer


def _admin_token(local: TestCluster) -> str:
    config = yaml.safe_load(local.kubeconfig.read_text())
    token: str = config["users"][0]["user"]["token"]
    return token


@pytest.fixture
def local(tmp_path: Path) -> Iterator[TestCluster]:
    """The session's local control plane (tests/kube), with a namespace for the test."""
    reason = controlplane.unavailable_reason()
    if reason:
        pytest.skip(reason)
    with session.local_cluster(tmp_path) as cluster:
        yield cluster


@pytest.fixture
def kube_api(local: TestCluster) -> Iterator[KubeApi]:
    namespace = local.namespace
    local.kubectl("create", "serviceaccount", "runner")
    local.kubectl("apply", "-f", "-", input=json.dumps(ROLE))
    local.kubectl(
        "create",
        "rolebinding",
        "runner-jobs",
        "--role=gpuctl-jobs",
        f"--serviceaccount={namespace}:runner",
    )
    # the TokenRequest API (serviceaccounts/runner/token), as `kubectl create token` calls it
    runner = local.kubectl("create", "token", "runner", "--duration=10m").stdout.strip()
    cluster = Cluster.connect(str(local.kubeconfig))
    reviews = TokenReviews(cluster)
    tokens = {"runner": runner, "admin": _admin_token(local)}
    with TestClient(create_app(cluster, reviews), raise_server_exceptions=False) as client:
        yield KubeApi(client, reviews, namespace, tokens, local)


def test_no_token_or_a_bogus_one_is_401(kube_api: KubeApi) -> None:
    for who in (None, "not-a-kubernetes-token"):
        answer = kube_api.call(who, "GET", "/jobs")
        assert answer.status_code == 401, answer.text
        assert answer.headers["www-authenticate"] == "Bearer"
        assert answer.json()["error"] == "Unauthorized"


def test_rbac_decides_what_a_service_account_may_do(kube_api: KubeApi) -> None:
    namespace = kube_api.namespace
    made = kube_api.call("runner", "POST", "/jobs", json={"yamlContent": training("sa-job")})
    assert made.status_code == 201, made.text
    assert made.json()["jobId"] == f"{namespace}.sa-job"  # its own namespace by default
    # the service account may read neither its namespace (cluster-scoped) nor nodes nor
    # PriorityClasses: each is said, and the job is made all the same
    assert made.json()["warnings"] == [
        f"Pod Security not checked: you may not read namespace {namespace}",
        "placement not checked: you may not read the cluster's nodes",
        "job/sa-job: its pods run without priorityClassName gpuctl-medium (you may not read "
        "PriorityClasses, so whether it exists is unknown); its priority takes effect once the "
        "classes are installed: an administrator installs them with "
        "`gpuctl priority-classes install`",
    ]
    mine = kube_api.call("runner", "GET", "/jobs")
    assert mine.status_code == 200, mine.text
    assert [item["jobId"] for item in mine.json()["items"]] == [f"{namespace}.sa-job"]
    named = kube_api.call("runner", "GET", f"/jobs?namespace={namespace}")
    assert named.status_code == 200
    assert named.json()["total"] == 1
    detail = kube_api.call("runner", "GET", f"/jobs/{namespace}.sa-job")
    assert detail.status_code == 200
    assert detail.json()["yamlContent"] == training("sa-job")
    elsewhere = kube_api.call("runner", "GET", "/jobs?namespace=default")
    assert elsewhere.status_code == 403
    body = elsewhere.json()
    assert body["error"] == "Forbidden"
    assert f"system:serviceaccount:{namespace}:runner" in body["message"]
    spec = training("there").replace("  name: there", "  name: there\n  namespace: default")
    refused = kube_api.call("runner", "POST", "/jobs", json={"yamlContent": spec})
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == "Forbidden"
    assert kube_api.call("runner", "GET", "/nodes").status_code == 403
    gone = kube_api.call("runner", "DELETE", f"/jobs/{namespace}.sa-job")
    assert gone.status_code == 200, gone.text


def test_an_admin_sees_every_namespace(kube_api: KubeApi) -> None:
    namespace = kube_api.namespace
    made = kube_api.call("runner", "POST", "/jobs", json={"yamlContent": training("seen")})
    assert made.status_code == 201, made.text
    everything = kube_api.call("admin", "GET", "/jobs")
    assert everything.status_code == 200
    assert f"{namespace}.seen" in [item["jobId"] for item in everything.json()["items"]]
    assert kube_api.call("admin", "GET", "/nodes").status_code == 200
    detail = kube_api.call("admin", "GET", f"/jobs/{namespace}.seen")
    assert detail.status_code == 200
    assert detail.json()["name"] == "seen"


def test_auth_check_asks_the_cluster(kube_api: KubeApi) -> None:
    def check(who: str, **body: str) -> dict[str, Any]:
        answer = kube_api.call(who, "POST", "/auth/check", json=body)
        assert answer.status_code == 200, answer.text
        decided: dict[str, Any] = answer.json()
        return decided

    sa = f"system:serviceaccount:{kube_api.namespace}:runner"
    create = check("runner", resource="jobs", action="create")
    assert create["allowed"] is True
    assert create["user"] == sa and create["role"] == "kubernetes"
    assert create["message"].startswith(
        f"RBAC allows {sa} to create jobs in namespace {kube_api.namespace}"
    )
    other = check("runner", resource="jobs", action="get", user="default")
    assert other["allowed"] is False
    assert other["message"].startswith(f"RBAC does not allow {sa} to get jobs in namespace default")
    assert check("runner", resource="nodes", action="get")["allowed"] is False
    assert check("admin", resource="labels", action="create")["allowed"] is True


def test_reviews_are_cached_by_the_tokens_digest(kube_api: KubeApi) -> None:
    before = kube_api.reviews.reviews
    for _ in range(3):
        assert kube_api.call("runner", "GET", "/jobs").status_code == 200
    assert kube_api.reviews.reviews == before + 1
    for _ in range(2):
        assert kube_api.call(None, "GET", "/jobs").status_code == 401
        assert kube_api.call("bogus", "GET", "/jobs").status_code == 401
    assert kube_api.reviews.reviews == before + 2  # a refused token too is asked about once
    cached = kube_api.reviews._cache
    assert kube_api.tokens["runner"].encode() not in b"".join(cached)


def test_home_namespace_of_a_user() -> None:
    assert home_of("system:serviceaccount:team-a:runner") == "team-a"
    assert home_of("alice") == "alice"
    assert home_of("alice@example.com") is None
    assert home_of("system:admin") is None


def test_each_group_is_its_own_impersonation_header(local: TestCluster) -> None:
    """RBAC bound to the second of two groups: it counts only when each group is sent as its
    own Impersonate-Group header (a comma-joined one would name one group "a,b")."""
    local.kubectl("apply", "-f", "-", input=json.dumps(ROLE))
    local.kubectl("create", "rolebinding", "team", "--role=gpuctl-jobs", "--group=team-x")
    cluster = Cluster.connect(str(local.kubeconfig))
    member = cluster.impersonating("carol", ["readers", "team-x"])
    assert member.list("Job", local.namespace) == []
    outsider = cluster.impersonating("carol", ["readers"])
    with pytest.raises(Forbidden, match='User "carol" cannot list resource "jobs"'):
        outsider.list("Job", local.namespace)
    with pytest.raises(GpuctlError, match="exec cannot be made on behalf of another user"):
        member.exec("any-pod", local.namespace, ["true"])


def test_a_review_is_trusted_for_a_minute_and_a_refusal_for_10_s(kube_api: KubeApi) -> None:
    now = [1000.0]
    reviews = TokenReviews(Cluster.connect(str(kube_api.local.kubeconfig)), clock=lambda: now[0])
    first = reviews.who(kube_api.tokens["runner"])
    assert first is not None and first.home == kube_api.namespace
    now[0] += 59
    assert reviews.who(kube_api.tokens["runner"]) == first
    assert reviews.reviews == 1
    now[0] += 2
    assert reviews.who(kube_api.tokens["runner"]) == first
    assert reviews.reviews == 2
    assert reviews.who("bogus") is None
    now[0] += 9
    assert reviews.who("bogus") is None
    assert reviews.reviews == 3  # refused, and trusted to stay refused for 10 s
    now[0] += 2
    assert reviews.who("bogus") is None
    assert reviews.reviews == 4


def test_logs_over_a_websocket_are_read_as_the_caller(kube_api: KubeApi) -> None:
    namespace = kube_api.namespace
    made = kube_api.call("runner", "POST", "/jobs", json={"yamlContent": inference("web", 1)})
    assert made.status_code == 201, made.text
    wait_for(
        lambda: (
            kube_api.call("runner", "GET", f"/jobs/{namespace}.web").json()["status"] == "running"
        ),
        timeout=60,
        what="web running",
    )
    path = f"/api/v1/jobs/{namespace}.web/logs?tail=10"
    headers = {"Authorization": f"Bearer {kube_api.tokens['runner']}"}
    with kube_api.client.websocket_connect(path, headers=headers) as socket:
        first = socket.receive_text()
    assert first.endswith("kwok plays this pod: its containers do not run")
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        kube_api.client.websocket_connect(path, headers={"Authorization": "Bearer bogus"}) as ws,
    ):
        ws.receive_text()
    assert refused.value.code == 1008
