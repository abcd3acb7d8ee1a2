"""GET /jobs/{jobId}/manifests: what a job's spec renders to, rendered again from the spec as
submitted, in the job's namespace; another user's job is 404. On the `cluster` fixture (the
sandbox and the local real control plane)."""

from __future__ import annotations

import pytest
import yaml

from .conftest import ClusterApi, inference, quota, training


@pytest.fixture
def api(cluster_api: ClusterApi) -> ClusterApi:
    """The users' namespaces made (by their quota)."""
    team = quota(cluster_api.user("alice"), cluster_api.user("bob"))
    made = cluster_api.call("admin", "POST", "/quotas", json={"yamlContent": team})
    assert made.status_code == 201, made.text
    return cluster_api


def test_a_training_job_renders_to_its_job_in_its_namespace(api: ClusterApi) -> None:
    alice, sft = api.user("alice"), api.job_id("sft", owner="alice")
    made = api.call("alice", "POST", "/jobs", json={"yamlContent": training("sft", gpu=2)})
    assert made.status_code == 201, made.text
    answer = api.call("alice", "GET", f"/jobs/{sft}/manifests")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["jobId"] == sft and body["message"] == ""
    kinds = [(m["kind"], m["name"], m["namespace"]) for m in body["manifests"]]
    assert ("Job", "sft", alice) in kinds
    job = next(m for m in body["manifests"] if m["kind"] == "Job")
    rendered = yaml.safe_load(job["yaml"])
    assert rendered["kind"] == "Job" and rendered["metadata"]["namespace"] == alice
    live = api.cluster.get("Job", "sft", alice)
    container = rendered["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == live["spec"]["template"]["spec"]["containers"][0]["image"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] in (2, "2")


def test_a_service_renders_to_its_deployment_and_service(api: ClusterApi) -> None:
    made = api.call("bob", "POST", "/jobs", json={"yamlContent": inference("web")})
    assert made.status_code == 201, made.text
    body = api.call("bob", "GET", f"/jobs/{api.job_id('web', owner='bob')}/manifests").json()
    kinds = {m["kind"] for m in body["manifests"]}
    assert {"Deployment", "Service"} <= kinds


def test_another_users_job_is_not_found_and_a_token_is_needed(api: ClusterApi) -> None:
    made = api.call("alice", "POST", "/jobs", json={"yamlContent": training("mine")})
    assert made.status_code == 201, made.text
    mine = f"/jobs/{api.job_id('mine', owner='alice')}/manifests"
    other = api.call("bob", "GET", mine)
    assert other.status_code == 404 and other.json()["error"] == "JobNotFound"
    assert api.call(None, "GET", mine).status_code == 401
    assert api.call("admin", "GET", mine).status_code == 200
    nothing = f"/jobs/{api.job_id('nothing', owner='alice')}/manifests"
    assert api.call("alice", "GET", nothing).status_code == 404
