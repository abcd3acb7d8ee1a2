"""Discovery documents (legacy formats) and the minimal OpenAPI v3 kubectl needs to trust the
server with field validation (`?fieldValidation=Strict`)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gpuctl.sandbox.resources import Registry, Resource


def version(kubernetes_version: str) -> dict[str, Any]:
    major, minor = kubernetes_version.split(".")[:2]
    return {
        "major": major,
        "minor": minor,
        "gitVersion": f"v{major}.{minor}.0-gpuctl-sandbox",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.23.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


def core_versions(address: str) -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}],
    }


def _group(name: str, versions: list[str]) -> dict[str, Any]:
    entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": entries, "preferredVersion": entries[0]}


def group_list(registry: Registry) -> dict[str, Any]:
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [_group(g, vs) for g, vs in sorted(registry.groups().items())],
    }


def group(registry: Registry, name: str) -> dict[str, Any] | None:
    versions = registry.groups().get(name)
    if not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group(name, versions)}


def resource_list(registry: Registry, group_name: str, version_name: str) -> dict[str, Any] | None:
    resources = registry.in_group_version(group_name, version_name)
    if not resources:
        return None
    out: list[dict[str, Any]] = []
    for res in sorted(resources, key=lambda r: r.plural):
        entry: dict[str, Any] = {
            "name": res.plural,
            "singularName": res.singular,
            "namespaced": res.namespaced,
            "kind": res.kind,
            "verbs": list(res.verbs),
        }
        if res.short_names:
            entry["shortNames"] = list(res.short_names)
        if res.categories:
            entry["categories"] = list(res.categories)
        out.append(entry)
        for sub in res.subresources:
            kind = {"scale": "Scale", "log": "Pod"}.get(sub, res.kind)
            verbs = {"log": ["get"], "finalize": ["update"]}.get(sub, ["get", "patch", "update"])
            sub_entry: dict[str, Any] = {
                "name": f"{res.plural}/{sub}",
                "singularName": "",
                "namespaced": res.namespaced,
                "kind": kind,
                "verbs": verbs,
            }
            if sub == "scale":
                sub_entry["group"] = "autoscaling"
                sub_entry["version"] = "v1"
            out.append(sub_entry)
    group_version = f"{group_name}/{version_name}" if group_name else version_name
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": out,
    }


_PATCH_TYPES = (
    # strategic merge is deliberately not advertised: kubectl then computes its apply patch from
    # its built-in types (which know every patch merge key) instead of from our thin schemas
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
)


def _query_param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": True}}


def openapi_gv(resources: list[Resource]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for res in resources:
        base = res.base_path + ("/namespaces/{namespace}" if res.namespaced else "")
        gvk = {"group": res.group, "kind": res.kind, "version": res.version}
        item = {
            "get": {
                "operationId": f"read{res.kind}",
                "responses": {"200": {"description": "OK"}},
                "x-kubernetes-action": "get",
                "x-kubernetes-group-version-kind": gvk,
            },
            "put": {
                "operationId": f"replace{res.kind}",
                "parameters": [
                    _query_param(p) for p in ("dryRun", "fieldManager", "fieldValidation")
                ],
                "responses": {"200": {"description": "OK"}},
                "x-kubernetes-action": "put",
                "x-kubernetes-group-version-kind": gvk,
            },
            "patch": {
                "operationId": f"patch{res.kind}",
                "parameters": [
                    _query_param(p) for p in ("dryRun", "fieldManager", "fieldValidation", "force")
                ],
                "requestBody": {
                    "content": {t: {"schema": {"type": "object"}} for t in _PATCH_TYPES},
                    "required": True,
                },
                "responses": {"200": {"description": "OK"}},
                "x-kubernetes-action": "patch",
                "x-kubernetes-group-version-kind": gvk,
            },
            "parameters": [
                {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
        }
        paths[f"{base}/{res.plural}/{{name}}"] = item
        paths[f"{base}/{res.plural}"] = {
            "post": {
                "operationId": f"create{res.kind}",
                "parameters": [
                    _query_param(p) for p in ("dryRun", "fieldManager", "fieldValidation")
                ],
                "responses": {"201": {"description": "Created"}},
                "x-kubernetes-action": "post",
                "x-kubernetes-group-version-kind": gvk,
            }
        }
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": {}},
    }


def openapi_index(registry: Registry) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The /openapi/v3 index and the documents it points at, keyed by their path."""
    by_gv: dict[tuple[str, str], list[Resource]] = {}
    for res in registry.all():
        by_gv.setdefault((res.group, res.version), []).append(res)
    docs: dict[str, dict[str, Any]] = {}
    index: dict[str, Any] = {}
    for (g, v), resources in sorted(by_gv.items()):
        key = f"apis/{g}/{v}" if g else "api/v1"
        doc = openapi_gv(sorted(resources, key=lambda r: r.plural))
        digest = hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:64].upper()
        docs[key] = doc
        index[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
    return {"paths": index}, docs


def document(registry: Registry, kubernetes_version: str, address: str, path: str) -> Any:
    """The discovery or OpenAPI document at `path` (without a trailing slash); None where there
    is none."""
    parts = [p for p in path.split("/") if p]
    doc: Any = None
    if path == "/version":
        doc = version(kubernetes_version)
    elif path == "/api":
        doc = core_versions(address)
    elif path == "/api/v1":
        doc = resource_list(registry, "", "v1")
    elif path == "/apis":
        doc = group_list(registry)
    elif len(parts) == 2 and parts[0] == "apis":
        doc = group(registry, parts[1])
    elif len(parts) == 3 and parts[0] == "apis":
        doc = resource_list(registry, parts[1], parts[2])
    elif path.startswith("/openapi/v3"):
        index, docs = openapi_index(registry)
        rest = path[len("/openapi/v3") :].strip("/")
        doc = index if not rest else docs.get(rest)
    return doc
