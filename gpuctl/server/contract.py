"""The API's contract: the OpenAPI 3.0.3 document served at `/api/v1/openapi.json`, from which
clients are generated (openapi-python-client, oapi-codegen, ...).

FastAPI writes its document in OpenAPI 3.1 (JSON Schema 2020-12); `openapi_document` turns it
into 3.0.3, which every generator takes:

- a nullable value, `anyOf: [X, {type: null}]`, becomes X with `nullable: true` (a `$ref`
  under `allOf`, since a `$ref` in 3.0 has no siblings);
- a schema's `examples: [a, ...]` becomes `example: a`; `const: v` becomes `enum: [v]`; a
  numeric `exclusiveMinimum`/`exclusiveMaximum` becomes `minimum`/`maximum` with the boolean;
- the bearer-token scheme is added to every operation (the routes read the Authorization
  header themselves: gpuctl.server.deps.caller);
- FastAPI's own `422 HTTPValidationError` answers are left out: this API answers a bad
  parameter or body with `400` in the one error shape (gpuctl.server.errors);
- every number without a `format` is a `double` (the server's numbers are Python floats; a
  generator such as oapi-codegen makes a bare `number` a 32-bit float, which rounds 0.1). In
  the schemas of request bodies, where adding a format counts as a breaking change of v1, the
  same is said with oapi-codegen's type override `x-go-type: float64` instead;
- every operation's `default` answer (any status it does not list, e.g. 502 ClusterError) is
  that error shape too, listed after the operation's own statuses.

Every operation has its own camelCase `operationId`, set on its route (never derived from the
path, so that generated function names stay the same when a route moves). The document is
committed as docs/openapi.json: `make openapi` rewrites it, and a test fails while the two
differ, so that a change of the contract is always a reviewed diff."""

from __future__ import annotations

import json
from typing import Any, Final

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from gpuctl.server.deps import BEARER, BEARER_SCHEME

OPENAPI_VERSION: Final = "3.0.3"
# The version of the contract (info.version): its major is the path's /api/v<major>; a
# compatible addition raises the minor. Not gpuctl's release version.
API_VERSION: Final = "1.3.0"
TAGS: Final[list[dict[str, str]]] = [
    {"name": "jobs", "description": "Training, inference, notebook and compute jobs"},
    {"name": "pools", "description": "Resource pools: groups of GPU nodes"},
    {"name": "nodes", "description": "Nodes, their GPUs and their g8s.host/ labels"},
    {"name": "quotas", "description": "Per-user quotas: used and hard limits"},
    {"name": "auth", "description": "What the caller may do"},
    {"name": "webhooks", "description": "Signed notifications of job events to your URLs"},
    {"name": "metrics", "description": "A job's own metric values, pushed by the job"},
    {"name": "workloads", "description": "The GPUWorkload controller's workloads (read-only)"},
]
CONTACT: Final = {"name": "gpuctl"}
_VALIDATION_SCHEMAS: Final = ("HTTPValidationError", "ValidationError")


def install(app: FastAPI) -> None:
    """Serve `openapi_document(app)` as the app's document (built once, on first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's way to extend the document


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI 3.0.3 document (see the module's rules)."""
    document = get_openapi(
        title=app.title,
        version=API_VERSION,
        openapi_version=OPENAPI_VERSION,
        description=app.description,
        routes=app.routes,
        tags=TAGS,
        contact=CONTACT,
        servers=[{"url": "/", "description": "the server that serves this document"}],
    )
    _without_validation_answers(document)
    schemes = document.setdefault("components", {}).setdefault("securitySchemes", {})
    schemes[BEARER_SCHEME] = dict(BEARER)
    for operations in document["paths"].values():
        for operation in operations.values():
            operation["security"] = [{BEARER_SCHEME: []}]
            _default_answer_last(operation["responses"])
    return doubles(named_enums(downgrade(document)))


def _default_answer_last(responses: dict[str, Any]) -> None:
    """`responses` with its `default` answer moved after the listed statuses."""
    if "default" in responses:
        responses["default"] = responses.pop("default")


def as_text(document: dict[str, Any]) -> str:
    """The document as committed in docs/openapi.json (keys in the server's order)."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _enums() -> dict[str, list[str]]:
    """The value sets that get a name of their own in the document (one type in a generated
    client: `JobStatus`, not one per field and parameter that holds a status)."""
    from gpuctl.inventory.nodes import DOCUMENT_NODE_STATUS
    from gpuctl.server.views import JOB_STATUS
    from gpuctl.spec.kinds import job_kinds

    return {
        "JobStatus": list(JOB_STATUS),
        "JobKind": job_kinds(),
        "NodeStatus": list(DOCUMENT_NODE_STATUS),
    }


def named_enums(document: dict[str, Any]) -> dict[str, Any]:
    """Each string schema whose `enum` is one of `_enums()` replaced by a `$ref` to it."""
    names = {tuple(values): name for name, values in _enums().items()}
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    used: set[str] = set()

    def named(node: dict[str, Any]) -> dict[str, Any]:
        name = names.get(tuple(node.get("enum", ())))
        if name is None or node.get("type") != "string" or node.get("nullable"):
            return node
        used.add(name)
        return {"$ref": f"#/components/schemas/{name}"}

    for schema in schemas.values():
        for key, child in schema.get("properties", {}).items():
            schema["properties"][key] = named(child)
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                parameter["schema"] = named(parameter["schema"])
    for name in sorted(used):
        values = _enums()[name]
        schemas[name] = {"type": "string", "enum": values, "title": name}
    return document


def _without_validation_answers(document: dict[str, Any]) -> None:
    for operations in document["paths"].values():
        for operation in operations.values():
            answer = operation.get("responses", {}).get("422", {})
            schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
            if schema.get("$ref", "").endswith("/HTTPValidationError"):
                del operation["responses"]["422"]
    schemas = document.get("components", {}).get("schemas", {})
    for name in _VALIDATION_SCHEMAS:
        schemas.pop(name, None)


def downgrade(document: dict[str, Any]) -> dict[str, Any]:
    """`document` with every schema in it written in OpenAPI 3.0's dialect."""
    for schema in document.get("components", {}).get("schemas", {}).values():
        _schema(schema)
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                _parameter(parameter.get("schema", {}))
            for content in operation.get("requestBody", {}).get("content", {}).values():
                _schema(content.get("schema", {}))
            for answer in operation.get("responses", {}).values():
                for content in answer.get("content", {}).values():
                    _schema(content.get("schema", {}))
    return document


def _parameter(node: dict[str, Any]) -> None:
    """A parameter's schema: an absent parameter is left out, never sent as null."""
    _schema(node)
    if node.pop("nullable", False) and node.get("default", 0) is None:
        del node["default"]


def _schema(node: dict[str, Any]) -> None:
    """One schema, and every schema in it, rewritten in place."""
    _nullable(node)
    if "examples" in node:
        examples = node.pop("examples")
        if isinstance(examples, list) and examples:
            node["example"] = examples[0]
    if "const" in node:
        node["enum"] = [node.pop("const")]
    for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(node.get(bound), int | float) and not isinstance(node[bound], bool):
            node[limit] = node[bound]
            node[bound] = True
    for key in ("items", "additionalProperties", "not"):
        if isinstance(node.get(key), dict):
            _schema(node[key])
    for key in ("properties", "patternProperties"):
        for child in node.get(key, {}).values():
            _schema(child)
    for key in ("anyOf", "oneOf", "allOf"):
        for child in node.get(key, []):
            _schema(child)


def _nullable(node: dict[str, Any]) -> None:
    """`anyOf: [X, {type: null}]` (or `type: [t, "null"]`) as X with `nullable: true`."""
    if isinstance(node.get("type"), list):
        kinds = [kind for kind in node["type"] if kind != "null"]
        if len(kinds) < len(node["type"]):
            node["nullable"] = True
        node["type"] = kinds[0] if len(kinds) == 1 else kinds
    options = node.get("anyOf")
    if not isinstance(options, list):
        return
    others = [option for option in options if option.get("type") != "null"]
    if len(others) == len(options):
        return
    del node["anyOf"]
    node["nullable"] = True
    if len(others) != 1:
        node["anyOf"] = others
    elif "$ref" in others[0]:
        node["allOf"] = others
    else:
        for key, value in others[0].items():
            node.setdefault(key, value)


GO_FLOAT64: Final = {"x-go-type": "float64"}


def doubles(document: dict[str, Any]) -> dict[str, Any]:
    """Every `type: number` schema without a format made a double: `format: double`, or in a
    schema a request body uses (`_request_schemas`), `x-go-type: float64`."""
    schemas = document.get("components", {}).get("schemas", {})
    requests = _request_schemas(document)
    for name, schema in schemas.items():
        mark = GO_FLOAT64 if name in requests else {"format": "double"}
        _each_number(schema, mark)
    return document


def _each_number(node: Any, mark: dict[str, str]) -> None:
    if isinstance(node, list):
        for child in node:
            _each_number(child, mark)
    elif isinstance(node, dict):
        if node.get("type") == "number" and "format" not in node:
            node.update(mark)
        for key, child in node.items():
            if key not in ("example", "examples", "default"):
                _each_number(child, mark)


def _request_schemas(document: dict[str, Any]) -> set[str]:
    """The names of the schemas that request bodies use, directly or through others."""
    schemas = document.get("components", {}).get("schemas", {})
    bodies = [
        operation.get("requestBody", {})
        for operations in document["paths"].values()
        for operation in operations.values()
    ]
    found: set[str] = set()
    waiting = _references(bodies)
    while waiting:
        name = waiting.pop()
        if name not in found:
            found.add(name)
            waiting |= _references(schemas.get(name, {}))
    return found


def _references(node: Any) -> set[str]:
    """The schema names every `$ref` in `node` points to."""
    if isinstance(node, list):
        return set().union(*(_references(child) for child in node))
    if not isinstance(node, dict):
        return set()
    here = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
    return here.union(*(_references(child) for child in node.values()))
