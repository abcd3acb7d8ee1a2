"""One error shape for every 4xx and 5xx; invalid YAML creates nothing; an unreachable cluster
is a 503; nothing ever answers with a traceback."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from gpuctl.server.app import create_app

from ..conftest import Env
from .conftest import QUOTA, Api, inference, training, unreachable_cluster

BAD_GPU = training("bad-one").replace("gpu: 1", "gpu: lots")


def test_invalid_yaml_is_400_with_the_field_and_the_cli_line_and_creates_nothing(
    api: Api,
) -> None:
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": BAD_GPU})
    assert answer.status_code == 400
    body = answer.json()
    assert body["error"] == "InvalidYAML"
    assert body["field"] == "resources.gpu"
    line = next(i for i, text in enumerate(BAD_GPU.splitlines(), 1) if "gpu: lots" in text)
    assert body["problems"][0].startswith(f"yamlContent:{line}:8: resources.gpu: ")
    assert body["message"] == "\n".join(body["problems"])
    assert api.env.cluster.list("Job", None) == []


def test_a_yaml_body_gets_the_same_answer_naming_the_request_body(api: Api) -> None:
    yaml = {"Content-Type": "application/yaml"}
    answer = api.call("admin", "POST", "/jobs", content=BAD_GPU.encode(), headers=yaml)
    assert answer.status_code == 400
    body = answer.json()
    assert (body["error"], body["field"]) == ("InvalidYAML", "resources.gpu")
    line = next(i for i, text in enumerate(BAD_GPU.splitlines(), 1) if "gpu: lots" in text)
    assert body["problems"][0].startswith(f"request body:{line}:8: resources.gpu: ")
    assert api.env.cluster.list("Job", None) == []
    refused = api.call("admin", "POST", "/jobs", content=QUOTA.encode(), headers=yaml)
    assert refused.json() == {
        "error": "WrongKind",
        "message": "request body: kind quota is not accepted by POST /jobs",
    }


def test_numbers_beyond_their_limits_are_400_with_the_field_and_create_nothing(
    api: Api,
) -> None:
    """A 4,001-digit count, a count beyond int32 and a 5,000-digit cpu are each one problem
    naming its field (they once created an unreadable Deployment, or answered 500)."""
    huge = inference("huge").replace("replicas: 2", "replicas: 1" + "0" * 4000)
    beyond = inference("beyond").replace("replicas: 2", "replicas: 2147483648")
    cpu = training("cpu").replace("cpu: 1", 'cpu: "' + "9" * 5000 + '"')
    for spec, field in (
        (huge, "service.replicas"),
        (beyond, "service.replicas"),
        (cpu, "resources.cpu"),
    ):
        answer = api.call("admin", "POST", "/jobs", json={"yamlContent": spec})
        assert answer.status_code == 400, answer.text[:300]
        body = answer.json()
        assert (body["error"], body["field"]) == ("InvalidYAML", field)
        assert len(body["message"]) < 300
    assert api.env.cluster.list("Deployment", None) == []
    assert api.env.cluster.list("Job", None) == []


def test_broken_yaml_syntax_is_400_with_its_position(api: Api) -> None:
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": "kind: [training\n"})
    assert answer.status_code == 400
    assert answer.json()["error"] == "InvalidYAML"
    assert answer.json()["problems"][0].startswith("yamlContent:")


def test_a_quota_spec_is_refused_by_post_jobs(api: Api) -> None:
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": QUOTA})
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "WrongKind",
        "message": "yamlContent: kind quota is not accepted by POST /jobs",
    }


def test_request_validation_is_400_with_the_field(api: Api) -> None:
    answer = api.call("admin", "GET", "/jobs?pageSize=0")
    assert answer.status_code == 400
    assert answer.json()["error"] == "InvalidRequest"
    assert answer.json()["field"] == "query.pageSize"
    missing = api.call("admin", "POST", "/jobs", json={})
    assert missing.status_code == 400
    assert missing.json()["field"] == "yamlContent"
    extra = api.call("admin", "POST", "/jobs", json={"yamlContent": "x", "other": 1})
    assert extra.status_code == 400
    assert extra.json()["field"] == "other"


BAD_JOB_QUERIES = [
    ("pageSize=0", "query.pageSize", "greater than or equal to 1"),
    ("pageSize=1001", "query.pageSize", "less than or equal to 1000"),
    ("pageSize=lots", "query.pageSize", "valid integer"),
    ("page=0", "query.page", "greater than or equal to 1"),
    ("namespace=Not_A_Namespace", "query.namespace", "should match pattern"),
    ("kind=a%20b", "query.kind", "is not one of training, inference, notebook, compute"),
    ("status=nope", "query.status", "is not one of succeeded, failed, running"),
    (f"pool={'p' * 64}", "query.pool", "at most 63 characters"),
]


def test_each_bad_job_list_parameter_is_400_naming_it(api: Api) -> None:
    for query, field, what in BAD_JOB_QUERIES:
        answer = api.call("admin", "GET", f"/jobs?{query}")
        assert answer.status_code == 400, query
        body = answer.json()
        assert body["error"] == "InvalidRequest" and body["field"] == field, (query, body)
        assert body["message"].startswith(f"{field}: ") and what in body["message"], body
    # the token is checked first: an anonymous client learns nothing of the parameters
    assert api.client.get("/api/v1/jobs?pageSize=0").status_code == 401
    # the last of a repeated parameter counts; one the route does not know is ignored
    fine = api.call("admin", "GET", "/jobs?pageSize=0&pageSize=5&page_size=0&colour=red")
    assert fine.status_code == 200 and fine.json() == {"total": 0, "items": []}


def test_unknown_routes_and_methods_use_the_error_shape(api: Api) -> None:
    missing = api.call("admin", "GET", "/nothing")
    assert missing.status_code == 404
    assert missing.json() == {"error": "NotFound", "message": "Not Found"}
    wrong = api.call("admin", "PUT", "/jobs")
    assert wrong.status_code == 405
    assert wrong.json()["error"] == "MethodNotAllowed"


def test_an_unreachable_cluster_is_503() -> None:
    app = create_app(unreachable_cluster(), None)
    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as client:
        for path in ("/api/v1/jobs", "/api/v1/nodes", "/api/v1/pools", "/api/v1/quotas"):
            answer = client.get(path)
            assert answer.status_code == 503, path
            assert answer.json()["error"] == "ClusterUnreachable"
            assert answer.json()["message"].startswith("cannot reach the cluster at ")
        for path, body in (
            ("/api/v1/jobs", {"yamlContent": training("t")}),
            ("/api/v1/quotas", {"yamlContent": QUOTA}),
            ("/api/v1/pools", {"name": "p", "nodes": ["n"]}),
        ):
            answer = client.post(path, json=body)
            assert answer.status_code == 503, (path, answer.text)


def test_a_job_for_a_user_without_a_namespace_is_404(api: Api) -> None:
    answer = api.call("alice", "POST", "/jobs", json={"yamlContent": training("t")})
    assert answer.status_code == 404
    assert answer.json() == {
        "error": "NamespaceNotFound",
        "message": "namespace alice does not exist (a user's namespace is created with their "
        "quota: POST /quotas)",
    }


class _Broken:
    namespace = "default"

    def list(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug with a secret path /etc/x")


def test_a_bug_is_500_without_a_traceback() -> None:
    app = create_app(_Broken(), None)  # type: ignore[arg-type]
    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/nodes")
    assert answer.status_code == 500
    assert answer.json() == {
        "error": "InternalError",
        "message": "internal error; the server log has the details",
    }


def test_kubernetes_auth_on_a_cluster_without_token_reviews_is_a_clear_503(env: Env) -> None:
    """The sandbox serves no TokenReview (the real control plane does: test_kube_auth.py)."""
    from gpuctl.server.kubeauth import TokenReviews

    app = create_app(env.cluster, TokenReviews(env.cluster))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/jobs", headers={"Authorization": "Bearer some-token"})
    assert answer.status_code == 503
    assert answer.json() == {
        "error": "AuthUnavailable",
        "message": "the cluster serves no TokenReview API (the sandbox does not): "
        "use --tokens FILE",
    }


def test_malformed_json_names_the_line_and_column(api: Api) -> None:
    body = b'{\n  "yamlContent": "x"\n  "other": 1\n}'
    answer = api.call(
        "admin", "POST", "/jobs", content=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "InvalidJSON",
        "message": "invalid JSON body: line 3, column 3: Expecting ',' delimiter",
    }
