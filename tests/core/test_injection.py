"""No user string can reshape the rendered YAML, whatever characters it holds.

Arbitrary Unicode goes into every user string field. Either the spec is rejected with a clean
SpecError (fields with a format: names, paths, images), or the value comes back exactly, at
exactly the places a plain marker value would stand, and nothing else in the output changes.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gpuctl.errors import SpecError
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options

MARKER = "zz-marker-zz"

WORKLOAD = {
    "version": "v0.1",
    "job": {"name": "job-a", "description": "about"},
    "environment": {
        "image": "img:1",
        "command": ["run"],
        "args": ["--x"],
        "env": [{"name": "E", "value": "v"}],
    },
    "resources": {"cpu": 1, "memory": "1Gi", "gpu": 1, "gpu-type": "A100", "pool": "p"},
    "storage": {"workdirs": [{"path": "/data"}]},
}
SPECS: dict[str, dict[str, Any]] = {
    "training": {"kind": "training", **WORKLOAD},
    "inference": {"kind": "inference", **WORKLOAD, "service": {"health_check": "/health"}},
    "notebook": {"kind": "notebook", **WORKLOAD},
    "compute": {"kind": "compute", **WORKLOAD},
    "pool": {
        "kind": "pool",
        "version": "v0.1",
        "metadata": {"name": "p", "description": "about"},
        "nodes": {"node-1": {"gpu-type": "A100"}},
    },
    "quota": {
        "kind": "quota",
        "version": "v0.1",
        "metadata": {"name": "q", "description": "about"},
        "users": {"alice": {"cpu": 1, "memory": "1Gi", "gpu": 0}},
    },
}
# Fields of free text: these must always render. Every other string field has a format and may
# also be refused, cleanly.
FREE_TEXT = {
    ("job", "description"),
    ("environment", "command", 0),
    ("environment", "args", 0),
    ("environment", "env", 0, "value"),
    ("metadata", "description"),
}
FIELDS: list[tuple[str, tuple[Any, ...]]] = [
    (kind, path)
    for kind in ("training", "inference", "notebook", "compute")
    for path in [
        ("job", "description"),
        ("job", "name"),
        ("environment", "image"),
        ("environment", "command", 0),
        ("environment", "args", 0),
        ("environment", "env", 0, "value"),
        ("resources", "gpu-type"),
        ("resources", "pool"),
        ("storage", "workdirs", 0, "path"),
        *([("service", "health_check")] if kind == "inference" else []),
    ]
] + [
    ("pool", ("metadata", "description")),
    ("pool", ("nodes", "node-1", "gpu-type")),
    ("quota", ("metadata", "description")),
]

# Everything that has broken YAML emitters before: line breaks (also U+0085/2028/2029), `: `,
# `- `, `#`, braces, Jinja syntax, YAML 1.1 booleans, octal-looking numbers, null, quotes,
# backslashes and control characters, mixed with any other Unicode.
NASTY = st.sampled_from(
    [
        "\n",
        "\r\n",
        "\r",
        ": ",
        "- ",
        "#",
        "{{",
        "}}",
        "{%",
        "yes",
        "no",
        "on",
        "0755",
        "null",
        "~",
        "'",
        '"',
        "\\",
        "\t",
        "\x00",
        "\x1b",
        "\x7f",
        "\x85",
        "\u2028",
        "\u2029",
        "\ufeff",
        "---",
        "...",
        "&a",
        "*a",
        "!!str",
        "|",
        ">",
        "[",
        "]",
        ",",
        "%",
        "@",
        "`",
    ]
)
TEXT = st.lists(st.one_of(NASTY, st.text(min_size=1, max_size=5)), min_size=1, max_size=8).map(
    "".join
)


def _set(data: dict[str, Any], path: tuple[Any, ...], value: str) -> dict[str, Any]:
    result = copy.deepcopy(data)
    target: Any = result
    for part in path[:-1]:
        target = target[part]
    if path[:1] == ("nodes",) and len(path) == 2:  # the node name itself is a key
        target[value] = target.pop(path[-1])
    else:
        target[path[-1]] = value
    return result


def _render(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Through the whole pipeline: YAML text in, the printed YAML text parsed back out."""
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    if yaml.safe_load(text) != data:  # PyYAML's emitter writes some line breaks raw; escape all
        text = yaml.safe_dump(data, allow_unicode=False, sort_keys=False)
    documents = load_text("spec.yaml", text)
    assert documents[0].data == data, "the test's own YAML did not round-trip"
    output = engine.to_yaml(engine.render_documents(documents, Options()))
    return list(yaml.safe_load_all(output))


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


def _replace(value: Any, old: str, new: str, *, substrings: bool = False) -> Any:
    if isinstance(value, dict):
        return {
            _replace(k, old, new, substrings=substrings): _replace(
                v, old, new, substrings=substrings
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_replace(item, old, new, substrings=substrings) for item in value]
    if isinstance(value, str) and substrings:
        return value.replace(old, new)
    return new if value == old else value


@pytest.mark.parametrize(("kind", "path"), FIELDS, ids=lambda x: str(x))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=TEXT)
def test_user_strings_cannot_reshape_output(kind: str, path: tuple[Any, ...], value: str) -> None:
    base = SPECS[kind]
    marker = "/" + MARKER if path[-1] in ("path", "health_check") else MARKER
    baseline = _render(_set(base, path, marker))
    baseline_strings = _strings(baseline)
    assume(value not in baseline_strings and MARKER not in value)
    # The job name also stands inside derived names (svc-<name>, <name>-0.<name>), and a
    # pool node's GPU type inside the pool record's JSON text.
    derived = path in {("job", "name"), ("nodes", "node-1", "gpu-type")}
    if derived:
        assume(not any(value in text for text in baseline_strings))

    try:
        rendered = _render(_set(base, path, value))
    except SpecError as exc:
        assert path not in FREE_TEXT, f"free text was refused: {exc}"
        assert "gpuctl bug" not in str(exc), str(exc)
        return
    found = _strings(rendered)
    assert found.count(value) == baseline_strings.count(marker)
    assert derived or found.count(value) >= 1
    assert _replace(rendered, value, marker, substrings=derived) == baseline


def test_quote_filter_output_is_one_yaml_scalar() -> None:
    for text in ["a\nb: c", "- x", "# y", "{{ z }}", "yes", "0755", "null", "\x85\u2028", '"\\']:
        quoted = engine.quote(text)
        assert "\n" not in quoted
        assert yaml.safe_load(f"key: {quoted}\n") == {"key": text}
