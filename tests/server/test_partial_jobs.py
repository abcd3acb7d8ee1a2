"""A half-deleted job through HTTP (its Deployment gone, its Service and PodDisruptionBudget
left, as a server killed between two deletes of `DELETE /jobs/{jobId}` leaves it): listed with
status `partial` (and found by that filter), its detail says what is left, and `DELETE` or a
new `POST /jobs` of the same name finishes the deletion."""

from __future__ import annotations

from typing import Any

from tests.support.sandbox import wait_for

from .conftest import Api, inference

LEFT = ["poddisruptionbudget.policy/web", "service/svc-web"]


def half_deleted(api: Api) -> None:
    """Job `web` created through the API, then its Deployment alone deleted (and gone)."""
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web")})
    assert made.status_code == 201, made.text
    api.env.cluster.delete("Deployment", "web", "default", propagation="Foreground")
    wait_for(
        lambda: api.env.cluster.find("Deployment", "web", "default") is None,
        timeout=30,
        what="the Deployment gone",
    )


def listed(api: Api, query: str = "") -> list[dict[str, Any]]:
    answer = api.call("admin", "GET", f"/jobs{query}")
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


def test_a_half_deleted_job_is_listed_partial_with_what_is_left(api: Api) -> None:
    half_deleted(api)
    items = wait_for(
        lambda: [i for i in listed(api) if i["status"] == "partial"], what="a partial job"
    )
    assert [(i["jobId"], i["kind"], i["ready"], i["gpu"]) for i in items] == [
        ("default.web", "inference", "0/0", 0)
    ]
    assert [i["jobId"] for i in listed(api, "?status=partial")] == ["default.web"]
    assert listed(api, "?status=running") == []
    detail = api.call("admin", "GET", "/jobs/default.web")
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["status"] == "partial"
    assert body["k8sResources"]["kind"] is None
    assert body["k8sResources"]["leftovers"] == LEFT
    assert body["why"].startswith("half-deleted: its workload is gone, " + ", ".join(LEFT))


def test_delete_of_a_half_deleted_job_finishes_it(api: Api) -> None:
    half_deleted(api)
    answer = api.call("admin", "DELETE", "/jobs/default.web")
    assert answer.status_code == 200, answer.text
    assert answer.json()["message"] == "; ".join(f"{ref} deleted" for ref in LEFT)
    # (a leftover being deleted is still there, and the job partial, until it is gone)
    wait_for(lambda: listed(api) == [], timeout=30, what="the job gone from the list")
    assert api.call("admin", "GET", "/jobs/default.web").status_code == 404
    assert api.call("admin", "DELETE", "/jobs/default.web").status_code == 404


def test_creating_a_half_deleted_job_again_removes_what_is_left_first(api: Api) -> None:
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
    assert item["jobId"] == "default.web" and item["status"] != "partial"


def test_a_jobs_objects_are_its_workload_and_the_kinds_a_partial_job_is_found_by() -> None:
    """Every kind gpuctl makes for a job is either a workload kind or one that marks a job
    as partial when its workload is gone: none is left out of the listing."""
    from gpuctl.inventory import jobs
    from gpuctl.verbs.plan import JOB_OBJECT_KINDS

    assert sorted((*jobs.WORKLOADS, *jobs.PART_KINDS)) == sorted(JOB_OBJECT_KINDS)
