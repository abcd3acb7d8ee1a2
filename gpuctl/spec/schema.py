"""The JSON Schemas in schemas/: the single definition of what a user may write.

Valid documents take the fast path (jsonschema-rs, ~0.5 µs a document, ~8 ms to import).
Only a document that fails is checked again with `jsonschema`, whose error objects carry the
failing subschema, so every problem can be reported with its path, its line and a hint.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from functools import cache
from typing import Any

from gpuctl.errors import Problem
from gpuctl.spec.document import Document, Path_
from gpuctl.spec.resources import schemas_dir

COMMON = "common.json"
_BASE = "https://gpuctl.runwhere.ai/schemas/v0.1/"
_COMMON_REF = COMMON + "#"
_JSON_TYPES = {
    dict: "a mapping",
    list: "a list",
    str: "text",
    bool: "true/false",
    int: "an integer",
    float: "a number",
    type(None): "nothing (null)",
}
_SCHEMA_TYPES = {
    "object": "a mapping",
    "array": "a list",
    "string": "text",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true/false",
}


@cache
def load(name: str) -> dict[str, Any]:
    """The schema file `name` (e.g. `training.json`), parsed once."""
    with open(schemas_dir() / name, encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


@cache
def _fast_validator(name: str) -> Any:
    import jsonschema_rs

    registry = jsonschema_rs.Registry([(_BASE + COMMON, load(COMMON))])
    return jsonschema_rs.validator_for(load(name), registry=registry, base_uri=_BASE + name)


@cache
def _full_validator(name: str) -> Any:
    import jsonschema
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry().with_resource(
        _BASE + COMMON, Resource.from_contents(load(COMMON))
    )
    schema = {**load(name), "$id": _BASE + name}
    validator_class = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator, {"pattern": _ecma_pattern}
    )
    return validator_class(schema, registry=registry)


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """`pattern` as ECMA-262 (and jsonschema-rs) read it: a final `$` is the end of the text.

    Python's `$` also matches before a trailing newline, so "img\n" would pass here and fail
    the fast validator; both must agree on every input.
    """
    import jsonschema

    if not isinstance(instance, str):
        return
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    if not re.search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def check(name: str, document: Document) -> list[Problem]:
    """Every way `document` breaks schema `name`, sorted by position; [] when it is valid."""
    if _fast_validator(name).is_valid(document.data):
        return []
    problems: list[Problem] = []
    for error in _full_validator(name).iter_errors(document.data):
        problems.extend(_explain(document, error))
    if not problems:  # the two validators disagree: never let an invalid document through
        problems.append(
            document.problem((), "does not match its schema (gpuctl bug: please report)")
        )
    return sorted(set(problems), key=lambda p: (p.line or 0, p.column or 0, p.path))


def _explain(document: Document, error: Any) -> list[Problem]:
    """One jsonschema error in words a person can act on."""
    path: Path_ = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    keyword = error.validator
    value = error.instance
    hint = schema.get("x-hint", "")
    what = schema.get("description", "")

    if "propertyNames" in error.relative_schema_path:
        key_path = (*path, value)
        described = what or "a valid name"
        return [document.problem(key_path, f"name {value!r} is not {described}", hint, key=True)]
    if keyword == "additionalProperties":
        fields = _properties(error.schema)
        allowed = sorted(fields)
        extras = [key for key in value if key not in allowed]
        return [
            document.problem(
                (*path, key),
                "unknown field",
                _indent_hint(str(key), fields) or did_you_mean(str(key), allowed),
                key=True,
            )
            for key in extras
        ]
    if keyword == "required":
        missing = error.validator_value
        missing_names = [name for name in missing if name not in value]
        field_schemas = _properties(error.schema)
        return [
            document.problem(
                (*path, name),
                "required field is missing",
                _resolve(field_schemas.get(name, {})).get("description", ""),
                at=path,
            )
            for name in missing_names
        ]
    if keyword == "type":
        return [
            document.problem(
                path,
                _type_message(value, error.validator_value),
                _type_hint(value, error.validator_value, hint),
            )
        ]
    if keyword == "enum":
        options = [str(option) for option in error.validator_value]
        if path == ("version",):
            return [
                document.problem(
                    path,
                    f"unsupported version {value!r}",
                    f"supported versions: {', '.join(options)}",
                )
            ]
        near = did_you_mean(str(value), options)
        return [
            document.problem(
                path,
                f"{value!r} is not one of: {', '.join(options)}",
                near if "did you" in near else "",
            )
        ]
    if keyword in ("pattern", "oneOf", "format"):
        described = what if what.startswith(("a ", "an ")) else "valid here"
        return [document.problem(path, f"{shown(value)} is not {described}", hint)]
    if keyword == "maxLength":
        return [
            document.problem(
                path,
                f"is too long ({len(value)} characters, at most {error.validator_value})",
                hint,
            )
        ]
    if keyword == "minLength":
        return [document.problem(path, "must not be empty", hint)]
    if keyword in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }[keyword]
        return [
            document.problem(
                path,
                f"{shown(value)} is out of range: it must be {words} {error.validator_value}",
                hint,
            )
        ]
    if keyword == "minProperties":
        return [document.problem(path, "must not be empty", what)]
    if keyword == "not":
        return [document.problem(path, "this field is not allowed here", hint, key=True)]
    if keyword == "const":
        return [document.problem(path, f"must be {error.validator_value!r}")]
    return [document.problem(path, error.message, hint)]


SHOWN_CHARS = 40  # a value longer than this is cut in a message, and its length given


def shown(value: Any) -> str:
    """`value` as a message quotes it (repr), cut to SHOWN_CHARS: one line, never a page."""
    text = repr(value)
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[: SHOWN_CHARS - 1]}… ({len(str(value))} characters)"


def _properties(schema: Any) -> dict[str, Any]:
    """The properties a (possibly $ref'd) object schema allows."""
    resolved = _resolve(schema)
    return dict(resolved.get("properties", {}))


def _resolve(schema: Any) -> dict[str, Any]:
    """Follow a $ref into common.json (or within it), keeping sibling keywords."""
    if not isinstance(schema, dict):
        return {}
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    pointer = ref.split("#", 1)[1]
    target: Any = load(COMMON)
    for part in pointer.strip("/").split("/"):
        target = target[part]
    merged = {**_resolve(target), **{k: v for k, v in schema.items() if k != "$ref"}}
    if "properties" in schema and "properties" in target:
        merged["properties"] = {**target["properties"], **schema["properties"]}
    return merged


def _indent_hint(key: str, fields: dict[str, Any]) -> str:
    """Where `key` belongs when it is a field of one of the sections beside it (`command:`
    written at the top level instead of under `environment:`): a dedented line."""
    sections = [name for name, schema in fields.items() if key in _properties(schema)]
    if not sections:
        return ""
    names = " or ".join(sections)
    return f"a field of {names}: indent it under {names}"


def did_you_mean(word: str, options: list[str]) -> str:
    def folded(text: str) -> str:
        return text.lower().replace("_", "").replace("-", "")

    for option in options:
        if folded(option) == folded(word):
            return f"did you mean {option!r}?"
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    return f"allowed: {', '.join(options)}" if options else ""


def _type_message(value: Any, expected: str | list[str]) -> str:
    wanted = [expected] if isinstance(expected, str) else list(expected)
    names = " or ".join(_SCHEMA_TYPES.get(t, t) for t in wanted)
    got = _JSON_TYPES.get(type(value), type(value).__name__)
    shown = f" {value!r}" if not isinstance(value, dict | list | None) else ""
    return f"expected {names}, got {got}{shown}"


def _type_hint(value: Any, expected: str | list[str], hint: str) -> str:
    wanted = [expected] if isinstance(expected, str) else list(expected)
    if isinstance(value, str) and ("integer" in wanted or "number" in wanted):
        try:
            float(value)
        except ValueError:
            return hint
        return "remove the quotes"
    if value is None:
        return "the field is empty: give it a value or remove it"
    if "string" in wanted and isinstance(value, int | float | bool):
        return "put quotes around it"
    return hint


def fill_defaults(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` with the schema's `default`s filled in where a field is absent."""
    result = copy.deepcopy(data)
    _fill(result, load(name))
    return result


def _fill(data: Any, schema: Any) -> None:
    resolved = _resolve(schema)
    if isinstance(data, dict):
        for key, sub in resolved.get("properties", {}).items():
            sub_resolved = _resolve(sub)
            if key not in data and "default" in sub_resolved:
                data[key] = copy.deepcopy(sub_resolved["default"])
            if key in data:
                _fill(data[key], sub_resolved)
        extra = resolved.get("additionalProperties")
        if isinstance(extra, dict):
            known = resolved.get("properties", {})
            for key, value in data.items():
                if key not in known:
                    _fill(value, extra)
    elif isinstance(data, list) and "items" in resolved:
        for item in data:
            _fill(item, resolved["items"])


def bundle(name: str) -> dict[str, Any]:
    """Schema `name` with the shared definitions inlined: one self-contained file for editors."""
    text = json.dumps(load(name)).replace(f'"{_COMMON_REF}/$defs/', '"#/$defs/')
    schema: dict[str, Any] = json.loads(text)
    schema = {"$id": _BASE + name, **schema}
    schema["$defs"] = {**load(COMMON)["$defs"], **schema.get("$defs", {})}
    return schema
