"""The API's contract, its OpenAPI document, as the tools that consume it see it: valid
OpenAPI 3.0.3 (openapi-spec-validator), clean under Spectral's `spectral:oas` rules (no error,
no warning), generating a Python client without a warning (openapi-python-client) that works
against `gpuctl serve` on the sandbox, committed as docs/openapi.json, and never changed in a
way that breaks a client of v1 (oasdiff's breaking-change check)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate

from gpuctl.server.contract import OPENAPI_VERSION, as_text
from tests.support import tools

from .conftest import Api

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "docs" / "openapi.json"
VENV_BIN = Path(sys.executable).parent
# openapi-python-client: the spec body of POST /jobs (application/yaml, a binary string) is
# sent as raw bytes, the way it sends application/octet-stream.
GENERATOR_CONFIG = """\
content_type_overrides:
  application/yaml: application/octet-stream
"""
# openapi-python-client up to 0.29.1 writes `body: A | B | Unset` for an operation that takes
# two media types without importing `Unset` (upstream issue 1451): its endpoint template, with
# the import added, until a release fixes it.
IMPORT_LINE = "from ...types import Response, UNSET\n"
OPERATION_IDS = {
    ("post", "/api/v1/jobs"): "createJob",
    ("get", "/api/v1/jobs"): "listJobs",
    ("post", "/api/v1/jobs/batch"): "createJobsBatch",
    ("get", "/api/v1/jobs/{jobId}"): "getJob",
    ("delete", "/api/v1/jobs/{jobId}"): "deleteJob",
    ("get", "/api/v1/jobs/{jobId}/logs"): "getJobLogs",
    ("get", "/api/v1/jobs/{jobId}/metrics"): "getJobMetrics",
    ("post", "/api/v1/nodes/{nodeName}/labels"): "setNodeLabel",
    ("post", "/api/v1/nodes/labels/batch"): "setNodeLabelsBatch",
}


def _served(api: Api) -> dict[str, Any]:
    document: dict[str, Any] = api.client.get("/api/v1/openapi.json").json()
    return document


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def test_the_served_document_is_the_committed_one(api: Api) -> None:
    served_text = as_text(_served(api))
    assert served_text == COMMITTED.read_text(encoding="utf-8"), (
        "the API's document differs from docs/openapi.json: if the change is meant, run "
        "`make openapi` and commit the diff (test_no_breaking_change tells whether it breaks v1)"
    )


def test_the_document_is_valid_openapi_3_0_3(api: Api) -> None:
    document = _served(api)
    assert document["openapi"] == OPENAPI_VERSION == "3.0.3"
    validate(document)  # raises OpenAPIValidationError with the place of the first problem


def test_every_operation_has_a_stable_id_a_tag_a_summary_and_a_description(api: Api) -> None:
    document = _served(api)
    ids = {(method, path): op["operationId"] for method, path, op in _operations(document)}
    assert {key: ids[key] for key in OPERATION_IDS} == OPERATION_IDS
    assert len(set(ids.values())) == len(ids)
    for method, path, operation in _operations(document):
        assert operation["operationId"][0].islower() and "_" not in operation["operationId"]
        assert operation["tags"] and operation["summary"] and operation["description"], (
            f"{method.upper()} {path}"
        )
        for code, answer in operation["responses"].items():
            for media, content in answer.get("content", {}).items():
                assert "schema" in content, f"{method.upper()} {path} {code} {media}"
    schemas = document["components"]["schemas"]
    assert not [name for name in schemas if name.endswith(("-Input", "-Output"))]
    assert "HTTPValidationError" not in schemas
    # one named type for each set of words, wherever it is used
    status, kind = ({"$ref": f"#/components/schemas/{name}"} for name in ("JobStatus", "JobKind"))
    assert (
        schemas["JobItem"]["properties"]["status"] == schemas["JobDetail"]["properties"]["status"]
    )
    assert schemas["JobItem"]["properties"]["status"] == status
    assert schemas["JobCreated"]["properties"]["kind"] == kind
    listing = document["paths"]["/api/v1/jobs"]["get"]["parameters"]
    assert [p["schema"] for p in listing if p["name"] in ("status", "kind")] == [kind, status]
    assert schemas["JobStatus"]["enum"][:3] == ["succeeded", "failed", "running"]
    assert schemas["JobKind"]["enum"] == ["training", "inference", "notebook", "compute"]
    assert schemas["NodeStatus"]["enum"] == ["active", "maintaining", "faulty"]


def _numbers(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, list):
        for child in node:
            yield from _numbers(child)
    elif isinstance(node, dict):
        if node.get("type") == "number":
            yield node
        for child in node.values():
            yield from _numbers(child)


def test_every_number_is_a_double_for_generators(api: Api) -> None:
    """oapi-codegen makes a bare `number` a float32 (a loss of 0.1 arrives as
    0.10000000149): answers say `format: double`; request bodies, where v1 cannot add a
    format, say `x-go-type: float64`."""
    document = _served(api)
    schemas = document["components"]["schemas"]
    assert schemas["Point"]["properties"]["value"]["format"] == "double"
    pushed = schemas["CustomMetricsPush"]["properties"]["metrics"]["additionalProperties"]
    assert pushed == {"type": "number", "x-go-type": "float64"}
    bare = [n for n in _numbers(document) if "format" not in n and "x-go-type" not in n]
    assert bare == []


def test_spectral_oas_finds_no_error_and_no_warning(tmp_path: Path) -> None:
    ruleset = tmp_path / ".spectral.yaml"
    ruleset.write_text('extends: ["spectral:oas"]\n')
    report = tmp_path / "spectral.json"
    done = subprocess.run(
        [
            *(str(_tool(tools.spectral)), "lint", "--ruleset", str(ruleset)),
            *("--fail-severity", "hint", "--format", "json", "--output", str(report)),
            str(COMMITTED),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    found = json.loads(report.read_text() if report.exists() else "[]")
    problems = [f"{p['code']} at {'.'.join(map(str, p['path']))}: {p['message']}" for p in found]
    assert problems == [], done.stderr
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_breaking_change_to_the_committed_v1_document(api: Api, tmp_path: Path) -> None:
    """oasdiff's breaking-change check, from the committed document to the served one: a change
    that breaks v1's clients must go to /api/v2 instead (docs: the versioning rule)."""
    served_file = tmp_path / "served.json"
    served_file.write_text(as_text(_served(api)), encoding="utf-8")
    done = subprocess.run(
        [
            *(str(_tool(tools.oasdiff)), "breaking", str(COMMITTED), str(served_file)),
            *("--fail-on", "WARN", "--format", "text"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"a breaking change of /api/v1:\n{done.stdout}{done.stderr}"


def test_oasdiff_sees_a_breaking_change(tmp_path: Path) -> None:
    """The check above can fail: a removed operation and a new required parameter are breaking."""
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    del document["paths"]["/api/v1/jobs/{jobId}"]["delete"]
    listing = document["paths"]["/api/v1/jobs"]["get"]
    listing["parameters"].append(
        {"name": "team", "in": "query", "required": True, "schema": {"type": "string"}}
    )
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(document), encoding="utf-8")
    done = subprocess.run(
        [str(_tool(tools.oasdiff)), "breaking", str(COMMITTED), str(changed), "--fail-on", "ERR"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "api-removed" in done.stdout or "removed" in done.stdout, done.stdout
    assert "team" in done.stdout, done.stdout


def _tool(install: Any) -> Path:
    try:
        path: Path = install()
    except tools.ToolUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
    return path


def generate_client(tmp_path: Path) -> str:
    """openapi-python-client on the committed document: the generated package's name (it is
    importable from `tmp_path`); fails on any warning the generator prints."""
    templates = tmp_path / "templates"
    templates.mkdir()
    import openapi_python_client

    original = (
        Path(openapi_python_client.__file__).parent / "templates" / "endpoint_module.py.jinja"
    )
    text = original.read_text(encoding="utf-8")
    assert IMPORT_LINE in text, "the generator's endpoint template changed: look again at it"
    patched = text.replace(IMPORT_LINE, "from ...types import Response, UNSET, Unset\n")
    (templates / "endpoint_module.py.jinja").write_text(patched, encoding="utf-8")
    config = tmp_path / "generator.yaml"
    config.write_text(GENERATOR_CONFIG)
    package = "gpuctl_generated_client"
    done = subprocess.run(
        [
            *(str(VENV_BIN / "openapi-python-client"), "generate", "--path", str(COMMITTED)),
            *("--output-path", str(tmp_path / package), "--meta", "none"),
            *("--config", str(config), "--custom-template-path", str(templates)),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "warning" not in output.lower(), output
    assert "error" not in output.lower(), output
    return package


def test_openapi_python_client_generates_a_client_without_a_warning(tmp_path: Path) -> None:
    package = generate_client(tmp_path)
    functions = {path.stem for path in (tmp_path / package / "api").rglob("*.py")}
    assert {"create_job", "list_jobs", "create_jobs_batch", "set_node_labels_batch"} <= functions
    assert not [name for name in functions if name.endswith(("_get", "_post", "_delete"))]
