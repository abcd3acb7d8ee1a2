"""Checking user documents: each one's kind looked up, its schema checked and its defaults
filled in; every problem of every document reported at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl.errors import Problem, SpecError
from gpuctl.spec import chips, host_paths, kinds, schema
from gpuctl.spec.document import Document, display_name, expand_paths, load_each_file
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


def spec_warnings(document: Document) -> list[Problem]:
    """What create, apply and validate warn about in a spec without refusing it: an image or
    command for another vendor's chips (gpuctl.spec.chips) and workdirs on sensitive host
    paths (gpuctl.spec.host_paths)."""
    return chips.chip_problems(document) + host_paths.host_path_problems(document)


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


def load_specs(
    paths: Sequence[str], later_problems: Callable[[list[Spec]], list[Problem]] | None = None
) -> list[Spec]:
    """The checked specs of every file. When anything is wrong, every problem of every file
    is reported at once, as `gpuctl validate` reports them: a file that is not YAML does not
    hide the schema problems of the others, nor what `later_problems` finds of the specs that
    passed (rendering them: a name too long once prefixed)."""
    files = expand_paths(paths)
    documents, problems = load_each_file(files)
    specs, check_problems = check_each(documents)
    problems += check_problems
    if problems:
        if later_problems is not None:
            problems += later_problems(specs)
        order = {display_name(name): index for index, name in enumerate(files)}
        raise SpecError(sorted(problems, key=lambda p: order.get(p.file, len(order))))
    return specs
