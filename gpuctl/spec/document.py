"""User YAML in, plain data out, with the line and column of every key and value kept.

PyYAML's C parser composes the node tree (fast); we build the data ourselves from the nodes so
that positions are recorded in the same pass and hostile input stays bounded: alias expansion
is counted (alias bombs), files have a size cap, and timestamps stay the text the user wrote.
"""

from __future__ import annotations

import codecs
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpuctl.constants import (
    MAX_FILE_BYTES,
    MAX_NUMBER_CHARS,
    MAX_YAML_ALIAS_VALUES,
    MAX_YAML_DEPTH,
    MAX_YAML_NODES,
)
from gpuctl.errors import Problem, SpecError

Path_ = tuple[str | int, ...]
STDIN = "-"
STDIN_NAME = "<stdin>"

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_YAML_EXTENSIONS = (".yaml", ".yml")
# Scalars that map onto JSON; anything else (!!binary, !!set, custom tags) is refused.
_COLLECTION_TAGS = frozenset(("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"))
# Everything YAML treats as printable; anything else in a spec is binary junk or a paste error.
_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float"))
_NUMBER_TAGS = frozenset(("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"))


@dataclass
class Document:
    """One YAML document of a user's file."""

    source: str  # the file name as the user gave it, or <stdin>
    index: int  # 0-based position of the document in its file
    line: int  # 1-based line where the document starts
    data: Any
    # path -> (line, column), 1-based: where each value starts, and where each mapping key is.
    values: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    # The text the user wrote for every scalar that YAML did not read as a string ("0755").
    raw: dict[Path_, str] = field(default_factory=dict)
    # The document as the user wrote it: the whole text of a one-document file, else the
    # document's own lines (from its first node to its end).
    text: str = ""

    def position(self, path: Path_, *, key: bool = False) -> tuple[int, int]:
        """The closest known position for `path`: the field itself, else its nearest parent."""
        table = self.keys if key else self.values
        if path in table:
            return table[path]
        for end in range(len(path) - 1, -1, -1):
            if path[:end] in self.values:
                return self.values[path[:end]]
        return (self.line, 1)

    def problem(
        self,
        path: Path_,
        message: str,
        hint: str = "",
        *,
        key: bool = False,
        at: Path_ | None = None,
    ) -> Problem:
        """A problem with `path`, placed at `path` itself (its key when `key`), or at `at`."""
        if at is not None:
            line, column = self.keys.get(at) or self.position(at)
        else:
            line, column = self.position(path, key=key)
        return Problem(self.source, line, column, dotted(path), message, hint)


def dotted(path: Path_) -> str:
    """`("storage", "workdirs", 0, "path")` -> `storage.workdirs[0].path`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def expand_paths(paths: Sequence[str]) -> list[str]:
    """`-f` arguments as kubectl reads them: files, directories (their *.yaml/*.yml, sorted), -."""
    files: list[str] = []
    problems: list[Problem] = []
    for given in paths:
        if given == STDIN:
            files.append(STDIN)
            continue
        path = Path(given)
        if path.is_dir():
            found = sorted(
                str(p) for p in path.iterdir() if p.suffix in _YAML_EXTENSIONS and p.is_file()
            )
            if not found:
                problems.append(
                    Problem(given, None, None, "", "no *.yaml or *.yml files in this directory")
                )
            files.extend(found)
        elif path.exists():
            files.append(given)
        else:
            problems.append(Problem(given, None, None, "", "no such file or directory"))
    if problems:
        raise SpecError(problems)
    return files


def load_files(paths: Sequence[str]) -> list[Document]:
    """Every document of every file; all files' problems are reported together."""
    documents, problems = load_each_file(paths)
    if problems:
        raise SpecError(problems)
    return documents


def load_each_file(paths: Sequence[str]) -> tuple[list[Document], list[Problem]]:
    """The documents of every file that loads, and the problems of those that do not: one
    unreadable or malformed file does not stop the others from being read and checked."""
    documents: list[Document] = []
    problems: list[Problem] = []
    for name in expand_paths(paths):
        try:
            documents.extend(load_text(display_name(name), read_text(name)))
        except SpecError as exc:
            problems.extend(exc.problems)
    return documents, problems


def display_name(name: str) -> str:
    return STDIN_NAME if name == STDIN else name


def read_text(name: str) -> str:
    """The file as text: size-capped, UTF-8 (a BOM is allowed), binary junk refused."""
    shown = display_name(name)
    try:
        if name == STDIN:
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(name, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise SpecError([Problem(shown, None, None, "", f"cannot read: {exc.strerror}")]) from exc
    if len(data) > MAX_FILE_BYTES:
        raise SpecError(
            [Problem(shown, None, None, "", f"file is larger than {MAX_FILE_BYTES} bytes")]
        )
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or _looks_like_utf16(data):
        raise SpecError([Problem(shown, 1, None, "", "file is UTF-16 text", "save it as UTF-8")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SpecError(
            [
                Problem(
                    shown,
                    line,
                    None,
                    "",
                    f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                    "is this a binary file?",
                )
            ]
        ) from exc
    return text


def _looks_like_utf16(data: bytes) -> bool:
    """UTF-16 without a byte-order mark: ASCII text with a NUL beside every character."""
    head = data[:64]
    return len(head) >= 4 and (
        head[1::2].count(0) > len(head) // 4 or head[0::2].count(0) > len(head) // 4
    )


def check_printable(source: str, text: str) -> None:
    """YAML takes only printable characters; name the first other one and where it is."""
    match = _NON_PRINTABLE.search(text)
    if match is None:
        return
    line = text.count("\n", 0, match.start()) + 1
    column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    raise SpecError(
        [
            Problem(
                source,
                line,
                column,
                "",
                f"control character U+{ord(match.group()):04X} is not allowed in YAML",
                "is this a binary file?",
            )
        ]
    )


def load_text(source: str, text: str) -> list[Document]:
    """Parse every document of one file; empty documents are skipped, as kubectl does."""
    check_printable(source, text)
    loader = yaml.CSafeLoader(text)
    documents: list[Document] = []
    spans: list[tuple[int, int]] = []
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            if node is not None and not _is_empty(node):
                documents.append(_build(source, index, node, loader))
                spans.append((node.start_mark.index, node.end_mark.index))
            index += 1
    except yaml.MarkedYAMLError as exc:
        raise SpecError([_yaml_problem(source, text, exc)]) from exc
    except yaml.YAMLError as exc:  # errors without a position (e.g. reader errors)
        raise SpecError([Problem(source, None, None, "", f"invalid YAML: {exc}")]) from exc
    finally:
        loader.dispose()
    for document, (start, end) in zip(documents, spans, strict=True):
        document.text = text if len(documents) == 1 else text[start:end].rstrip() + "\n"
    if not documents:
        raise SpecError(
            [
                Problem(
                    source,
                    1,
                    1,
                    "",
                    "file holds no spec: it is empty or only comments",
                    "expected a gpuctl spec with kind, version, …",
                )
            ]
        )
    return documents


def _is_empty(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _yaml_problem(source: str, text: str, exc: yaml.MarkedYAMLError) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    message = exc.problem or "invalid YAML"
    if mark is not None and _char_at(text, mark.line, mark.column) == "\t":
        return Problem(
            source,
            mark.line + 1,
            mark.column + 1,
            "",
            "invalid YAML: a tab character here",
            "YAML indentation must use spaces, not tabs",
        )
    if "special characters are not allowed" in message or "unacceptable character" in message:
        return Problem(
            source,
            mark.line + 1 if mark else None,
            mark.column + 1 if mark else None,
            "",
            f"invalid YAML: {message}",
            "is this a binary file?",
        )
    if mark is not None:
        laid_out = _layout_problem(source, text, mark.line, mark.column, message)
        if laid_out is not None:
            return laid_out
    hint = f"{exc.context}" if exc.context else ""
    if hint and exc.context_mark is not None and exc.context_mark is not mark:
        hint += f" at line {exc.context_mark.line + 1}"
    return Problem(
        source,
        mark.line + 1 if mark else None,
        mark.column + 1 if mark else None,
        "",
        f"invalid YAML: {message}",
        hint,
    )


# The parser's words for a line that does not line up with the one above it; it cannot tell
# which of the two is wrong, so the problem names both and the user picks.
_LAYOUT_MESSAGES = (
    "mapping values are not allowed in this context",
    "did not find expected key",
    "did not find expected '-' indicator",
)
_LAYOUT_HINT = (
    "check the indentation of this line against the one above: fields of one section line "
    "up, a section's fields are indented under it"
)


def _layout_problem(source: str, text: str, line: int, column: int, message: str) -> Problem | None:
    """A YAML error caused by indentation (or by an unquoted ': ' in a value) in words a
    person can act on; None when the text does not show either."""
    if message not in _LAYOUT_MESSAGES:
        return None
    lines = text.split("\n")
    here = lines[line] if line < len(lines) else ""
    if message == _LAYOUT_MESSAGES[0] and ": " in here[:column].lstrip(" -"):
        return Problem(
            source,
            line + 1,
            column + 1,
            "",
            "invalid YAML: a second ': ' in this line's value",
            _quoting_hint(here),
        )
    above = _line_above(lines, line)
    if above is None:
        return None
    indent = len(here) - len(here.lstrip(" "))
    above_indent = _fields_column(lines[above], here_is_item=here.lstrip(" ").startswith("-"))
    if indent == above_indent:
        return None
    words = "more" if indent > above_indent else "less"
    return Problem(
        source,
        line + 1,
        indent + 1,
        "",
        f"invalid YAML: this line is indented {words} than line {above + 1} above it "
        f"({indent} space{'' if indent == 1 else 's'} against {above_indent})",
        _LAYOUT_HINT,
    )


def _quoting_hint(line: str) -> str:
    """How to write `line`'s value so that its ': ' is part of it."""
    match = re.match(r"[ -]*(?P<key>[^:#]+?): +(?P<value>.*?)(?: +#.*)?$", line)
    if match is None:
        return "a value that holds ': ' must be quoted"
    value = match["value"]
    quoted = f'"{value}"' if '"' not in value else "'" + value.replace("'", "''") + "'"
    return f"a value that holds ': ' must be quoted: {match['key']}: {quoted}"


def _line_above(lines: list[str], line: int) -> int | None:
    """The index of the nearest line before `line` that holds more than a comment."""
    for index in range(min(line, len(lines)) - 1, -1, -1):
        stripped = lines[index].strip()
        if stripped and not stripped.startswith("#"):
            return index
    return None


def _fields_column(line: str, *, here_is_item: bool) -> int:
    """Where a sibling of `line`'s first field starts: its indentation, past a leading `- `
    (the item's fields line up after the dash) unless the line below is an item itself."""
    indent = len(line) - len(line.lstrip(" "))
    if here_is_item:
        return indent
    match = re.match(r" *(?:- +)*", line)
    return match.end() if match else indent


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n", line + 1)
    if line < len(lines) and column < len(lines[line]):
        return lines[line][column]
    return ""


class _Builder:
    """Turns a composed node tree into data, recording positions, with a node budget."""

    def __init__(self, document: Document, loader: yaml.CSafeLoader) -> None:
        self.document = document
        self.loader = loader
        self.budget = MAX_YAML_NODES
        self.constructors = loader.yaml_constructors
        self.open: set[int] = set()  # collections being built: an alias to one is a cycle
        self.seen: set[int] = set()  # every node built once: one built again is an alias's
        self.aliased = MAX_YAML_ALIAS_VALUES  # values left to build again through aliases
        self.repeating = 0  # > 0 while building inside a node reached again

    def build(self, node: yaml.Node, path: Path_) -> Any:
        if len(path) > MAX_YAML_DEPTH:
            raise SpecError(
                [
                    self.document.problem(
                        path[:MAX_YAML_DEPTH], f"nested more than {MAX_YAML_DEPTH} levels deep"
                    )
                ]
            )
        self.budget -= 1
        if self.budget < 0:
            raise SpecError(
                [
                    self.document.problem(
                        path,
                        f"document expands to more than {MAX_YAML_NODES} values",
                        "too many YAML aliases: an alias bomb?",
                    )
                ]
            )
        again = id(node) in self.seen
        self.seen.add(id(node))
        if again or self.repeating:
            self._count_aliased(path)
        mark = node.start_mark
        self.document.values[path] = (mark.line + 1, mark.column + 1)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        if again:
            self.repeating += 1
            try:
                return self._collection(node, path)
            finally:
                self.repeating -= 1
        return self._collection(node, path)

    def _count_aliased(self, path: Path_) -> None:
        self.aliased -= 1
        if self.aliased < 0:
            raise SpecError(
                [
                    self.document.problem(
                        path,
                        f"YAML aliases expand to more than {MAX_YAML_ALIAS_VALUES} values",
                        "an alias bomb? write the values out, or reuse fewer of them",
                    )
                ]
            )

    def _collection(self, node: yaml.Node, path: Path_) -> Any:
        if node.tag not in _COLLECTION_TAGS:
            raise SpecError(
                [self.document.problem(path, f"unsupported YAML tag {node.tag}", "remove the tag")]
            )
        if id(node) in self.open:
            raise SpecError(
                [
                    self.document.problem(
                        path, "recursive YAML alias", "an alias may not contain itself"
                    )
                ]
            )
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, path)
            return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
        finally:
            self.open.discard(id(node))

    def _mapping(self, node: yaml.MappingNode, path: Path_) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                mark = key_node.start_mark
                raise SpecError(
                    [
                        Problem(
                            self.document.source,
                            mark.line + 1,
                            mark.column + 1,
                            dotted(path),
                            "YAML merge keys (<<) are not supported",
                            "write the fields out",
                        )
                    ]
                )
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(
                    [self.document.problem(path, "a mapping key must be a plain value")]
                )
            key = key_node.value if key_node.tag == _STR else self._scalar(key_node, path)
            if isinstance(key, bool | float) or key is None:
                key = key_node.value  # `yes:`/`1.5:`/`null:` as keys mean their text
            child = (*path, key)
            mark = key_node.start_mark
            if key in result:
                raise SpecError(
                    [
                        Problem(
                            self.document.source,
                            mark.line + 1,
                            mark.column + 1,
                            dotted(child),
                            "duplicate key",
                            "each key may appear once in a mapping",
                        )
                    ]
                )
            self.document.keys[child] = (mark.line + 1, mark.column + 1)
            result[key] = self.build(value_node, child)
        return result

    def _scalar(self, node: yaml.ScalarNode, path: Path_) -> Any:
        if node.tag == _STR:
            return node.value
        self.document.raw[path] = node.value
        if node.tag == "tag:yaml.org,2002:timestamp":
            return node.value  # keep what the user wrote; JSON has no dates
        constructor = self.constructors.get(node.tag) if node.tag in _PLAIN_TAGS else None
        if constructor is None:
            raise SpecError(
                [self.document.problem(path, f"unsupported YAML tag {node.tag}", "remove the tag")]
            )
        if node.tag in _NUMBER_TAGS:
            return self._number(node, path, constructor)
        return constructor(self.loader, node)

    def _number(self, node: yaml.ScalarNode, path: Path_, constructor: Any) -> Any:
        """A YAML int or float, refused when longer than MAX_NUMBER_CHARS (nothing gpuctl
        takes needs more, and converting thousands of digits costs time) or when it is
        .inf or .nan, which JSON and Kubernetes cannot carry."""
        if len(node.value) > MAX_NUMBER_CHARS:
            raise SpecError(
                [
                    self.document.problem(
                        path,
                        f"number is too long ({len(node.value)} characters, "
                        f"at most {MAX_NUMBER_CHARS})",
                        "quote it if it is text",
                    )
                ]
            )
        number = constructor(self.loader, node)
        if isinstance(number, float) and not math.isfinite(number):
            raise SpecError(
                [
                    self.document.problem(
                        path, f"{node.value} is not a finite number", "quote it if it is text"
                    )
                ]
            )
        return number


def _build(source: str, index: int, node: yaml.Node, loader: yaml.CSafeLoader) -> Document:
    document = Document(source, index, node.start_mark.line + 1, None)
    document.data = _Builder(document, loader).build(node, ())
    return document
