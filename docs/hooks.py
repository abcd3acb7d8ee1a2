"""MkDocs hook: the reference pages are generated when the site is built, from the code itself.

A page holds a marker comment where a generated part goes:

- `<!-- gpuctl:commands -->` every command's `--help`, as click prints it;
- `<!-- gpuctl:fields -->` every spec field of every kind, from the JSON Schemas;
- `<!-- gpuctl:endpoints -->` every REST endpoint, from the API's OpenAPI document;
- `<!-- gpuctl:layout -->` every package and module of gpuctl, from their docstrings.

So the reference cannot drift from the code: a command, field, endpoint or module that moves or
changes shows up changed in the next build.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 100


def command_paths(
    command: click.Command, ctx: click.Context
) -> Iterator[tuple[click.Command, click.Context]]:
    """Every command under `command` (itself first), each with the context click gives it."""
    yield command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            child = command.get_command(ctx, name)
            if child is not None and not child.hidden:
                child_ctx = click.Context(child, info_name=name, parent=ctx)
                yield from command_paths(child, child_ctx)


def commands() -> str:
    from gpuctl.cli.main import cli

    root = click.Context(cli, info_name="gpuctl", terminal_width=WIDTH, max_content_width=WIDTH)
    parts = []
    for command, ctx in command_paths(cli, root):
        parts.append(f"## `{ctx.command_path}`\n\n```text\n{command.get_help(ctx)}\n```")
    return "\n\n".join(parts)


def fields() -> str:
    from gpuctl.spec import reference

    return reference.section()


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _schema_name(node: dict[str, Any]) -> str:
    ref = node.get("$ref") or node.get("items", {}).get("$ref") or ""
    if ref:
        name = str(ref).rsplit("/", 1)[-1]
        return f"`{name}`" if "$ref" in node else f"list of `{name}`"
    return _cell(node.get("type", ""))


def _endpoint(path: str, method: str, operation: dict[str, Any]) -> str:
    lines = [f"### `{method.upper()} {path}`", ""]
    if operation.get("summary"):
        lines += [f"**{operation['summary']}**", ""]
    if operation.get("description"):
        lines += [operation["description"].strip(), ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["| parameter | in | required | meaning |", "|---|---|---|---|"]
        for parameter in parameters:
            lines.append(
                f"| `{parameter['name']}` | {parameter['in']} | "
                f"{'yes' if parameter.get('required') else ''} | "
                f"{_cell(parameter.get('description', ''))} |"
            )
        lines.append("")
    body = operation.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        lines += [f"Body: `{media}` {_schema_name(content.get('schema', {}))}", ""]
    lines += ["| answer | meaning | body |", "|---|---|---|"]
    for code, answer in operation.get("responses", {}).items():
        contents: list[dict[str, Any]] = list(answer.get("content", {}).values())
        schema = contents[0].get("schema", {}) if contents else {}
        lines.append(
            f"| {code} | {_cell(answer.get('description', ''))} | {_schema_name(schema)} |"
        )
    return "\n".join(lines)


def endpoints() -> str:
    from gpuctl.server.app import create_app

    document = create_app(None, None).openapi()  # type: ignore[arg-type]  # an app for its docs
    parts = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            parts.append(_endpoint(path, method, operation))
    return "\n\n".join(parts)


def _summary(source: Path) -> str:
    docstring = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    return _cell(docstring.split("\n\n", 1)[0]) or "—"


def layout() -> str:
    package_root = ROOT / "gpuctl"
    parts = []
    for init in sorted(package_root.rglob("__init__.py")):
        package = init.parent
        name = package.relative_to(ROOT).as_posix()
        lines = [
            f"### `{name}/`",
            "",
            _summary(init),
            "",
            "| module | what it holds |",
            "|---|---|",
        ]
        for module in sorted(package.glob("*.py")):
            if module.name != "__init__.py":
                lines.append(f"| `{module.name}` | {_summary(module)} |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


GENERATED: dict[str, Callable[[], str]] = {
    "<!-- gpuctl:commands -->": commands,
    "<!-- gpuctl:fields -->": fields,
    "<!-- gpuctl:endpoints -->": endpoints,
    "<!-- gpuctl:layout -->": layout,
}


def expand(markdown: str) -> str:
    """`markdown` with each marker replaced by the part it names."""
    for marker, generate in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return markdown


def on_page_markdown(markdown: str, **_: Any) -> str:
    return expand(markdown)
