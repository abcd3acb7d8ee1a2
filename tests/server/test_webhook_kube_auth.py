"""Webhooks under `serve --auth kubernetes` on the REAL control plane (RBAC on), the server
running as a service account bound to exactly the RBAC the REST API guide documents for it.

A service account `runner` (a Role for jobs in its own namespace, nothing in gpuctl-system)
subscribes and gets signed events (verified with the `standardwebhooks` package) for its own
namespace's jobs only; it cannot subscribe to another namespace, nor see, test or delete
another caller's subscription (404). The kubeconfig's admin, whom RBAC lets list jobs in every
namespace, is the webhooks' admin: a subscription without a namespace covers every namespace,
and it sees every caller's. The records, the Lease and the deliveries are the server's own
work: they succeed with the server's identity, which the runner's could not do."""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from gpuctl import constants as c
from gpuctl.cluster.client import Cluster, Forbidden
from gpuctl.server.app import create_app
from gpuctl.server.kubeauth import TokenReviews
from gpuctl.server.webhooks.worker import Settings
from tests.support.sandbox import Cluster as TestCluster
from tests.support.sandbox import wait_for

from .conftest import inference
from .test_kube_auth import ROLE, KubeApi, _admin_token, local  # noqa: F401  (the fixture)
from .webhook_receiver import Receiver, receiving

pytestmark = pytest.mark.kube

DOCS = Path(__file__).resolve().parents[2] / "docs" / "guides" / "rest-api.md"
ALL_EVENTS = ["job.created", "job.running", "job.succeeded", "job.failed", "job.deleted"]
SETTINGS = Settings(allowed=(ipaddress.ip_network("127.0.0.0/8"),), retry_base=0.5, tick=0.5)
DELIVERY_WAIT = 120.0  # another test's server may hold the Lease (15 s) and retry first


def documented_server_rbac() -> list[dict[str, Any]]:
    """The ClusterRole and Role the REST API guide gives the server's own identity."""
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(), re.S)
    found = [b for b in blocks if "name: gpuctl-serve" in b]
    assert len(found) == 1, "the guide documents the server's RBAC in one yaml block"
    return [doc for doc in yaml.safe_load_all(found[0]) if doc]


def _server_identity(local: TestCluster, tmp_path: Path, stack: ExitStack) -> Path:  # noqa: F811
    """A kubeconfig for a service account `gpuctl-serve` bound to the documented RBAC
    (renamed for this test; removed afterwards); its path."""
    name = f"gpuctl-serve-{local.namespace}"
    local.kubectl("create", "serviceaccount", "gpuctl-serve")
    local.kubectl("create", "namespace", c.SYSTEM_NAMESPACE, namespaced=False, check=False)
    for role in documented_server_rbac():
        role["metadata"]["name"] = name
        local.kubectl("apply", "-f", "-", input=json.dumps(role), namespaced=False)
        stack.callback(
            local.kubectl,
            "delete",
            *_where(role),
            role["kind"],
            name,
            namespaced=False,
            check=False,
        )
        binding = "clusterrolebinding" if role["kind"] == "ClusterRole" else "rolebinding"
        flag = "--clusterrole" if role["kind"] == "ClusterRole" else "--role"
        account = f"--serviceaccount={local.namespace}:gpuctl-serve"
        local.kubectl(
            *_where(role), "create", binding, name, f"{flag}={name}", account, namespaced=False
        )
        stack.callback(
            local.kubectl, *_where(role), "delete", binding, name, namespaced=False, check=False
        )
    token = local.kubectl("create", "token", "gpuctl-serve", "--duration=20m").stdout.strip()
    config = yaml.safe_load(local.kubeconfig.read_text())
    config["users"][0]["user"] = {"token": token}
    path = tmp_path / "serve-kubeconfig.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _where(role: dict[str, Any]) -> tuple[str, ...]:
    namespace = role["metadata"].get("namespace")
    return ("-n", namespace) if namespace else ()


@pytest.fixture
def webhook_api(local: TestCluster, tmp_path: Path) -> Iterator[KubeApi]:  # noqa: F811
    namespace = local.namespace
    local.kubectl("create", "serviceaccount", "runner")
    local.kubectl("apply", "-f", "-", input=json.dumps(ROLE))
    local.kubectl(
        "create", "rolebinding", "runner-jobs", "--role=gpuctl-jobs",
        f"--serviceaccount={namespace}:runner",
    )  # fmt: skip
    runner = local.kubectl("create", "token", "runner", "--duration=20m").stdout.strip()
    with ExitStack() as stack:
        server = Cluster.connect(str(_server_identity(local, tmp_path, stack)))
        reviews = TokenReviews(server)
        app = create_app(server, reviews, webhook_settings=SETTINGS, deliver=True)
        tokens = {"runner": runner, "admin": _admin_token(local)}
        with TestClient(app, raise_server_exceptions=False) as client:
            yield KubeApi(client, reviews, namespace, tokens, local)


def _subscribe(api: KubeApi, who: str, url: str, **more: Any) -> dict[str, Any]:
    made = api.call(who, "POST", "/webhooks", json={"url": url, "events": ALL_EVENTS, **more})
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def _events_of(receiver: Receiver, secret: str, job_id: str) -> list[str]:
    return [e["type"] for e in receiver.verified(secret) if e["data"].get("jobId") == job_id]


def test_webhooks_under_kubernetes_auth_follow_rbac_and_are_the_servers_work(
    webhook_api: KubeApi,
) -> None:
    api, namespace = webhook_api, webhook_api.namespace
    runner_user = f"system:serviceaccount:{namespace}:runner"
    other = f"{namespace}-other"
    api.local.kubectl("create", "namespace", other, namespaced=False)
    with ExitStack() as stack:
        stack.callback(
            api.local.kubectl, "delete", "namespace", other, "--wait=false", namespaced=False
        )
        runners = stack.enter_context(receiving())
        admins = stack.enter_context(receiving())
        mine = _subscribe(api, "runner", runners.url)
        stack.callback(api.call, "admin", "DELETE", f"/webhooks/{mine['id']}")
        assert (mine["namespace"], mine["owner"]) == (namespace, runner_user)
        everything = _subscribe(api, "admin", admins.url)
        stack.callback(api.call, "admin", "DELETE", f"/webhooks/{everything['id']}")
        assert everything["namespace"] is None  # RBAC lets the admin list jobs everywhere
        _who_sees_what(api, mine["id"], everything["id"])
        # the subscription lives in gpuctl-system, where the runner may read nothing
        admin = Cluster.connect(str(api.local.kubeconfig))
        with pytest.raises(Forbidden):
            admin.impersonating(runner_user, ["system:serviceaccounts"]).list(
                "ConfigMap", c.SYSTEM_NAMESPACE
            )
        assert admin.find("ConfigMap", c.WEBHOOK_PREFIX + mine["id"], c.SYSTEM_NAMESPACE)

        _jobs_and_their_events(api, other, (runners, mine), (admins, everything))


def _who_sees_what(api: KubeApi, runners: str, admins: str) -> None:
    listed = api.call("runner", "GET", "/webhooks").json()
    assert [item["id"] for item in listed["items"]] == [runners]
    for method, suffix in (("GET", ""), ("DELETE", ""), ("POST", "/test"), ("POST", "/rotate")):
        hidden = api.call("runner", method, f"/webhooks/{admins}{suffix}")
        assert hidden.status_code == 404, hidden.text
        assert hidden.json()["error"] == "WebhookNotFound"
    seen = {item["id"] for item in api.call("admin", "GET", "/webhooks").json()["items"]}
    assert {runners, admins} <= seen
    assert api.call("admin", "GET", f"/webhooks/{runners}").status_code == 200
    there = {"url": "https://hooks.example.com/x", "events": ["job.failed"], "namespace": "default"}
    elsewhere = api.call("runner", "POST", "/webhooks", json=there)
    assert elsewhere.status_code == 403, elsewhere.text
    assert elsewhere.json()["error"] == "Forbidden"


def _jobs_and_their_events(
    api: KubeApi,
    other: str,
    runner: tuple[Receiver, dict[str, Any]],
    admin: tuple[Receiver, dict[str, Any]],
) -> None:
    (runners, mine), (admins, everything) = runner, admin
    namespace = api.namespace
    made = api.call("runner", "POST", "/jobs", json={"yamlContent": inference("web", 1)})
    assert made.status_code == 201, made.text
    spec = inference("theirs", 1).replace("  name: theirs", f"  name: theirs\n  namespace: {other}")
    theirs = api.call("admin", "POST", "/jobs", json={"yamlContent": spec})
    assert theirs.status_code == 201, theirs.text
    web, their_id = f"{namespace}.web", f"{other}.theirs"
    wait_for(
        lambda: _events_of(runners, mine["secret"], web) == ["job.created", "job.running"],
        timeout=DELIVERY_WAIT,
        interval=0.5,
        what="job.created and job.running of the runner's job, to the runner",
    )
    wait_for(
        lambda: "job.created" in _events_of(admins, everything["secret"], their_id),
        timeout=DELIVERY_WAIT,
        interval=0.5,
        what="job.created of the other namespace's job, to the admin",
    )
    gone = api.call("runner", "DELETE", f"/jobs/{web}")
    assert gone.status_code == 200, gone.text
    wait_for(
        lambda: _events_of(runners, mine["secret"], web)[-1:] == ["job.deleted"],
        timeout=DELIVERY_WAIT,
        interval=0.5,
        what="job.deleted to the runner",
    )
    events = runners.verified(mine["secret"])  # every request verifies with the secret
    assert {e["data"]["namespace"] for e in events} == {namespace}
    assert {e["data"]["jobId"] for e in events} == {web}
    assert "job.created" in _events_of(admins, everything["secret"], web)
    detail = api.call("runner", "GET", f"/webhooks/{mine['id']}").json()
    assert {d["outcome"] for d in detail["deliveries"]} == {"delivered"}
