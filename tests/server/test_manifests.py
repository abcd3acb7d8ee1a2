"""GET /jobs/{jobId}/manifests: what a job's spec renders to, rendered again from the spec as
submitted, in the job's namespace; another user's job is 404."""

from __future__ import annotations

import pytest
import yaml

from .conftest import QUOTA, Api, inference, training


@pytest.fixture(autouse=True)
def _namespaces(api: Api) -> None:
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201


def test_a_training_job_renders_to_its_job_in_its_namespace(api: Api) -> None:
    made = api.call("alice", "POST", "/jobs", json={"yamlContent": training("sft", gpu=2)})
    assert made.status_code == 201, made.text
    answer = api.call("alice", "GET", "/jobs/alice.sft/manifests")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["jobId"] == "alice.sft" and body["message"] == ""
    kinds = [(m["kind"], m["name"], m["namespace"]) for m in body["manifests"]]
    assert ("Job", "sft", "alice") in kinds
    job = next(m for m in body["manifests"] if m["kind"] == "Job")
    rendered = yaml.safe_load(job["yaml"])
    assert rendered["kind"] == "Job" and rendered["metadata"]["namespace"] == "alice"
    live = api.env.cluster.get("Job", "sft", "alice")
    container = rendered["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == live["spec"]["template"]["spec"]["containers"][0]["image"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] in (2, "2")


def test_a_service_renders_to_its_deployment_and_service(api: Api) -> None:
    assert (
        api.call("bob", "POST", "/jobs", json={"yamlContent": inference("web")}).status_code == 201
    )
    body = api.call("bob", "GET", "/jobs/bob.web/manifests").json()
    kinds = {m["kind"] for m in body["manifests"]}
    assert {"Deployment", "Service"} <= kinds


def test_another_users_job_is_not_found_and_a_token_is_needed(api: Api) -> None:
    assert (
        api.call("alice", "POST", "/jobs", json={"yamlContent": training("mine")}).status_code
        == 201
    )
    other = api.call("bob", "GET", "/jobs/alice.mine/manifests")
    assert other.status_code == 404 and other.json()["error"] == "JobNotFound"
    assert api.call(None, "GET", "/jobs/alice.mine/manifests").status_code == 401
    assert api.call("admin", "GET", "/jobs/alice.mine/manifests").status_code == 200
    assert api.call("alice", "GET", "/jobs/alice.nothing/manifests").status_code == 404
