"""Jobs through HTTP on the `cluster` fixture (the sandbox and the local real control plane):
create (one and a batch), list with filters and pages, details, delete, the last lines of the
logs, and the metrics endpoint's documented empty series. What only the sandbox can show is
in test_jobs_sandbox.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import TypeAdapter

from tests.support.sandbox import wait_for

from .conftest import AnyApi, ClusterApi, inference, training

INFERENCE = inference("web")
LIST_ROUTES = {
    "/jobs",
    "/nodes",
    "/nodes/labels",
    "/nodes/labels/all",
    "/pools",
    "/pools/{poolName}",
}


@pytest.fixture
def api(cluster_api: ClusterApi) -> ClusterApi:
    """Every test here runs on the sandbox and on the local real control plane."""
    return cluster_api


def _create(api: AnyApi, text: str, who: str = "admin", query: str = "") -> dict[str, Any]:
    answer = api.call(who, "POST", f"/jobs{query}", json={"yamlContent": text})
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _running(api: AnyApi, job_id: str) -> bool:
    return bool(api.call("admin", "GET", f"/jobs/{job_id}").json()["status"] == "running")


def _listed(api: ClusterApi, query: str = "") -> dict[str, Any]:
    """An admin's list of the test's namespace (every namespace's jobs are an admin's: on the
    shared control plane, other tests' too)."""
    answer = api.call("admin", "GET", f"/jobs?namespace={api.namespace}{query}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _logs(api: ClusterApi, query: str) -> dict[str, Any]:
    answer = api.call("admin", "GET", f"/jobs/{api.job_id('web')}/logs{query}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_create_answers_201_with_the_documents_fields(api: ClusterApi) -> None:
    body = _create(api, training("sft", gpu=2))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", body.pop("createdAt"))
    assert body == {
        "jobId": api.job_id("sft"),
        "name": "sft",
        "namespace": api.namespace,
        "kind": "training",
        "status": "pending",
        "message": "job.batch/sft created",
        "warnings": [],
    }
    live = api.cluster.get("Job", "sft", api.namespace)
    assert live["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "gpuctl"
    again = api.call("admin", "POST", "/jobs", json={"yamlContent": training("sft")})
    assert again.status_code == 409
    assert again.json()["error"] == "AlreadyExists"


def test_placement_problems_are_refused_before_any_write_unless_pending_is_allowed(
    api: ClusterApi,
) -> None:
    lonely = training("lonely", pool="empty-pool")
    refused = api.call("admin", "POST", "/jobs", json={"yamlContent": lonely})
    assert refused.status_code == 422
    assert (refused.json()["error"], refused.json()["field"]) == ("Unschedulable", "resources.pool")
    assert "pool empty-pool does not exist" in refused.json()["message"]
    assert api.cluster.find("Job", "lonely", api.namespace) is None
    accepted = api.call("admin", "POST", "/jobs?allowPending=true", json={"yamlContent": lonely})
    assert accepted.status_code == 201
    assert "pool empty-pool does not exist" in accepted.json()["warnings"][0]
    wrong_case = training("cased").replace("  gpu: 1\n", "  gpu: 1\n  gpu-type: a100-80g\n")
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": wrong_case})
    assert answer.status_code == 422
    assert answer.json()["error"] == "Unschedulable"
    assert "differs only in letter case" in answer.json()["message"]
    assert api.cluster.find("Job", "cased", api.namespace) is None


def test_batch_creates_each_on_its_own(api: ClusterApi) -> None:
    texts = [training("a"), training("b").replace("gpu: 1", "gpu: x"), training("a")]
    answer = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": texts})
    assert answer.status_code == 207  # some created, some failed
    body = answer.json()
    assert body["success"] == [{"jobId": api.job_id("a"), "name": "a"}]
    assert [(f["index"], f["error"]) for f in body["failed"]] == [
        (1, "InvalidYAML"),
        (2, "AlreadyExists"),
    ]
    assert body["failed"][0]["problems"][0].startswith("yamlContents[1]:")
    assert sorted(api.objects("Job")) == ["a"]


def test_list_filters_and_pages(api: ClusterApi) -> None:
    for name in ("j1", "j2", "j3"):
        _create(api, training(name))
    _create(api, INFERENCE)
    wait_for(lambda: _running(api, api.job_id("web")), what="web running")
    everything = _listed(api)
    assert everything["total"] == 4
    assert [item["jobId"] for item in everything["items"]] == [
        api.job_id("j1"),
        api.job_id("j2"),
        api.job_id("j3"),
        api.job_id("web"),
    ]
    web = everything["items"][3]
    assert web["kind"] == "inference" and web["gpu"] == 2 and web["pool"] == "default"
    kinds = _listed(api, "&kind=inference")
    assert [item["name"] for item in kinds["items"]] == ["web"]
    running = _listed(api, "&status=running")
    assert api.job_id("web") in [item["jobId"] for item in running["items"]]
    assert all(item["status"] == "running" for item in running["items"])
    second = _listed(api, "&page=2&pageSize=3")
    assert second == {"total": 4, "items": [web | {"status": second["items"][0]["status"]}]}
    assert _listed(api, "&pool=nowhere") == {"total": 0, "items": []}


def test_details_show_resources_pods_and_why(api: ClusterApi) -> None:
    _create(api, INFERENCE)
    wait_for(lambda: _running(api, api.job_id("web")), what="web running")
    body = api.call("admin", "GET", f"/jobs/{api.namespace}.web").json()
    # one pod's resources (never a mix with totals), and the pods asked for
    assert body["resources"] == {
        "gpu": 1,
        "gpuShare": None,  # whole GPUs, no share
        "gpuType": None,
        "cpu": "1",
        "memory": "1Gi",
        "replicas": 2,
    }
    assert (body["gpu"], body["gpuShare"]) == (2, None)  # the item's gpu: the whole job's
    assert body["k8sResources"]["kind"] == "Deployment"
    assert body["k8sResources"]["service"] == "svc-web"
    assert len(body["k8sResources"]["pods"]) == 2
    # each pod as `get pods` shows it, in the order of `pods`: running, ready, on its node
    states = body["k8sResources"]["podStates"]
    assert [state["name"] for state in states] == body["k8sResources"]["pods"]
    for state in states:
        assert (state["status"], state["ready"], state["restarts"]) == ("Running", "1/1", 0)
        assert state["node"], state
    assert body["access"].startswith("http://")
    assert body["metrics"] == dict.fromkeys(
        ("gpuUtilization", "memoryUsage", "networkLatency", "throughput")
    )
    # a pool without nodes: accepted to wait for nodes that join
    stuck = _create(api, training("stuck", pool="no-such-pool"), query="?allowPending=true")
    detail = wait_for(
        lambda: api.call("admin", "GET", f"/jobs/{stuck['jobId']}").json()["why"],
        what="a reason",
    )
    assert "no node in pool 'no-such-pool'" in detail
    waiting = api.call("admin", "GET", f"/jobs/{stuck['jobId']}").json()["k8sResources"]
    assert [(s["status"], s["node"]) for s in waiting["podStates"]] == [("Pending", None)] * len(
        waiting["pods"]
    )
    missing = api.call("admin", "GET", f"/jobs/{api.namespace}.nope")
    assert missing.status_code == 404
    assert missing.json() == {
        "error": "JobNotFound",
        "message": f"no job named 'nope' in namespace {api.namespace}",
    }
    assert api.call("admin", "GET", "/jobs/no-dot").json()["error"] == "JobNotFound"


def test_delete_removes_the_job_and_its_service(api: ClusterApi) -> None:
    _create(api, INFERENCE)
    answer = api.call("admin", "DELETE", f"/jobs/{api.namespace}.web?force=true")
    assert answer.status_code == 200
    assert answer.json()["status"] == "terminating"
    assert "deployment.apps/web deleted" in answer.json()["message"]
    assert "service/svc-web deleted" in answer.json()["message"]
    wait_for(lambda: not api.objects("Deployment"), what="deployment gone")
    assert api.call("admin", "DELETE", f"/jobs/{api.namespace}.web").status_code == 404


def test_logs_give_the_last_lines_of_each_pod(api: ClusterApi) -> None:
    _create(api, INFERENCE)
    wait_for(lambda: _running(api, api.job_id("web")), what="web running")

    def two_lines_each() -> dict[str, Any]:  # once each pod has written a few ({} before)
        body = _logs(api, "?tail=2")
        return body if len(body["logs"]) == 4 else {}

    body = wait_for(two_lines_each, what="two lines of each pod")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", body["lastTimestamp"])
    assert body["truncated"] is False
    pods = {line.split("]")[0][1:] for line in body["logs"]}
    assert len(pods) == 2 and len(body["logs"]) == 4
    one = sorted(pods)[0]
    single = api.call("admin", "GET", f"/jobs/{api.namespace}.web/logs?tail=3&pod={one}").json()
    assert len(single["logs"]) == 3 and not single["logs"][0].startswith("[")
    missing = api.call("admin", "GET", f"/jobs/{api.namespace}.web/logs?pod=nope")
    assert missing.status_code == 404 and missing.json()["error"] == "PodNotFound"


def test_follow_streams_are_capped(api: ClusterApi) -> None:
    _create(api, inference("web", replicas=1))
    streams = api.client.app.state.log_streams  # type: ignore[attr-defined]
    taken: list[Any] = []
    try:
        while True:
            taken.append(streams.take(f"user-{len(taken)}"))
    except Exception as exc:
        assert type(exc).__name__ == "ApiError"
    answer = api.call("admin", "GET", f"/jobs/{api.namespace}.web/logs?follow=true")
    assert answer.status_code == 429 and answer.json()["error"] == "TooManyStreams"
    for stream in taken:
        streams.give_back(stream)
    assert len(taken) == 32


def test_metrics_are_documented_empty_series(api: ClusterApi) -> None:
    _create(api, training("sft"))
    body = api.call("admin", "GET", f"/jobs/{api.namespace}.sft/metrics").json()
    assert body == {
        "gpuUtilization": [],
        "memoryUsage": [],
        "throughput": [],
        "custom": {},
        "source": None,
        "message": "no metrics source is configured: the series are empty",
    }
    one = api.call("admin", "GET", f"/jobs/{api.namespace}.sft/metrics?metric=throughput").json()
    assert one["throughput"] == [] and "gpuUtilization" not in one
    bad = api.call("admin", "GET", f"/jobs/{api.namespace}.sft/metrics?metric=nope")
    assert bad.status_code == 400
    assert api.call("admin", "GET", f"/jobs/{api.namespace}.gone/metrics").status_code == 404


def test_cluster_calls_run_off_the_event_loop() -> None:
    """Endpoints that call the cluster are plain functions (FastAPI's thread pool), but for
    the list endpoints, which read through deps.from_lists (on the loop only from the watch
    cache: test_reads.py checks that no cluster call is made there), and the logs, which
    wait on the loop for their read or their client's leaving, the read in the thread pool
    (test_log_bounds.py checks that no cluster call is made on the loop)."""
    import inspect

    from fastapi.routing import APIRoute, APIWebSocketRoute

    from gpuctl.server.routes import jobs, logs, nodes, pools, quotas

    for module in (jobs, logs, nodes, pools, quotas):
        for route in module.router.routes:
            if isinstance(route, APIWebSocketRoute):
                continue  # async by nature; its reads go through run_in_threadpool
            assert isinstance(route, APIRoute)
            listing = route.path in LIST_ROUTES and route.methods == {"GET"}
            waits = route.path == "/jobs/{jobId}/logs"
            assert inspect.iscoroutinefunction(route.endpoint) == (listing or waits), route.path


def test_a_batch_where_every_item_fails_is_422(api: ClusterApi) -> None:
    texts = [training("x").replace("gpu: 1", "gpu: x"), "kind: quota\n"]
    answer = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": texts})
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["success"] == []
    assert [(f["index"], f["error"]) for f in body["failed"]] == [
        (0, "InvalidYAML"),
        (1, "InvalidYAML"),
    ]
    every = api.call("admin", "POST", "/jobs/batch", json={"yamlContents": [training("y")]})
    assert every.status_code == 201, every.text


def test_a_filter_value_that_names_nothing_is_400_with_the_allowed_values(api: ClusterApi) -> None:
    for path, field, allowed in (
        ("/jobs?status=runing", "query.status", "succeeded, failed, running, partially-running"),
        ("/jobs?kind=trainin", "query.kind", "training, inference, notebook, compute"),
        ("/nodes?status=up", "query.status", "active, maintaining, faulty"),
    ):
        answer = api.call("admin", "GET", path)
        assert answer.status_code == 400, (path, answer.text)
        body = answer.json()
        assert body["error"] == "InvalidRequest" and body["field"] == field
        assert allowed in body["message"], body
    assert api.call("admin", "GET", "/jobs?status=running&kind=training").status_code == 200


def test_an_unchanged_job_list_is_checked_and_encoded_once(
    api: ClusterApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the jobs are unchanged, the same page is checked against its shape and written
    as JSON once (it was for every request: most of what a list cost the server), and every
    caller gets the same bytes."""
    _create(api, training("j1"))
    _create(api, training("j2"))
    wait_for(lambda: api.client.get("/readyz").status_code == 200, what="the cache ready")

    def finished() -> bool:  # the jobs no longer change
        items = _listed(api)["items"]
        return [item["status"] for item in items] == ["succeeded", "succeeded"]

    wait_for(finished, timeout=60, what="both jobs to succeed")
    checked: list[str] = []
    validate = TypeAdapter.validate_python

    def counted(adapter: TypeAdapter[Any], *args: Any, **kwargs: Any) -> Any:
        checked.append(repr(getattr(adapter, "_type", "")))
        return validate(adapter, *args, **kwargs)

    monkeypatch.setattr(TypeAdapter, "validate_python", counted)
    page = f"/jobs?namespace={api.namespace}&pageSize=1"
    bodies = [api.call("admin", "GET", page) for _ in range(5)]
    assert {answer.status_code for answer in bodies} == {200}
    assert len({answer.content for answer in bodies}) == 1
    assert bodies[0].headers["content-type"] == "application/json"
    assert bodies[0].json()["total"] == 2
    assert len([shape for shape in checked if "JobList" in shape]) == 1
