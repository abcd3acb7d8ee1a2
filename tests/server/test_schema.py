"""Schemathesis over the OpenAPI document, as an admin against the sandbox: generated
requests for every operation, no 5xx, and every answer matching the schema it documents.
(Driven through Schemathesis' Python API: its pytest plugin does not run under pytest 9.)"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
)

from .conftest import SECRETS, Api

ADMIN = {"Authorization": f"Bearer {SECRETS['admin']}"}
EXAMPLES = 15  # per operation
# A schema-valid string can still be invalid YAML (400 is right then): acceptance of every
# schema-valid request is not checked, only what the API promises.
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def _check(operation: Any) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy())
    def generated(case: Any) -> None:
        case.call_and_validate(headers=ADMIN, checks=CHECKS)

    generated()


def test_no_server_errors_and_answers_match_the_schema(api: Api) -> None:
    schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", api.client.app)
    checked = []
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]
        _check(operation)
        checked.append(operation.label)
    document = api.client.get("/api/v1/openapi.json").json()
    assert len(checked) == sum(len(operations) for operations in document["paths"].values())
