"""Checking user documents: each one's kind looked up, its schema checked and its defaults
filled in; every problem of every document reported at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl.errors import Problem, SpecError
from gpuctl.spec import kinds, schema
from gpuctl.spec.document import Document
from gpuctl.spec.kinds import Kind


@dataclass
class Spec:
    """A user document that passed its schema: its kind and its defaulted data."""

    document: Document
    kind: Kind
    data: dict[str, Any]


def check_documents(documents: Sequence[Document]) -> list[Spec]:
    """Kind lookup, schema check and defaults for every document; all problems at once."""
    specs, problems = check_each(documents)
    if problems:
        raise SpecError(problems)
    return specs


def check_each(documents: Sequence[Document]) -> tuple[list[Spec], list[Problem]]:
    """The specs of the documents that pass, and the problems of those that do not."""
    specs: list[Spec] = []
    problems: list[Problem] = []
    for document in documents:
        kind, kind_problems = _kind_of(document)
        problems += kind_problems
        if kind is None:
            continue
        schema_problems = schema.check(kind.schema, document)
        if schema_problems:
            problems += schema_problems
            continue
        specs.append(Spec(document, kind, schema.fill_defaults(kind.schema, document.data)))
    return specs, problems


def _kind_of(document: Document) -> tuple[Kind | None, list[Problem]]:
    data = document.data
    if not isinstance(data, dict):
        got = "a list" if isinstance(data, list) else f"{data!r}"
        return None, [document.problem((), f"expected a mapping (kind: …, version: …), got {got}")]
    options = kinds.spellings()
    if "kind" not in data:
        return None, [
            document.problem(
                ("kind",), "required field is missing", f"one of: {', '.join(options)}"
            )
        ]
    spelling = data["kind"]
    kind = kinds.lookup(spelling) if isinstance(spelling, str) else None
    if kind is None:
        hint = schema.did_you_mean(str(spelling), options)
        return None, [document.problem(("kind",), f"unknown kind {spelling!r}", hint)]
    return kind, []
