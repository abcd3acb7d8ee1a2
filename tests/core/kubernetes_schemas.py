"""Validators for the official Kubernetes OpenAPI schemas bundled by kubernetes-validate.

kubernetes_validate.validate() rebuilds a validator (and re-reads the large definitions file)
on every call; here each (version, apiVersion, kind) validator is built once per test session.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
from referencing import Registry, Resource

OLDEST = "1.25.0"
NEWEST = "1.37.0"
SCHEMA_ROOT = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"


@cache
def _definitions(version: str) -> Resource[Any]:
    path = SCHEMA_ROOT / f"v{version}-local-strict" / "_definitions.json"
    return Resource.from_contents(json.loads(path.read_text()))


@cache
def validator(version: str, api_version: str, kind: str) -> jsonschema.Draft202012Validator:
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    path = SCHEMA_ROOT / f"v{version}-local-strict" / f"{kind.lower()}-{group_version}.json"
    schema = json.loads(path.read_text())
    registry: Registry[Any] = _definitions(version) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def errors(obj: dict[str, Any], version: str) -> list[str]:
    """Every way `obj` breaks the strict schema of Kubernetes `version`."""
    check = validator(version, obj["apiVersion"], obj["kind"])
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in check.iter_errors(obj)]
