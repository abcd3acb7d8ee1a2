"""The spec as submitted, kept on the job's workload and returned by GET /jobs/{jobId} (one
mechanism for the CLI and the API), on the `cluster` fixture (the sandbox and the local real
control plane: the annotation is the API server's to keep)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuctl import constants as c

from .conftest import ClusterApi, inference, training

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


@pytest.fixture
def api(cluster_api: ClusterApi) -> ClusterApi:
    return cluster_api


def _detail(api: ClusterApi, job_id: str, who: str = "admin") -> dict[str, Any]:
    answer = api.call(who, "GET", f"/jobs/{job_id}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_get_job_returns_the_yaml_exactly_as_submitted(api: ClusterApi) -> None:
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": COMMENTED})
    assert made.status_code == 201, made.text
    detail = _detail(api, api.job_id("kept"))
    assert detail["yamlContent"] == COMMENTED
    assert detail["version"] == "v0.1"
    assert detail["yamlContentNote"] is None
    live = api.cluster.get("Job", "kept", api.namespace)
    assert live["metadata"]["annotations"][c.SPEC_ANNOTATION] == COMMENTED


def test_only_the_workload_carries_the_spec(api: ClusterApi) -> None:
    text = inference("svc-spec")
    assert api.call("admin", "POST", "/jobs", json={"yamlContent": text}).status_code == 201
    deployment = api.cluster.get("Deployment", "svc-spec", api.namespace)
    assert deployment["metadata"]["annotations"][c.SPEC_ANNOTATION] == text
    service = api.cluster.get("Service", "svc-svc-spec", api.namespace)
    assert c.SPEC_ANNOTATION not in (service["metadata"].get("annotations") or {})
    assert _detail(api, api.job_id("svc-spec"))["yamlContent"] == text


def test_the_cli_keeps_the_spec_the_same_way(api: ClusterApi, tmp_path: Any) -> None:
    """`gpuctl create` and `gpuctl apply` write the same annotation: a job made by the CLI
    shows its file's text through the API; a multi-document file keeps each job's own."""
    other = training("second")
    path = tmp_path / "two.yaml"
    path.write_text(COMMENTED + "---\n" + other)
    made = api.gpuctl("create", "-f", str(path))
    assert made.returncode == 0, made.stderr
    assert _detail(api, api.job_id("kept"))["yamlContent"] == COMMENTED.split("\n", 1)[1]
    assert _detail(api, api.job_id("second"))["yamlContent"] == other
    changed = other.replace("sleep 30", "sleep 40")
    path.write_text(changed)
    applied = api.gpuctl("apply", "-f", str(path))
    assert applied.returncode == 0, applied.stderr
    assert _detail(api, api.job_id("second"))["yamlContent"] == changed


def test_a_spec_too_large_to_keep_is_noted_not_truncated(api: ClusterApi) -> None:
    padding = "#" + "x" * 99 + "\n"
    text = training("huge") + padding * (c.SPEC_ANNOTATION_MAX // len(padding) + 1)
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": text})
    assert made.status_code == 201, made.text
    detail = _detail(api, api.job_id("huge"))
    assert detail["yamlContent"] is None
    assert detail["version"] is None
    size = len(text.encode())
    assert detail["yamlContentNote"] == (
        f"the spec was {size} bytes, over the {c.SPEC_ANNOTATION_MAX}-byte limit of "
        f"{c.SPEC_ANNOTATION}: not kept"
    )


def test_the_cli_and_the_api_word_an_existing_job_alike(
    cluster_api: ClusterApi, tmp_path: Any
) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(training("twice"))
    assert cluster_api.gpuctl("create", "-f", str(path)).returncode == 0
    again = cluster_api.gpuctl("create", "-f", str(path))
    exists = (
        f"job twice already exists in namespace {cluster_api.namespace}: use apply to change "
        "it, or delete it first"
    )
    assert again.returncode == 1
    assert again.stderr == f"error: {exists}\nerror: nothing was created\n"
    answer = cluster_api.call("admin", "POST", "/jobs", json={"yamlContent": training("twice")})
    assert answer.status_code == 409
    assert answer.json() == {"error": "AlreadyExists", "message": f"{exists}; nothing was created"}
