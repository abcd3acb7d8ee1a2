"""What the verbs hand the API: the cluster's typed errors, which decide the HTTP code (not the
words of the message). On the sandbox only: the cluster's refusals are its injected faults. The
spec kept on the job's workload, on both clusters: test_spec_kept.py."""

from __future__ import annotations

import pytest

from .conftest import Api, training


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
