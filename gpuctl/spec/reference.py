"""The spec field reference, generated from the schemas (so the two cannot drift apart).

The docs site's reference page is built from `section()` (docs/hooks.py, at every build).
"""

from __future__ import annotations

import json
from typing import Any

from gpuctl.spec import kinds, schema

_TYPES = {
    "object": "mapping",
    "array": "list",
    "string": "text",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
}


def _type(node: dict[str, Any]) -> str:
    if "enum" in node:
        return " | ".join(f"`{v}`" for v in node["enum"])
    if "const" in node:
        return f"`{node['const']}`"
    if "oneOf" in node:
        return " or ".join(_type(_resolved(option)) for option in node["oneOf"])
    kind = node.get("type", "")
    names = [kind] if isinstance(kind, str) else list(kind)
    return " or ".join(_TYPES.get(name, name) for name in names if name)


def _rule(node: dict[str, Any]) -> str:
    parts = []
    for keyword, words in (
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("minLength", "length ≥"),
        ("maxLength", "length ≤"),
        ("minProperties", "entries ≥"),
    ):
        if keyword in node:
            parts.append(f"{words} {node[keyword]}")
    if "x-hint" in node:
        parts.append(str(node["x-hint"]))
    for option in node.get("oneOf", []):
        if "exclusiveMinimum" in option or "minimum" in option:
            parts.append(_rule(_resolved(option)))
    return "; ".join(p for p in parts if p)


def _resolved(node: Any) -> dict[str, Any]:
    return schema._resolve(node)


def _rows(node: dict[str, Any], path: str, required: bool, rows: list[list[str]]) -> None:
    node = _resolved(node)
    default = node.get("default")
    shown_default = "" if default is None or default == {} else f"`{json.dumps(default)}`"
    if path:
        rows.append(
            [
                f"`{path}`",
                _type(node),
                "yes" if required else "",
                shown_default,
                ". ".join(filter(None, [node.get("description", ""), _rule(node)])),
            ]
        )
    needed = set(node.get("required", []))
    for key, child in node.get("properties", {}).items():
        if path == "" and key == "kind":
            continue
        _rows(child, f"{path}.{key}" if path else key, key in needed, rows)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        name = _resolved(node.get("propertyNames", {})).get("description", "name")
        _rows(extra, f"{path}.<{name.removeprefix('a ').removeprefix('an ')}>", False, rows)
    if isinstance(node.get("items"), dict):
        _rows(node["items"], f"{path}[]", False, rows)


def paths(kind: kinds.Kind) -> list[str]:
    """Every field path of `kind` as the tables spell it: `resources.gpu`,
    `storage.workdirs[].path`, `users.<user name>.gpu` (a placeholder in angle brackets)."""
    rows: list[list[str]] = []
    _rows(schema.load(kind.schema), "", True, rows)
    return [row[0].strip("`") for row in rows]


def table(kind: kinds.Kind) -> str:
    rows: list[list[str]] = []
    _rows(schema.load(kind.schema), "", True, rows)
    lines = [
        f"## {kind.name}",
        "",
        f"**`kind: {' | '.join((kind.name, *kind.spellings))}`** — {kind.summary}",
        "",
        "| field | type | required | default | meaning and rule |",
        "|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def section() -> str:
    """One table per kind, in the registry's order."""
    return "\n\n".join(table(kind) for kind in kinds.KINDS.values())
