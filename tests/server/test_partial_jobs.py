"""A half-deleted job through HTTP (its Deployment gone, its Service and PodDisruptionBudget
left, as a server killed between two deletes of `DELETE /jobs/{jobId}` leaves it): listed with
status `partial` (and found by that filter), its detail says what is left, and `DELETE` or a
new `POST /jobs` of the same name finishes the deletion. On the `cluster` fixture (the sandbox
and the local real control plane, whose garbage collector deletes the Deployment's pods)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.sandbox import wait_for

from .conftest import ClusterApi, inference

LEFT = ["poddisruptionbudget.policy/web", "service/svc-web"]


@pytest.fixture
def api(cluster_api: ClusterApi) -> ClusterApi:
    return cluster_api


def half_deleted(api: ClusterApi) -> None:
    """Job `web` created through the API, then its Deployment alone deleted (and gone)."""
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web")})
    assert made.status_code == 201, made.text
    api.cluster.delete("Deployment", "web", api.namespace, propagation="Foreground")
    wait_for(
        lambda: api.cluster.find("Deployment", "web", api.namespace) is None,
        timeout=60,
        what="the Deployment gone",
    )


def listed(api: ClusterApi, query: str = "") -> list[dict[str, Any]]:
    """An admin's list of the test's namespace (on the shared control plane, every namespace
    holds other tests' jobs)."""
    answer = api.call("admin", "GET", f"/jobs?namespace={api.namespace}{query}")
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


def test_a_half_deleted_job_is_listed_partial_with_what_is_left(api: ClusterApi) -> None:
    half_deleted(api)
    items = wait_for(
        lambda: [i for i in listed(api) if i["status"] == "partial"], what="a partial job"
    )
    assert [(i["jobId"], i["kind"], i["ready"], i["gpu"]) for i in items] == [
        (api.job_id("web"), "inference", "0/0", 0)
    ]
    assert [i["jobId"] for i in listed(api, "&status=partial")] == [api.job_id("web")]
    assert listed(api, "&status=running") == []
    detail = api.call("admin", "GET", f"/jobs/{api.job_id('web')}")
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["status"] == "partial"
    assert body["k8sResources"]["kind"] is None
    assert body["k8sResources"]["leftovers"] == LEFT
    assert body["why"].startswith("half-deleted: its workload is gone, " + ", ".join(LEFT))


def test_delete_of_a_half_deleted_job_finishes_it(api: ClusterApi) -> None:
    half_deleted(api)
    answer = api.call("admin", "DELETE", f"/jobs/{api.job_id('web')}")
    assert answer.status_code == 200, answer.text
    assert answer.json()["message"] == "; ".join(f"{ref} deleted" for ref in LEFT)
    # (a leftover being deleted is still there, and the job partial, until it is gone)
    wait_for(lambda: listed(api) == [], timeout=60, what="the job gone from the list")
    assert api.call("admin", "GET", f"/jobs/{api.job_id('web')}").status_code == 404
    assert api.call("admin", "DELETE", f"/jobs/{api.job_id('web')}").status_code == 404


def test_creating_a_half_deleted_job_again_removes_what_is_left_first(api: ClusterApi) -> None:
    half_deleted(api)
    again = api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web")})
    assert again.status_code == 201, again.text
    assert again.json()["message"].split("; ") == [
        *(f"{ref} deleted (left of a half-deleted job)" for ref in LEFT),
        "service/svc-web created",
        "deployment.apps/web created",
        "poddisruptionbudget.policy/web created",
    ]
    (item,) = listed(api)
    assert item["jobId"] == api.job_id("web") and item["status"] != "partial"


def test_a_jobs_objects_are_its_workload_and_the_kinds_a_partial_job_is_found_by() -> None:
    """Every kind gpuctl makes for a job is either a workload kind or one that marks a job
    as partial when its workload is gone: none is left out of the listing."""
    from gpuctl.inventory import jobs
    from gpuctl.verbs.plan import JOB_OBJECT_KINDS

    assert sorted((*jobs.WORKLOADS, *jobs.PART_KINDS)) == sorted(JOB_OBJECT_KINDS)
