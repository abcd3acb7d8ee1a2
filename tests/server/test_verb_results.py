"""What the verbs hand the API: the spec as submitted, kept on the job's workload and returned
by GET /jobs/{jobId} (one mechanism for the CLI and the API), and the cluster's typed errors,
which decide the HTTP code (not the words of the message)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuctl import constants as c

from .conftest import Api, inference, training

COMMENTED = """# fine-tune run 7: keep the comments, the key order and the quoting
kind: training
version: v0.1
job:
  name: "kept"   # quoted on purpose
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 30"]
resources:
  memory: 1Gi
  cpu: 1
  gpu: 1
"""


def _detail(api: Api, job_id: str, who: str = "admin") -> dict[str, Any]:
    answer = api.call(who, "GET", f"/jobs/{job_id}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_get_job_returns_the_yaml_exactly_as_submitted(api: Api) -> None:
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": COMMENTED})
    assert made.status_code == 201, made.text
    detail = _detail(api, "default.kept")
    assert detail["yamlContent"] == COMMENTED
    assert detail["version"] == "v0.1"
    assert detail["yamlContentNote"] is None
    live = api.env.cluster.get("Job", "kept", "default")
    assert live["metadata"]["annotations"][c.SPEC_ANNOTATION] == COMMENTED


def test_only_the_workload_carries_the_spec(api: Api) -> None:
    text = inference("svc-spec")
    assert api.call("admin", "POST", "/jobs", json={"yamlContent": text}).status_code == 201
    deployment = api.env.cluster.get("Deployment", "svc-spec", "default")
    assert deployment["metadata"]["annotations"][c.SPEC_ANNOTATION] == text
    service = api.env.cluster.get("Service", "svc-svc-spec", "default")
    assert c.SPEC_ANNOTATION not in (service["metadata"].get("annotations") or {})
    assert _detail(api, "default.svc-spec")["yamlContent"] == text


def test_the_cli_keeps_the_spec_the_same_way(api: Api, tmp_path: Any) -> None:
    """`gpuctl create` and `gpuctl apply` write the same annotation: a job made by the CLI
    shows its file's text through the API; a multi-document file keeps each job's own."""
    other = training("second")
    path = tmp_path / "two.yaml"
    path.write_text(COMMENTED + "---\n" + other)
    made = api.env.gpuctl("create", "-f", str(path))
    assert made.returncode == 0, made.stderr
    assert _detail(api, "default.kept")["yamlContent"] == COMMENTED.split("\n", 1)[1]
    assert _detail(api, "default.second")["yamlContent"] == other
    changed = other.replace("sleep 30", "sleep 40")
    path.write_text(changed)
    applied = api.env.gpuctl("apply", "-f", str(path))
    assert applied.returncode == 0, applied.stderr
    assert _detail(api, "default.second")["yamlContent"] == changed


def test_a_spec_too_large_to_keep_is_noted_not_truncated(api: Api) -> None:
    padding = "#" + "x" * 99 + "\n"
    text = training("huge") + padding * (c.SPEC_ANNOTATION_MAX // len(padding) + 1)
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": text})
    assert made.status_code == 201, made.text
    detail = _detail(api, "default.huge")
    assert detail["yamlContent"] is None
    assert detail["version"] is None
    size = len(text.encode())
    assert detail["yamlContentNote"] == (
        f"the spec was {size} bytes, over the {c.SPEC_ANNOTATION_MAX}-byte limit of "
        f"{c.SPEC_ANNOTATION}: not kept"
    )


@pytest.mark.parametrize(
    ("status", "reason", "message", "code", "error"),
    [
        # the cluster's words do not say "already exists": the type decides
        (409, "AlreadyExists", "someone made it first", 409, "AlreadyExists"),
        (403, "Forbidden", 'jobs.batch is forbidden: User "x" cannot create', 403, "Forbidden"),
        (422, "Invalid", "spec.template: bad", 422, "ClusterRefused"),
        (409, "Conflict", "the object has been modified", 409, "Conflict"),
        (500, "", "etcd is sad", 502, "ClusterError"),
    ],
)
def test_a_refused_create_answers_by_the_clusters_error_type(
    api: Api, status: int, reason: str, message: str, code: int, error: str
) -> None:
    api.env.sandbox.faults.fail(
        verb="create", resource="jobs", status=status, reason=reason, message=message, times=None
    )
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": training("refused")})
    assert answer.status_code == code, answer.text
    body = answer.json()
    assert body["error"] == error
    assert body["message"].startswith("job.batch/refused: ")
    assert "nothing was created" in body["message"]


def test_a_refused_delete_answers_by_the_clusters_error_type(api: Api) -> None:
    assert api.call("admin", "POST", "/jobs", json={"yamlContent": training("kept")}).status_code
    api.env.sandbox.faults.fail(
        verb="delete", resource="jobs", status=403, reason="Forbidden", message="no", times=None
    )
    answer = api.call("admin", "DELETE", "/jobs/default.kept")
    assert answer.status_code == 403
    assert answer.json() == {"error": "Forbidden", "message": "job.batch/kept: no"}


def test_the_cli_and_the_api_word_an_existing_job_alike(api: Api, tmp_path: Any) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(training("twice"))
    assert api.env.gpuctl("create", "-f", str(path)).returncode == 0
    again = api.env.gpuctl("create", "-f", str(path))
    exists = (
        "job twice already exists in namespace default: use apply to change it, or delete it first"
    )
    assert again.returncode == 1
    assert again.stderr == f"error: {exists}\nerror: nothing was created\n"
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": training("twice")})
    assert answer.status_code == 409
    assert answer.json() == {"error": "AlreadyExists", "message": f"{exists}; nothing was created"}
