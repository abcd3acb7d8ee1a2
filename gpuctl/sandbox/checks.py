"""Defaulting and validation of an object on its way in: the kind's defaults (or its CRD's),
its schema, unknown fields (refused, warned about or dropped, as fieldValidation asks), its name
and labels, and the checks that hold for its type."""

from __future__ import annotations

import re
from typing import Any

from gpuctl.sandbox import cel, defaults, validation
from gpuctl.sandbox.errors import Cause, bad_request, invalid
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.store import Obj


class ObjectChecks:
    def __init__(self, kubernetes_version: str) -> None:
        self.validator = validation.schema_validator(kubernetes_version)
        self.crd_validator = validation.CrdValidator()

    def prepare(self, res: Resource, obj: Obj, uid: str, creating: bool = True) -> None:
        if res.crd_schema is not None:
            defaults.schema_defaults(res.crd_schema, obj)
        else:
            defaults.apply_defaults(res.kind, obj, uid, creating)

    def validate(
        self,
        res: Resource,
        obj: Obj,
        field_validation: str,
        warnings: list[str] | None,
        more: list[Cause] | None = None,
        subresource: str = "",
    ) -> None:
        meta = obj["metadata"]
        name = meta.get("name", "")
        if res.crd_schema is None:
            unknown, causes, type_errors = self.validator.check(obj)
        else:
            unknown, causes = self.crd_validator.check(res.crd_schema, obj, subresource)
            causes += cel.causes(res.crd_schema, obj, schema_ok=not causes, rules=not subresource)
            type_errors = []
        if type_errors:
            raise bad_request(
                f'{res.kind} in version "{res.version}" cannot be handled as a {res.kind}: '
                + type_errors[0]
            )
        if unknown and field_validation != "Ignore":
            unknown_text = ", ".join(f'unknown field "{u}"' for u in sorted(unknown))
            if field_validation == "Strict":
                raise bad_request(
                    f'{res.kind} in version "{res.version}" cannot be handled as a {res.kind}: '
                    f"strict decoding error: {unknown_text}"
                )
            if warnings is not None:
                warnings.extend(f'unknown field "{u}"' for u in sorted(unknown))
        if unknown:
            prune(obj, unknown)
        causes = validation.validate_name(res.kind, name) + causes
        causes += validation.validate_labels(meta.get("labels"), "metadata.labels")
        causes += validation.type_causes(res, obj)
        causes += more or []
        if causes:
            raise invalid(res, name, causes)


def prune(obj: Obj, unknown: list[str]) -> None:
    """Drop unknown fields, as decoding into the typed object does."""
    for path in unknown:
        parts: list[Any] = []
        for piece in path.split("."):
            m = re.fullmatch(r"([^\[]*)((?:\[\d+\])*)", piece)
            if not m:
                parts.append(piece)
                continue
            if m.group(1):
                parts.append(m.group(1))
            parts.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
        cur: Any = obj
        for part in parts[:-1]:
            try:
                cur = cur[part]
            except (KeyError, IndexError, TypeError):
                cur = None
                break
        if isinstance(cur, dict):
            cur.pop(parts[-1], None)
