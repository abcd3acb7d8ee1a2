"""MkDocs hook: the reference pages are generated when the site is built, from the code itself.

A page holds a marker comment where a generated part goes:

- `<!-- gpuctl:commands -->` every command's `--help`, as click prints it;
- `<!-- gpuctl:fields -->` every spec field of every kind, from the JSON Schemas;
- `<!-- gpuctl:endpoints -->` every REST endpoint, from the API's OpenAPI document;
- `<!-- gpuctl:layout -->` every package and module of gpuctl, from their docstrings;
- `<!-- gpuctl:accelerators -->` the accelerator catalog and each vendor's resource names, node
  labels and exporter, from gpuctl.spec.accelerators.

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
    """A schema as a type: a link to a named shape, a list of one, or the JSON type (`or
    null` when the value may be null)."""
    if node.get("nullable"):
        return f"{_schema_name({**node, 'nullable': False})} or null"
    if len(node.get("allOf", [])) == 1:  # a $ref with siblings, in OpenAPI 3.0
        return _schema_name(node["allOf"][0])
    ref = node.get("$ref") or node.get("items", {}).get("$ref") or ""
    if ref:
        name = str(ref).rsplit("/", 1)[-1]
        link = f"[`{name}`](#shape-{name.lower()})"
        return link if "$ref" in node else f"list of {link}"
    options = node.get("anyOf") or node.get("oneOf")
    if options:
        return " or ".join(_schema_name(option) for option in options)
    kind = node.get("type", "")
    if kind == "array":
        return f"list of {_schema_name(node.get('items', {}))}"
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return f"mapping to {_schema_name(node['additionalProperties'])}"
    return _cell(kind) or "any"


def _shape(name: str, schema: dict[str, Any]) -> str:
    lines = [f"### `{name}` {{#shape-{name.lower()}}}", ""]
    if schema.get("description"):
        lines += [_cell(schema["description"]), ""]
    needed = set(schema.get("required", []))
    properties = schema.get("properties", {})
    if properties:
        lines += ["| field | type | required | meaning |", "|---|---|---|---|"]
        for field, node in properties.items():
            lines.append(
                f"| `{field}` | {_schema_name(node)} | {'yes' if field in needed else ''} | "
                f"{_cell(node.get('description', ''))} |"
            )
    elif "enum" in schema:
        lines.append("One of " + ", ".join(f"`{value}`" for value in schema["enum"]) + ".")
    return "\n".join(lines)


def _answers(responses: dict[str, Any]) -> list[str]:
    lines = ["| answer | meaning | body |", "|---|---|---|"]
    for code, answer in responses.items():
        contents: list[dict[str, Any]] = list(answer.get("content", {}).values())
        schema = contents[0].get("schema", {}) if contents else {}
        lines.append(
            f"| {code} | {_cell(answer.get('description', ''))} | {_schema_name(schema)} |"
        )
    return lines


def _endpoint(path: str, method: str, operation: dict[str, Any], shared: set[str]) -> str:
    lines = [f"### `{method.upper()} {path}`", ""]
    if operation.get("summary"):
        lines += [f"**{operation['summary']}**", ""]
    if operation.get("operationId"):
        lines += [f"Operation id: `{operation['operationId']}`", ""]
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
    responses = operation.get("responses", {})
    own = {code: answer for code, answer in responses.items() if code not in shared}
    return "\n".join([*lines, *_answers(own), "", "and the [error answers](#error-answers)."])


def endpoints() -> str:
    from gpuctl.server.app import create_app

    document = create_app(None, None).openapi()  # type: ignore[arg-type]  # an app for its docs
    operations = [
        (path, method, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]
    answers = [operation.get("responses", {}) for _, _, operation in operations]
    shared = set.intersection(*(set(responses) for responses in answers)) - {"200", "201", "204"}
    errors = {code: answers[0][code] for code in sorted(shared)}
    header = "\n".join(
        ["## Error answers", "", "Every endpoint may answer these:", "", *_answers(errors)]
    )
    parts = [_endpoint(path, method, operation, shared) for path, method, operation in operations]
    shapes = [_shape(name, schema) for name, schema in document["components"]["schemas"].items()]
    return "\n\n".join([header, "## Endpoints", *parts, "## Shapes", *shapes])


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


def accelerator_tables() -> str:
    from gpuctl.spec import accelerators

    vendors = [
        "| vendor | `accelerators:` key | resource names | node labels | exporter series |",
        "|---|---|---|---|---|",
    ]
    for vendor in accelerators.VENDORS:
        labels = ", ".join(f"`{k}={v}`" if v else f"`{k}`" for k, v in vendor.node_labels)
        exporter = vendor.exporter
        series = (
            f"{exporter.name}: `{exporter.utilization}`, `{exporter.memory_used}`, "
            f"`{exporter.temperature}`"
            if exporter
            else "—"
        )
        names = ", ".join(f"`{name}`" for name in vendor.resources)
        vendors.append(f"| {vendor.title} | `{vendor.key}` | {names} | {labels} | {series} |")
    models = ["| GPU type | also written | vendor | resource |", "|---|---|---|---|"]
    for model in accelerators.CATALOG:
        aliases = ", ".join(f"`{alias}`" for alias in model.aliases) or "—"
        models.append(
            f"| `{model.gpu_type}` | {aliases} | {model.vendor.title} | `{model.resource}` |"
        )
    return "\n".join(vendors) + "\n\n" + "\n".join(models)


GENERATED: dict[str, Callable[[], str]] = {
    "<!-- gpuctl:commands -->": commands,
    "<!-- gpuctl:fields -->": fields,
    "<!-- gpuctl:endpoints -->": endpoints,
    "<!-- gpuctl:layout -->": layout,
    "<!-- gpuctl:accelerators -->": accelerator_tables,
}


def expand(markdown: str) -> str:
    """`markdown` with each marker replaced by the part it names."""
    for marker, generate in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return markdown


def on_page_markdown(markdown: str, **_: Any) -> str:
    return expand(markdown)
