"""Quotas through HTTP on the `cluster` fixture (the sandbox and the local real control plane):
create, read (a user their own, an admin every user's), delete; a bad spec writes nothing."""

from __future__ import annotations

from typing import Any

from tests.support.sandbox import wait_for

from .conftest import ClusterApi, inference, quota


def _team(api: ClusterApi) -> str:
    return quota(api.user("alice"), api.user("bob"))


def _users(answer: Any, api: ClusterApi) -> list[str]:
    """The user names of a quota list, of the test's users: an admin's list is the whole
    cluster's, which on the shared control plane holds other tests' quotas too."""
    assert answer.status_code == 200, answer.text
    ours = set(api.users.values())
    return [q["userName"] for q in answer.json()["items"] if q["userName"] in ours]


def test_quotas_create_read_and_delete(cluster_api: ClusterApi) -> None:
    api, alice, bob = cluster_api, cluster_api.user("alice"), cluster_api.user("bob")
    made = api.call("admin", "POST", "/quotas", json={"yamlContent": _team(api)})
    assert made.status_code == 201, made.text
    assert made.json()["users"] == [alice, bob]
    job = inference("q1", replicas=1)
    assert api.call("alice", "POST", "/jobs", json={"yamlContent": job}).status_code == 201

    def used() -> dict[str, Any]:  # once the job's pod counts ({} before)
        found: dict[str, Any] = api.call("alice", "GET", f"/quotas/{alice}").json()["items"][0]
        return found if found["gpu"]["used"] == "1" else {}

    usage = wait_for(used, timeout=60, what="quota usage")
    assert usage["gpu"] == {"used": "1", "hard": "4", "percent": 25}
    assert usage["memory"] == {"used": "1Gi", "hard": "20Gi", "percent": 5}
    mine = api.call("alice", "GET", "/quotas")
    assert [q["userName"] for q in mine.json()["items"]] == [alice]  # hers alone
    assert _users(api.call("admin", "GET", "/quotas"), api) == [alice, bob]
    gone = api.call("admin", "DELETE", f"/quotas/{bob}")
    assert gone.status_code == 200 and "resourcequota/team deleted" in gone.json()["message"]
    missing = api.call("admin", "GET", f"/quotas/{bob}")
    assert missing.status_code == 404 and missing.json()["error"] == "QuotaNotFound"
    assert api.cluster.find("Namespace", bob) is not None  # the namespace stays


def test_quota_spec_errors_are_400(cluster_api: ClusterApi) -> None:
    api = cluster_api
    bad = _team(api).replace("gpu: 4", "gpu: -1", 1)
    answer = api.call("admin", "POST", "/quotas", json={"yamlContent": bad})
    assert answer.status_code == 400 and answer.json()["error"] == "InvalidYAML"
    assert answer.json()["field"].startswith(f"users.{api.user('alice')}")
    assert api.cluster.find("Namespace", api.user("alice")) is None
