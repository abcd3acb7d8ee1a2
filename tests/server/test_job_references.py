"""A job in a REST path: `<namespace>.<name>` (its id), `<namespace>/<name>` with the slash
escaped (`%2F`), or `<name>` alone for a job in the caller's own namespace; every answer gives
the id as `<namespace>.<name>`. On the `cluster` fixture (the sandbox and the local real
control plane); alice's name (so namespace) is the test's own, `alice` in a reference stands
for it."""

from __future__ import annotations

import pytest

from tests.support.sandbox import wait_for

from .conftest import ClusterApi, inference, quota


@pytest.fixture
def alices(cluster_api: ClusterApi) -> ClusterApi:
    """alice's job `web` (two pods, running, each with a line of log) in her namespace."""
    api = cluster_api
    team = quota(api.user("alice"), api.user("bob"))
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": team}).status_code == 201
    made = api.call("alice", "POST", "/jobs", json={"yamlContent": inference("web")})
    assert made.status_code == 201, made.text
    web = api.job_id("web", owner="alice")
    wait_for(
        lambda: api.call("alice", "GET", f"/jobs/{web}").json()["status"] == "running",
        timeout=60,
        what="web running",
    )
    wait_for(
        lambda: len(api.call("alice", "GET", f"/jobs/{web}/logs?tail=1").json()["logs"]) == 2,
        what="a line of each pod",
    )
    return api


def _named(api: ClusterApi, reference: str) -> str:
    """`reference` with `alice` replaced by her name, the test's own."""
    return reference.replace("alice", api.user("alice"))


@pytest.mark.parametrize("reference", ["alice.web", "alice%2Fweb", "alice%2fweb", "web"])
def test_every_form_reads_the_same_job(alices: ClusterApi, reference: str) -> None:
    api, reference = alices, _named(alices, reference)
    web, alice = api.job_id("web", owner="alice"), api.user("alice")
    detail = api.call("alice", "GET", f"/jobs/{reference}")
    assert detail.status_code == 200, detail.text
    assert (detail.json()["jobId"], detail.json()["namespace"]) == (web, alice)
    manifests = api.call("alice", "GET", f"/jobs/{reference}/manifests")
    assert manifests.status_code == 200, manifests.text
    assert manifests.json()["jobId"] == web
    logs = api.call("alice", "GET", f"/jobs/{reference}/logs?tail=1")
    assert logs.status_code == 200, logs.text
    assert len(logs.json()["logs"]) == 2
    assert api.call("alice", "GET", f"/jobs/{reference}/metrics").status_code == 200


def test_a_bare_name_is_in_the_callers_namespace(alices: ClusterApi) -> None:
    api, alice, bob = alices, alices.user("alice"), alices.user("bob")
    # bob's own namespace has no job `web`, and alice's is not his to see
    assert api.call("bob", "GET", "/jobs/web").json() == {
        "error": "JobNotFound",
        "message": f"no job named 'web' in namespace {bob}",
    }
    assert api.call("bob", "GET", f"/jobs/{alice}%2Fweb").json() == {
        "error": "JobNotFound",
        "message": f"no job '{alice}.web'",
    }
    # an admin's own namespace is the server's (its kubeconfig's: the test's)
    assert api.call("admin", "GET", "/jobs/web").status_code == 404
    assert api.call("admin", "GET", f"/jobs/{alice}%2Fweb").status_code == 200


def test_escaped_slashes_never_reach_another_route(alices: ClusterApi) -> None:
    api = alices
    for template in ("/jobs/alice%2Fweb%2Flogs", "/jobs/a%2Fb%2Fc", "/jobs/alice%2F"):
        path = _named(api, template)
        answer = api.call("alice", "GET", path)
        assert answer.status_code == 404, path
        assert answer.json()["error"] == "JobNotFound", path


def test_delete_by_any_form_answers_the_id(alices: ClusterApi) -> None:
    api, alice = alices, alices.user("alice")
    deleted = api.call("alice", "DELETE", f"/jobs/{alice}%2Fweb?force=true")
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["jobId"] == api.job_id("web", owner="alice")
    assert "deployment.apps/web deleted" in deleted.json()["message"]
    wait_for(lambda: not api.objects("Deployment", alice), timeout=60, what="web gone")
    assert api.call("alice", "DELETE", "/jobs/web").json() == {
        "error": "JobNotFound",
        "message": f"no job named 'web' in namespace {alice}",
    }
