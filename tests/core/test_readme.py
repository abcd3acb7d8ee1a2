"""The README and the docs site stay true: the README's test command is CI's, the site builds
with every link and anchor resolving, every command shown (README and docs pages) exists with
the flags it is shown with, every spec field shown exists, and every command has an example."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from gpuctl.cli.main import cli
from gpuctl.spec import kinds, reference

from .conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = REPO / "docs"
PAGES: dict[str, str] = {"README.md": README} | {
    path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
    for path in sorted(DOCS.rglob("*.md"))
}


def _blocks(language: str) -> Iterator[tuple[str, str]]:
    """(page, block) for every fenced block of `language` on every page."""
    for page, text in PAGES.items():
        for block in re.findall(rf"^\s*```{language}\n(.*?)^\s*```", text, re.S | re.M):
            yield page, block


def _bash_blocks() -> list[str]:
    return [block for _, block in _blocks("bash")]


INSTALL = "python3 -m venv .venv && .venv/bin/pip install -q . && "


def setup_commands() -> list[str]:
    """The commands of the README's `## Set up` section, in order."""
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", setup, re.S)


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_second() -> None:
    commands = setup_commands()
    assert len(commands) == 2
    assert commands[0].startswith(INSTALL)
    assert "gpuctl apply -f examples/" in commands[0] and commands[0].endswith("gpuctl get jobs")
    ci = (REPO / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_the_install_guide_gives_the_readmes_setup_commands_and_apt_list() -> None:
    guide = PAGES["docs/guides/install.md"].split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"```bash\n(.*?)\n```", guide, re.S) == setup_commands()

    def apt(text: str) -> str:
        found = re.search(r"apt-get install -y ([^`]*)`", text)
        assert found is not None
        return " ".join(found.group(1).split())

    assert apt(guide) == apt(README.split("## Set up", 1)[1])


def test_make_run_is_the_first_setup_command_after_the_install() -> None:
    makefile = (REPO / "Makefile").read_text()
    recipe = makefile.split("\nrun: install", 1)[1].split("\n", 2)[1]
    as_typed = recipe.strip().replace("$(BIN)", ".venv/bin").replace("$$", "$")
    assert INSTALL + as_typed == setup_commands()[0]


def test_readme_links_every_docs_page() -> None:
    for page in PAGES:
        if page.startswith("docs/") and page != "docs/index.md":
            assert f"]({page})" in README, page


def test_the_docs_home_and_the_sites_nav_list_every_page() -> None:
    pages = [page.removeprefix("docs/") for page in PAGES if page.startswith("docs/")]
    listed = [page for page in pages if page != "index.md"]
    home = PAGES["docs/index.md"]
    assert [page for page in listed if f"]({page})" not in home] == []
    site = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)$", site.split("\nnav:", 1)[1], re.M)
    assert sorted(nav) == sorted(pages)


def test_every_command_has_an_example() -> None:
    examples = "\n".join(_bash_blocks())
    for name in cli.list_commands(None):  # type: ignore[arg-type]
        assert f"gpuctl {name}" in examples, name


# --- every command shown exists, with its flags -------------------------------------------


def _shown_commands() -> Iterator[tuple[str, list[str]]]:
    """(page, words after `gpuctl`) of every gpuctl command in a bash block or after `$ `."""
    lines = [(page, line) for page, block in _blocks("bash") for line in block.splitlines()]
    lines += [
        (page, line.split("$ ", 1)[1])
        for language in ("text", "console")
        for page, block in _blocks(language)
        for line in block.splitlines()
        if line.lstrip().startswith("$ ")
    ]
    for page, line in lines:
        code = re.sub(r"(^|\s)#(\s.*)?$", "", line).replace("…", "")  # a trailing comment
        for words in _simple_commands(code):
            if words and re.fullmatch(r"(\S*/)?gpuctl", words[0]):
                yield page, words[1:]


OPERATORS = {"|", "||", "&", "&&", ";", "(", ")", "<", ">", ">>"}


def _simple_commands(code: str) -> Iterator[list[str]]:
    """The commands of a shell line: split at pipes, `&&`, `;`, and out of `"$(...)"`."""
    lexer = shlex.shlex(code, posix=True, punctuation_chars=True)
    lexer.wordchars += "$*.=/:~,@[]{}%+"
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote in a shortened example
        tokens = code.split()
    words: list[str] = []
    for token in [*tokens, ";"]:
        if token.startswith("$(") and token.endswith(")"):
            yield from _simple_commands(token[2:-1])
        elif token in OPERATORS or set(token) <= set("|&;()<>"):
            while words and ("=" in words[0] and not words[0].startswith("-")):
                words = words[1:]  # VAR=value before the command
            if words and words[0] in ("eval", "exec", "time"):
                words = words[1:]
            yield words
            words = []
        else:
            words.append(token)


def _option_names(command: click.Command, ctx: click.Context) -> set[str]:
    names = {"--help"}
    for parameter in command.get_params(ctx):
        if isinstance(parameter, click.Option):
            names.update(parameter.opts + parameter.secondary_opts)
    return names


def _check_command(words: list[str]) -> str | None:
    """What is wrong with `gpuctl WORDS`, or None."""
    command: click.Command = cli
    ctx = click.Context(cli, info_name="gpuctl")
    allowed = _option_names(cli, ctx)
    path = ["gpuctl"]
    for word in words:
        flag = word.split("=", 1)[0]
        if word.startswith("-") and len(word) > 1:
            if flag not in allowed and not _short_bundle(flag, allowed):
                return f"{' '.join(path)}: no option {flag}"
        elif isinstance(command, click.Group) and not _is_value(words, word, command, ctx):
            child = command.get_command(ctx, word)
            if child is None:
                return f"{' '.join(path)}: no command {word!r}"
            command, ctx = child, click.Context(child, info_name=word, parent=ctx)
            allowed |= _option_names(child, ctx)  # a parent's options may come after
            path.append(word)
    return None


def _short_bundle(flag: str, allowed: set[str]) -> bool:
    return flag[1] != "-" and len(flag) > 2 and flag[:2] in allowed  # -n team-a as -nteam-a


def _is_value(words: list[str], word: str, command: click.Command, ctx: click.Context) -> bool:
    """Whether `word` is the value of the option just before it (`--context prod get jobs`)."""
    index = words.index(word)
    if index == 0 or not words[index - 1].startswith("-") or "=" in words[index - 1]:
        return False
    taking = {
        opt
        for name_ctx in _contexts(ctx)
        for parameter in name_ctx.command.get_params(name_ctx)
        if isinstance(parameter, click.Option) and not parameter.is_flag
        for opt in parameter.opts
    }
    return words[index - 1] in taking


def _contexts(ctx: click.Context) -> Iterator[click.Context]:
    current: click.Context | None = ctx
    while current is not None:
        yield current
        current = current.parent


def test_every_command_shown_exists_with_its_flags() -> None:
    shown = list(_shown_commands())
    assert len(shown) > 100  # the guides show many
    problems = [
        f"{page}: gpuctl {' '.join(words)}: {problem}"
        for page, words in shown
        if (problem := _check_command(words)) is not None
    ]
    assert problems == []


def test_a_misspelt_command_or_flag_is_caught() -> None:
    assert _check_command(["get", "jbos"]) == "gpuctl get: no command 'jbos'"
    assert _check_command(["get", "jobs", "--pool", "p", "--pods"]) is None
    assert _check_command(["get", "jobs", "--poool", "p"]) == "gpuctl get jobs: no option --poool"
    assert _check_command(["--context", "prod", "-n", "a", "get", "jobs"]) is None


# --- every spec field shown exists ---------------------------------------------------------


def _pattern(kind: kinds.Kind) -> re.Pattern[str]:
    paths = [
        re.sub(r"<[^>]*>", r"[^.\\[\\]]+", re.escape(path).replace(r"\<", "<").replace(r"\>", ">"))
        for path in reference.paths(kind)
    ]
    return re.compile("|".join(f"(?:{path})" for path in ["kind", "version", *paths]))


PATTERNS = {name: _pattern(kind) for name, kind in kinds.KINDS.items()}
SECTIONS = {
    path.split(".")[0].split("[")[0]
    for kind in kinds.KINDS.values()
    for path in reference.paths(kind)
}


def _paths(node: Any, prefix: str = "") -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path
            yield from _paths(value, path)
    elif isinstance(node, list):
        for item in node:
            yield from _paths(item, f"{prefix}[]")


def _spec_blocks() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(page, kind or "", document) of every YAML block that is a spec or a part of one."""
    for page, block in _blocks("yaml"):
        for document in yaml.safe_load_all(block):
            if not isinstance(document, dict) or "apiVersion" in document:
                continue  # a Kubernetes object, not a spec
            found = kinds.lookup(str(document["kind"])) if "kind" in document else None
            if found is not None:
                yield page, found.name, document
            elif "kind" not in document and set(document) <= SECTIONS:
                yield page, "", document


def _unknown_fields(kind: str, document: dict[str, Any]) -> list[str]:
    patterns = [PATTERNS[kind]] if kind else list(PATTERNS.values())
    return [
        path
        for path in _paths(document)
        if not any(pattern.fullmatch(path) for pattern in patterns)
    ]


def test_every_spec_field_shown_exists() -> None:
    shown = list(_spec_blocks())
    assert len(shown) >= 5
    problems = [
        f"{page}: {path}"
        for page, kind, document in shown
        for path in _unknown_fields(kind, document)
    ]
    assert problems == []


def test_a_misspelt_field_is_caught() -> None:
    assert _unknown_fields("training", {"resources": {"gpu_type": "A100"}}) == [
        "resources.gpu_type"
    ]
    assert _unknown_fields("", {"storage": {"workdirs": [{"path": "/x", "type": "file"}]}}) == []
    assert _unknown_fields("quota", {"users": {"alice": {"gpu": 1}}}) == []


# --- the site ------------------------------------------------------------------------------


def test_docs_cite_no_internal_documents() -> None:
    internal = re.compile(r"(?<!-)\bseeds?\b|SPEC\.md|\bSPEC section|\bissue #?\d+", re.I)
    assert [page for page, text in PAGES.items() if internal.search(text)] == []


def test_docs_build_strict_with_generated_references(tmp_path: Path) -> None:
    """`mkdocs build --strict`: a broken link or anchor fails it; the reference pages come out
    generated from the commands, the schemas and the OpenAPI document."""
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert built.returncode == 0, built.stderr
    commands = (site / "reference" / "commands" / "index.html").read_text()
    assert "gpuctl get jobs" in commands and "--prometheus-url" in commands
    fields = (site / "reference" / "fields" / "index.html").read_text()
    assert "storage.workdirs[].path" in fields and "gpuctl:fields" not in fields
    endpoints = (site / "reference" / "endpoints" / "index.html").read_text()
    assert "/api/v1/jobs" in endpoints and 'id="shape-errorbody"' in endpoints
    layout = (site / "design" / "layout" / "index.html").read_text()
    assert "gpuctl/verbs/" in layout
    marker = re.compile(r"&lt;!-- not run: (?!REASON)")  # the convention's own name is shown
    shown = [page for page in site.rglob("*.html") if marker.search(page.read_text())]
    assert shown == []  # a shell block's not-run marker (test_doc_commands) stays a comment


def test_the_docs_extra_is_what_the_site_build_needs_and_the_tests_have_it() -> None:
    """`pip install -e '.[docs]'` is enough for `mkdocs build --strict` (the theme brings the
    pymdownx extensions), and the test extra carries the same, as the build above runs in it."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    docs = extras["optional-dependencies"]["docs"]
    assert {re.split(r"[<>=]", d)[0] for d in docs} == {"mkdocs", "mkdocs-material"}
    assert set(docs) <= set(extras["optional-dependencies"]["test"])
    site = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    assert site["theme"]["name"] == "material"
    assert "plugins" not in site  # only the built-in search: another plugin joins the extra
    extensions = [e if isinstance(e, str) else next(iter(e)) for e in site["markdown_extensions"]]
    assert {e.split(".")[0] for e in extensions} <= {
        "admonition",
        "attr_list",
        "tables",
        "toc",
        "pymdownx",
    }


@pytest.mark.parametrize("marker", ["commands", "fields", "endpoints", "layout"])
def test_each_generated_part_has_a_page(marker: str) -> None:
    assert any(f"<!-- gpuctl:{marker} -->" in text for text in PAGES.values())
