"""The CEL rules of a CRD's schema (x-kubernetes-validations), as the API server checks them
on a custom object's create and update: each rule is evaluated with `self` the value at its
place in the schema (skipped where that value is absent); one that is false is the cause
`<path>: Invalid value: "object": <message>`, the path `<nil>` for a rule on the object
itself. Evaluated with cel-python (celpy), a CEL implementation from PyPI: the rules are the
CRD's, so the sandbox and a real cluster refuse the same workloads with the same words."""

from __future__ import annotations

import functools
from typing import Any

from gpuctl.sandbox.errors import Cause
from gpuctl.sandbox.store import Obj

ROOT = "<nil>"


@functools.lru_cache(maxsize=256)
def _program(rule: str) -> Any:
    import celpy  # only for a CRD with rules: the sandbox starts without it

    environment = celpy.Environment()
    return environment.program(environment.compile(rule))


def _holds(rule: str, value: Any) -> bool:
    from celpy.adapter import json_to_cel

    try:
        return bool(_program(rule).evaluate({"self": json_to_cel(value)}))
    except Exception:  # a rule that cannot be evaluated on this value refuses it
        return False


NOT_CHECKED = (
    "some validation rules were not checked because the object was invalid; correct the "
    "existing errors to complete validation"
)


def has_rules(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "x-kubernetes-validations" in schema or any(has_rules(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_rules(v) for v in schema)
    return False


def causes(schema: Obj, obj: Obj, *, schema_ok: bool, rules: bool) -> list[Cause]:
    """What the API server adds to a custom object's schema errors: when the schema has
    rules and the object broke the schema, one cause saying the rules were not checked (a
    status write too); else, with `rules` (not a status write: its spec is unchanged), the
    rules it breaks."""
    if not has_rules(schema):
        return []
    if not schema_ok:
        return [Cause(ROOT, "Invalid value", NOT_CHECKED, "null")]  # quoted, as the real one
    return check(schema, obj) if rules else []


def check(schema: Obj, obj: Obj) -> list[Cause]:
    """The causes of the rules `obj` breaks, in schema order."""
    causes: list[Cause] = []
    _walk(schema, obj, "", causes)
    return causes


def _walk(schema: Obj, value: Any, path: str, causes: list[Cause]) -> None:
    for rule in schema.get("x-kubernetes-validations") or []:
        if not _holds(str(rule["rule"]), value):
            message = rule.get("message") or f"failed rule: {rule['rule']}"
            causes.append(Cause(path or ROOT, "Invalid value", str(message), "object"))
    if isinstance(value, dict):
        for name, sub in (schema.get("properties") or {}).items():
            if name in value:
                _walk(sub, value[name], f"{path}.{name}" if path else name, causes)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _walk(schema["items"], item, f"{path}[{index}]", causes)
