"""The API server half of the sandbox, through the official `kubernetes` client."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.request
from typing import Any

import pytest
import urllib3
from kubernetes import dynamic, watch
from kubernetes.client import ApiException

from tests.sandbox import clients
from tests.support.sandbox import SandboxCluster, wait_for


def _dynamic(cluster: SandboxCluster) -> Any:
    return dynamic.DynamicClient(cluster.api_client())  # type: ignore[no-untyped-call]


def _watch() -> Any:
    return watch.Watch()  # type: ignore[no-untyped-call]


def _cm(name: str, labels: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": labels or {}},
        "data": {"k": "v"},
        **extra,
    }


def _job(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "gpuctl"}},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox:1.36"}],
                }
            },
            **spec,
        },
    }


def _http(
    sandbox: SandboxCluster,
    method: str,
    path: str,
    body: Any,
    content_type: str = "application/json",
) -> tuple[int, Any]:
    request = urllib.request.Request(
        sandbox.url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": content_type},
        method=method,
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _status(err: ApiException) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(err.body or "{}")
    return body


def test_crud_sets_server_metadata(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    created = core.create_namespaced_config_map("default", _cm("a"))
    meta = created.metadata
    assert meta.uid and meta.resource_version and meta.creation_timestamp
    got = core.read_namespaced_config_map("a", "default")
    assert got.metadata.uid == meta.uid and got.data == {"k": "v"}
    got.data = {"k": "w"}
    replaced = core.replace_namespaced_config_map("a", "default", got)
    assert int(replaced.metadata.resource_version) > int(meta.resource_version)
    core.delete_namespaced_config_map("a", "default")
    with pytest.raises(ApiException) as err:
        core.read_namespaced_config_map("a", "default")
    assert err.value.status == 404
    assert _status(err.value) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'configmaps "a" not found',
        "reason": "NotFound",
        "details": {"name": "a", "kind": "configmaps"},
        "code": 404,
    }


def test_errors_match_the_real_server(sandbox: SandboxCluster) -> None:
    batch = clients.batch(sandbox)
    batch.create_namespaced_job("default", _job("x"))
    with pytest.raises(ApiException) as err:
        batch.create_namespaced_job("default", _job("x"))
    assert err.value.status == 409
    assert _status(err.value)["message"] == 'jobs.batch "x" already exists'
    assert _status(err.value)["reason"] == "AlreadyExists"
    assert _status(err.value)["details"] == {"name": "x", "group": "batch", "kind": "jobs"}

    stale = batch.read_namespaced_job("x", "default")
    batch.patch_namespaced_job("x", "default", {"metadata": {"labels": {"a": "b"}}})
    with pytest.raises(ApiException) as err:
        batch.replace_namespaced_job("x", "default", stale)
    assert err.value.status == 409
    assert _status(err.value)["message"] == (
        'Operation cannot be fulfilled on jobs.batch "x": the object has been modified; please '
        "apply your changes to the latest version and try again"
    )

    for _attempt in range(5):  # the Job controller may write status between read and replace
        current = batch.read_namespaced_job("x", "default").to_dict()
        current["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:2"
        with pytest.raises(ApiException) as err:
            batch.replace_namespaced_job("x", "default", current)
        if err.value.status != 409:
            break
    status = _status(err.value)
    assert err.value.status == 422 and status["reason"] == "Invalid"
    assert status["message"].startswith('Job.batch "x" is invalid: spec.template: Invalid value:')
    assert status["message"].endswith("field is immutable")
    assert status["details"]["causes"][0]["field"] == "spec.template"


def test_validation_of_names_and_schema(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("default", _cm("Bad_Name"))
    status = _status(err.value)
    assert err.value.status == 422
    assert status["message"].startswith(
        'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase '
        "RFC 1123 subdomain"
    )
    job = _job("j")
    del job["spec"]["template"]["spec"]["containers"][0]["image"]
    with pytest.raises(ApiException) as err:
        clients.batch(sandbox).create_namespaced_job("default", job)
    assert "spec.template.spec.containers[0].image: Required value" in _status(err.value)["message"]


def test_unknown_fields_strict_warn_ignore(sandbox: SandboxCluster) -> None:
    def post(query: str) -> tuple[int, dict[str, str], dict[str, Any]]:
        body = _job("u" + str(abs(hash(query)) % 1000))
        body["spec"]["foo"] = 1
        request = urllib.request.Request(
            f"{sandbox.url}/apis/batch/v1/namespaces/default/jobs{query}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, dict(response.headers), json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), json.loads(exc.read())

    code, _, status = post("?fieldValidation=Strict")
    assert code == 400 and status["reason"] == "BadRequest"
    assert status["message"] == (
        'Job in version "v1" cannot be handled as a Job: strict decoding error: '
        'unknown field "spec.foo"'
    )
    code, headers, obj = post("")
    assert code == 201 and headers["Warning"] == '299 - "unknown field \\"spec.foo\\""'
    assert "foo" not in obj["spec"]  # dropped, as decoding into the typed object does
    code, headers, _ = post("?fieldValidation=Ignore")
    assert code == 201 and "Warning" not in headers


def test_protobuf_is_refused_with_415(sandbox: SandboxCluster) -> None:
    request = urllib.request.Request(
        f"{sandbox.url}/api/v1/namespaces/default/configmaps",
        data=b"k8s\x00",
        headers={"Content-Type": "application/vnd.kubernetes.protobuf"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request)
    assert err.value.code == 415
    assert json.loads(err.value.read())["reason"] == "UnsupportedMediaType"


def test_generate_name_and_dry_run(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    made = core.create_namespaced_config_map("default", {"metadata": {"generateName": "run-"}})
    assert made.metadata.name.startswith("run-") and len(made.metadata.name) == 9
    dry = core.create_namespaced_config_map("default", _cm("dry"), dry_run="All")
    assert dry.metadata.name == "dry"
    with pytest.raises(ApiException):
        core.read_namespaced_config_map("dry", "default")
    core.delete_namespaced_config_map(made.metadata.name, "default", dry_run="All")
    assert core.read_namespaced_config_map(made.metadata.name, "default")


def test_label_and_field_selectors_and_paging(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    for i in range(6):
        labels = {"tier": "a" if i % 2 else "b", "n": str(i)}
        if i == 5:
            labels["special"] = "yes"
        core.create_namespaced_config_map("default", _cm(f"cm{i}", labels))

    def names(**kwargs: Any) -> list[str]:
        return [i.metadata.name for i in core.list_namespaced_config_map("default", **kwargs).items]

    assert names(label_selector="tier=a") == ["cm1", "cm3", "cm5"]
    assert names(label_selector="tier!=a") == ["cm0", "cm2", "cm4"]
    assert names(label_selector="n in (1,2),tier=b") == ["cm2"]
    assert names(label_selector="n notin (0,1,2,3)") == ["cm4", "cm5"]
    assert names(label_selector="special") == ["cm5"]
    assert names(label_selector="!special,tier=a") == ["cm1", "cm3"]
    assert names(field_selector="metadata.name=cm4") == ["cm4"]
    assert names(field_selector="metadata.name!=cm4", label_selector="tier=b") == ["cm0", "cm2"]
    page = core.list_namespaced_config_map("default", limit=4)
    assert len(page.items) == 4 and page.metadata._continue
    assert page.metadata.remaining_item_count == 2
    rest = core.list_namespaced_config_map("default", limit=4, _continue=page.metadata._continue)
    assert [i.metadata.name for i in rest.items] == ["cm4", "cm5"] and not rest.metadata._continue
    everywhere = core.list_config_map_for_all_namespaces(
        field_selector="metadata.namespace=default"
    )
    assert len(everywhere.items) == 6


def test_patches(sandbox: SandboxCluster) -> None:
    apps = clients.apps(sandbox)
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"a": "1"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {"name": "a", "image": "nginx:1", "env": [{"name": "X", "value": "1"}]},
                        {"name": "b", "image": "redis:7"},
                    ]
                },
            },
        },
    }
    apps.create_namespaced_deployment("default", deployment)
    # strategic merge: containers merge by name, labels merge
    patched = apps.patch_namespaced_deployment(
        "web",
        "default",
        {
            "metadata": {"labels": {"b": "2"}},
            "spec": {
                "replicas": 3,
                "template": {"spec": {"containers": [{"name": "b", "image": "redis:8"}]}},
            },
        },
    )
    containers = patched.spec.template.spec.containers
    assert [(c.name, c.image) for c in containers] == [("a", "nginx:1"), ("b", "redis:8")]
    assert patched.metadata.labels == {"a": "1", "b": "2"} and patched.spec.replicas == 3
    assert patched.metadata.generation == 2
    path = "/apis/apps/v1/namespaces/default/deployments/web"
    # JSON merge patch: null removes a key, lists are replaced wholesale
    code, raw = _http(
        sandbox,
        "PATCH",
        path,
        {"metadata": {"labels": {"a": None}}},
        "application/merge-patch+json",
    )
    assert code == 200 and raw["metadata"]["labels"] == {"b": "2"}
    code, raw = _http(
        sandbox,
        "PATCH",
        path,
        [{"op": "replace", "path": "/spec/replicas", "value": 5}],
        "application/json-patch+json",
    )
    assert code == 200 and raw["spec"]["replicas"] == 5
    code, raw = _http(
        sandbox,
        "PATCH",
        path,
        [{"op": "test", "path": "/spec/replicas", "value": 9}],
        "application/json-patch+json",
    )
    assert code == 422
    # selectors are immutable
    with pytest.raises(ApiException) as err:
        apps.patch_namespaced_deployment(
            "web", "default", {"spec": {"selector": {"matchLabels": {"app": "x"}}}}
        )
    assert err.value.status == 422
    assert "spec.selector: Invalid value: v1.LabelSelector{" in _status(err.value)["message"]


def test_scale_subresource(sandbox: SandboxCluster) -> None:
    apps = clients.apps(sandbox)
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "replicas": 1,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "db", "image": "postgres:16"}]},
            },
        },
    }
    apps.create_namespaced_stateful_set("default", sts)
    scale = apps.read_namespaced_stateful_set_scale("db", "default")
    assert scale.spec.replicas == 1 and scale.status.selector == "app=db"
    apps.patch_namespaced_stateful_set_scale("db", "default", {"spec": {"replicas": 3}})
    assert apps.read_namespaced_stateful_set("db", "default").spec.replicas == 3
    with pytest.raises(ApiException) as err:
        apps.patch_namespaced_stateful_set("db", "default", {"spec": {"serviceName": "other"}})
    assert "updates to statefulset spec for fields other than" in _status(err.value)["message"]


def test_watch_streams_changes_and_bookmarks(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_config_map("default", _cm("before"))
    rv = core.list_namespaced_config_map("default").metadata.resource_version

    def writer() -> None:
        time.sleep(0.05)
        core.create_namespaced_config_map("default", _cm("w", {"x": "1"}))
        core.patch_namespaced_config_map("w", "default", {"data": {"k": "2"}})
        core.delete_namespaced_config_map("w", "default")

    threading.Thread(target=writer).start()
    seen = []
    w = _watch()
    for event in w.stream(
        core.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=2
    ):
        seen.append((event["type"], event["object"].metadata.name))
        if event["type"] == "DELETED":
            w.stop()
    assert seen == [("ADDED", "w"), ("MODIFIED", "w"), ("DELETED", "w")]

    # no resourceVersion: the current objects first, as synthetic ADDED events
    first = next(
        iter(_watch().stream(core.list_namespaced_config_map, "default", timeout_seconds=1))
    )
    assert (first["type"], first["object"].metadata.name) == ("ADDED", "before")

    # bookmarks carry the current resourceVersion (to a watch of more than 8 s: a shorter one
    # gets none)
    with urllib.request.urlopen(
        f"{sandbox.url}/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true"
        f"&resourceVersion={rv}&timeoutSeconds=9"
    ) as response:
        lines = [json.loads(response.readline()) for _ in range(4)]
    assert any(line["type"] == "BOOKMARK" for line in lines)
    with urllib.request.urlopen(
        f"{sandbox.url}/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true"
        f"&resourceVersion={rv}&timeoutSeconds=1"
    ) as response:
        lines = [json.loads(line) for line in response.read().splitlines()]
    assert not any(line["type"] == "BOOKMARK" for line in lines)


def test_watch_from_an_expired_version_gets_410(tmp_path: Any) -> None:
    from gpuctl.sandbox import SandboxConfig
    from tests.support.sandbox import running_sandbox

    with running_sandbox(tmp_path, SandboxConfig.fast(watch_history=5)) as small:
        core = clients.core(small)
        for i in range(20):
            core.create_namespaced_config_map("default", _cm(f"c{i}"))
        with pytest.raises(ApiException) as err:
            for _ in _watch().stream(
                core.list_namespaced_config_map, "default", resource_version="2", timeout_seconds=1
            ):
                pass
        assert err.value.status == 410


def test_dynamic_client_and_discovery(sandbox: SandboxCluster) -> None:
    dyn = _dynamic(sandbox)
    jobs = dyn.resources.get(api_version="batch/v1", kind="Job")
    jobs.create(body=_job("d"), namespace="default")
    assert [j.metadata.name for j in jobs.get(namespace="default").items] == ["d"]
    nodes = dyn.resources.get(api_version="v1", kind="Node").get()
    assert len(nodes.items) == 4
    hpa = dyn.resources.get(api_version="autoscaling/v2", kind="HorizontalPodAutoscaler")
    assert hpa.namespaced
    pc = dyn.resources.get(api_version="scheduling.k8s.io/v1", kind="PriorityClass")
    pc.create(
        body={
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
        }
    )
    assert pc.get(name="high").preemptionPolicy == "PreemptLowerPriority"


def test_custom_resources(sandbox: SandboxCluster) -> None:
    dyn = _dynamic(sandbox)
    crds = dyn.resources.get(api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    crds.create(
        body={
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "pools.runwhere.ai"},
            "spec": {
                "group": "runwhere.ai",
                "scope": "Namespaced",
                "names": {
                    "plural": "pools",
                    "singular": "pool",
                    "kind": "Pool",
                    "shortNames": ["pl"],
                },
                "versions": [
                    {
                        "name": "v1",
                        "served": True,
                        "storage": True,
                        "schema": {
                            "openAPIV3Schema": {
                                "type": "object",
                                "x-kubernetes-preserve-unknown-fields": True,
                            }
                        },
                    }
                ],
            },
        }
    )
    assert crds.get(name="pools.runwhere.ai").status.conditions[-1].type == "Established"
    dyn.resources.invalidate_cache() if hasattr(dyn.resources, "invalidate_cache") else None
    pools = _dynamic(sandbox).resources.get(api_version="runwhere.ai/v1", kind="Pool")
    pools.create(
        body={
            "apiVersion": "runwhere.ai/v1",
            "kind": "Pool",
            "metadata": {"name": "p"},
            "spec": {"x": 1},
        },
        namespace="default",
    )
    assert pools.get(name="p", namespace="default").spec.x == 1
    assert pools.get(name="p", namespace="default").metadata.generation == 1


def test_faults_and_request_log(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_config_map("default", _cm("f"))
    sandbox.faults.fail(method="DELETE", resource="configmaps", status=500, times=1)
    with pytest.raises(ApiException) as err:
        core.delete_namespaced_config_map("f", "default")
    assert err.value.status == 500 and _status(err.value)["reason"] == "InternalError"
    core.delete_namespaced_config_map("f", "default")  # only the first one failed

    sandbox.faults.fail(verb="create", resource="configmaps", status=409, reason="Conflict")
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("default", _cm("g"))
    assert err.value.status == 409 and _status(err.value)["reason"] == "Conflict"

    # the official client retries dropped and timed-out requests (urllib3, 3 retries): a single
    # fault is invisible to it, so these rules stay until cleared
    core.create_namespaced_config_map("default", _cm("g"))
    sandbox.faults.drop(resource="configmaps", name="g", times=None)
    with pytest.raises(urllib3.exceptions.MaxRetryError):
        core.read_namespaced_config_map("g", "default")
    sandbox.faults.clear()
    assert core.read_namespaced_config_map("g", "default").metadata.name == "g"

    sandbox.faults.timeout(resource="configmaps", seconds=5, times=None)
    started = time.monotonic()
    with pytest.raises(urllib3.exceptions.MaxRetryError):
        core.list_namespaced_config_map("default", _request_timeout=0.2)
    assert time.monotonic() - started < 3
    sandbox.faults.clear()

    sandbox.faults.latency(0.2, verb="get", resource="nodes", times=None)
    started = time.monotonic()
    clients.core(sandbox).read_node("cpu-0")
    assert time.monotonic() - started >= 0.2
    sandbox.faults.clear()

    sandbox.requests.clear()
    core.list_namespaced_config_map("default")
    assert sandbox.requests.only_reads()
    core.create_namespaced_config_map("default", _cm("h"))
    assert [(r.verb, r.resource, r.name) for r in sandbox.requests.writes()] == [
        ("create", "configmaps", "")
    ]
    method, path, _query = sandbox.requests[0][:3]
    assert (method, path) == ("GET", "/api/v1/namespaces/default/configmaps")


def test_admin_endpoints(sandbox: SandboxCluster) -> None:
    request = urllib.request.Request(
        f"{sandbox.url}/sandbox/faults",
        data=json.dumps({"action": "fail", "resource": "nodes", "status": 503}).encode(),
        method="POST",
    )
    urllib.request.urlopen(request).read()
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{sandbox.url}/api/v1/nodes")
    assert err.value.code == 503
    log = json.loads(urllib.request.urlopen(f"{sandbox.url}/sandbox/requests").read())
    assert log["requests"][-1]["code"] == 503


def test_namespace_termination(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespace({"metadata": {"name": "team"}})
    core.create_namespaced_config_map("team", _cm("c"))
    clients.batch(sandbox).create_namespaced_job("team", _job("j"))
    core.delete_namespace("team")
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("team", _cm("late"))
    if err.value.status == 403:
        assert _status(err.value)["message"] == (
            'configmaps "late" is forbidden: unable to create new content in namespace team '
            "because it is being terminated"
        )
    wait_for(
        lambda: not any(n.metadata.name == "team" for n in core.list_namespace().items),
        what="namespace gone",
    )
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("team", _cm("later"))
    assert (
        err.value.status == 404 and _status(err.value)["message"] == 'namespaces "team" not found'
    )


def test_watch_reports_objects_leaving_and_entering_a_selector(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_config_map("default", _cm("s", {"team": "a"}))
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    core.patch_namespaced_config_map("s", "default", {"metadata": {"labels": {"team": "b"}}})
    core.patch_namespaced_config_map("s", "default", {"metadata": {"labels": {"team": "a"}}})
    core.patch_namespaced_config_map("s", "default", {"data": {"k": "changed"}})
    seen = []
    w = _watch()
    for event in w.stream(
        core.list_namespaced_config_map,
        "default",
        label_selector="team=a",
        resource_version=rv,
        timeout_seconds=1,
    ):
        seen.append(event["type"])
        if len(seen) == 3:
            w.stop()
    assert seen == ["DELETED", "ADDED", "MODIFIED"]


def test_throttling_fault_sends_retry_after(sandbox: SandboxCluster) -> None:
    sandbox.faults.fail(verb="list", resource="jobs.batch", status=429, retry_after=1, times=2)
    for _ in range(2):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{sandbox.url}/apis/batch/v1/namespaces/default/jobs")
        assert err.value.code == 429 and err.value.headers["Retry-After"] == "1"
        assert json.loads(err.value.read())["reason"] == "TooManyRequests"
    assert (
        urllib.request.urlopen(f"{sandbox.url}/apis/batch/v1/namespaces/default/jobs").status == 200
    )
    assert [r.code for r in sandbox.requests.matching(verb="list", resource="jobs")] == [
        429,
        429,
        200,
    ]


def test_replacing_a_job_needs_the_server_set_selector(sandbox: SandboxCluster) -> None:
    batch = clients.batch(sandbox)
    batch.create_namespaced_job("default", _job("r"))
    rendered = _job("r")  # what a renderer produces: no selector, no controller-uid labels
    with pytest.raises(ApiException) as err:
        batch.replace_namespaced_job("r", "default", rendered)
    status = _status(err.value)
    assert err.value.status == 422
    fields = {c["field"] for c in status["details"]["causes"]}
    assert {"spec.selector", "spec.template"} <= fields
    # the same change as a merge patch keeps what the server set
    patched = batch.patch_namespaced_job("r", "default", {"metadata": {"labels": {"x": "y"}}})
    assert (
        patched.spec.selector.match_labels["batch.kubernetes.io/controller-uid"]
        == patched.metadata.uid
    )


def test_a_fault_can_let_the_first_requests_through(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    sandbox.faults.fail(verb="create", resource="configmaps", after=2, status=503)
    core.create_namespaced_config_map("default", _cm("one"))
    core.create_namespaced_config_map("default", _cm("two"))
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("default", _cm("three"))
    assert err.value.status == 503 and _status(err.value)["reason"] == "ServiceUnavailable"
    core.create_namespaced_config_map("default", _cm("three"))


def test_unsupported_field_selectors_are_refused(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    assert (
        core.list_pod_for_all_namespaces(
            field_selector="spec.nodeName=cpu-0,status.phase!=Failed"
        ).items
        == []
    )
    with pytest.raises(ApiException) as err:
        core.list_namespaced_pod("default", field_selector="spec.foo=bar")
    assert err.value.status == 400
    assert _status(err.value)["message"] == "field label not supported: spec.foo"
    with pytest.raises(ApiException) as err:
        core.list_namespaced_config_map("default", field_selector="status.phase=Running")
    assert _status(err.value)["message"] == "field label not supported: status.phase"


def test_every_write_gets_a_new_resource_version(sandbox: SandboxCluster) -> None:
    clients.batch(sandbox).create_namespaced_job("default", _job("rv"))
    wait_for(
        lambda: clients.batch(sandbox).read_namespaced_job("rv", "default").status.succeeded == 1
    )
    with sandbox.sandbox.store.lock:
        versions = [e.rv for e in sandbox.sandbox.store.events_after(0)]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)


def test_custom_resources_are_validated_against_their_schema(sandbox: SandboxCluster) -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"type": "integer"},
                    "mode": {"type": "string", "enum": ["fast", "slow"]},
                    "port": {"x-kubernetes-int-or-string": True},
                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            }
        },
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }
    assert (
        _http(sandbox, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)[0]
        == 201
    )
    path = "/apis/example.com/v1/namespaces/default/widgets"

    def widget(name: str, **spec: Any) -> dict[str, Any]:
        return {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": name},
            "spec": spec,
        }

    code, body = _http(
        sandbox, "POST", path, widget("ok", size=1, port="http", extra={"any": {"thing": 1}})
    )
    assert code == 201 and body["spec"]["extra"] == {"any": {"thing": 1}}
    code, body = _http(
        sandbox, "POST", path + "?fieldValidation=Strict", widget("strict", size=1, colour="red")
    )
    assert code == 400 and 'strict decoding error: unknown field "spec.colour"' in body["message"]
    code, body = _http(sandbox, "POST", path, widget("pruned", size=1, colour="red"))
    assert code == 201 and "colour" not in body["spec"]
    code, body = _http(sandbox, "POST", path, widget("bad", size="big", mode="medium"))
    assert code == 422 and body["reason"] == "Invalid"
    fields = {c["field"]: c["message"] for c in body["details"]["causes"]}
    assert (
        fields["spec.size"]
        == 'Invalid value: "string": spec.size in body must be of type integer: "string"'
    )
    assert fields["spec.mode"] == 'Unsupported value: "medium": supported values: "fast", "slow"'
    code, body = _http(sandbox, "POST", path, widget("missing"))
    assert code == 422 and "spec.size: Required value" in body["message"]


def test_a_write_can_happen_although_its_answer_is_lost(sandbox: SandboxCluster) -> None:
    sandbox.faults.drop(verb="create", resource="configmaps", applied=True)
    with pytest.raises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
        _http(sandbox, "POST", "/api/v1/namespaces/default/configmaps", _cm("ghost"))
    assert clients.core(sandbox).read_namespaced_config_map("ghost", "default").data == {"k": "v"}
    # the official client retries a timed-out request by itself: the delete went through the
    # first time, so the retry is told 404 — what a client must be ready for
    sandbox.faults.timeout(verb="delete", resource="configmaps", applied=True, seconds=0.2)
    with pytest.raises(ApiException) as err:
        clients.core(sandbox).delete_namespaced_config_map("ghost", "default", _request_timeout=0.1)
    assert err.value.status == 404
    assert [r.code for r in sandbox.requests.matching(verb="delete")] == [200, 404]
