"""The REST API answers in its own terms: only error names the guide documents, each with the
`field` at fault where there is one."""

from __future__ import annotations

import re

from ..conftest import REPO
from .conftest import Api, training

GUIDE = REPO / "docs" / "guides" / "rest-api.md"


def _job(api: Api) -> None:
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": training("web")})
    assert made.status_code == 201, made.text


def test_a_bad_metrics_parameter_is_invalid_request_with_its_field(api: Api) -> None:
    _job(api)
    for query, field in (
        ("metric=bogus", "metric"),
        ("startTime=yesterday", "startTime"),
        ("endTime=2026-13-01", "endTime"),
        ("startTime=2026-11-23T11:00:00Z&endTime=2026-11-23T10:00:00Z", "startTime"),
    ):
        answer = api.call("admin", "GET", f"/jobs/default.web/metrics?{query}")
        assert answer.status_code == 400, query
        assert answer.json()["error"] == "InvalidRequest", query
        assert answer.json()["field"] == field, query
    bogus = api.call("admin", "GET", "/jobs/default.web/metrics?metric=bogus").json()
    assert bogus["message"] == (
        "metric: 'bogus' is not one of gpuUtilization, memoryUsage, throughput, custom"
    )


def test_auth_check_of_an_unknown_resource_or_action_is_400(api: Api) -> None:
    for body, field in (
        ({"resource": "secrets", "action": "get"}, "resource"),
        ({"resource": "jobs", "action": "patch"}, "action"),
    ):
        answer = api.call("alice", "POST", "/auth/check", json=body)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "InvalidRequest"
        assert answer.json()["field"] == field
    known = api.call("alice", "POST", "/auth/check", json={"resource": "jobs", "action": "get"})
    assert known.status_code == 200 and known.json()["allowed"] is True


def _answered_names() -> set[str]:
    """Every error name the server's code answers with (the error shape's `error`)."""
    code = "".join(path.read_text() for path in (REPO / "gpuctl" / "server").rglob("*.py"))
    patterns = (
        r'ApiError\(\s*\d+,\s*"([A-Za-z]+)"',  # raised by a route or a helper
        r'verb_failed\([^,]+,\s*\d+,\s*"([A-Za-z]+)"',  # a verb's failure without a cause
        r'\(\s*[\w.]+,\s*\d{3},\s*"([A-Za-z]+)"\)',  # ERROR_CODES: gpuctl's errors
        r'\d{3}: "([A-Za-z]+)"',  # Starlette's own answers
        r'"error": "([A-Za-z]+)"',
        r'PerUser\([^)]*"([A-Z][A-Za-z]+)"',
    )
    return {name for pattern in patterns for name in re.findall(pattern, code)}


def test_every_error_name_the_server_answers_is_in_the_guide() -> None:
    names = _answered_names()
    assert {"InvalidRequest", "JobNotFound", "HostNotAllowed", "LabelConflict"} <= names
    documented = set(re.findall(r"[A-Za-z]+", GUIDE.read_text()))
    assert sorted(names - documented) == []
