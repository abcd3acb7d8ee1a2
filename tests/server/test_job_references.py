"""A job in a REST path: `<namespace>.<name>` (its id), `<namespace>/<name>` with the slash
escaped (`%2F`), or `<name>` alone for a job in the caller's own namespace; every answer gives
the id as `<namespace>.<name>`."""

from __future__ import annotations

import time

import pytest

from tests.support.sandbox import wait_for

from .conftest import QUOTA, Api, inference


@pytest.fixture
def alices(api: Api) -> Api:
    """alice's job `web` (two pods, running) in her namespace, alice."""
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    made = api.call("alice", "POST", "/jobs", json={"yamlContent": inference("web")})
    assert made.status_code == 201, made.text
    wait_for(
        lambda: api.call("alice", "GET", "/jobs/alice.web").json()["status"] == "running",
        what="web running",
    )
    time.sleep(0.3)  # let each pod write a few lines
    return api


@pytest.mark.parametrize("reference", ["alice.web", "alice%2Fweb", "alice%2fweb", "web"])
def test_every_form_reads_the_same_job(alices: Api, reference: str) -> None:
    api = alices
    detail = api.call("alice", "GET", f"/jobs/{reference}")
    assert detail.status_code == 200, detail.text
    assert (detail.json()["jobId"], detail.json()["namespace"]) == ("alice.web", "alice")
    manifests = api.call("alice", "GET", f"/jobs/{reference}/manifests")
    assert manifests.status_code == 200, manifests.text
    assert manifests.json()["jobId"] == "alice.web"
    logs = api.call("alice", "GET", f"/jobs/{reference}/logs?tail=1")
    assert logs.status_code == 200, logs.text
    assert len(logs.json()["logs"]) == 2
    assert api.call("alice", "GET", f"/jobs/{reference}/metrics").status_code == 200


def test_a_bare_name_is_in_the_callers_namespace(alices: Api) -> None:
    api = alices
    # bob's own namespace has no job `web`, and alice's is not his to see
    assert api.call("bob", "GET", "/jobs/web").json() == {
        "error": "JobNotFound",
        "message": "no job named 'web' in namespace bob",
    }
    assert api.call("bob", "GET", "/jobs/alice%2Fweb").json() == {
        "error": "JobNotFound",
        "message": "no job 'alice.web'",
    }
    # an admin's own namespace is the server's (default)
    assert api.call("admin", "GET", "/jobs/web").status_code == 404
    assert api.call("admin", "GET", "/jobs/alice%2Fweb").status_code == 200


def test_escaped_slashes_never_reach_another_route(alices: Api) -> None:
    api = alices
    for path in ("/jobs/alice%2Fweb%2Flogs", "/jobs/a%2Fb%2Fc", "/jobs/alice%2F"):
        answer = api.call("alice", "GET", path)
        assert answer.status_code == 404, path
        assert answer.json()["error"] == "JobNotFound", path


def test_delete_by_any_form_answers_the_id(alices: Api) -> None:
    api = alices
    deleted = api.call("alice", "DELETE", "/jobs/alice%2Fweb?force=true")
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["jobId"] == "alice.web"
    assert "deployment.apps/web deleted" in deleted.json()["message"]
    wait_for(lambda: not api.env.objects("Deployment", "alice"), what="web gone")
    assert api.call("alice", "DELETE", "/jobs/web").json() == {
        "error": "JobNotFound",
        "message": "no job named 'web' in namespace alice",
    }
