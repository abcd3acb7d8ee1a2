"""The README stays true: its test command is CI's, its field tables match the schemas, and
every command has an example."""

from __future__ import annotations

import re

from gpuctl.cli.main import cli
from gpuctl.spec import reference

from .conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def _bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README, re.S)


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


def test_make_run_is_the_first_setup_command_after_the_install() -> None:
    makefile = (REPO / "Makefile").read_text()
    recipe = makefile.split("\nrun: install", 1)[1].split("\n", 2)[1]
    as_typed = recipe.strip().replace("$(BIN)", ".venv/bin").replace("$$", "$")
    assert INSTALL + as_typed == setup_commands()[0]


def test_field_reference_is_generated_from_the_schemas() -> None:
    assert reference.section() in README, "run `make readme`"


def test_every_command_has_an_example() -> None:
    examples = "\n".join(_bash_blocks())
    for name in cli.list_commands(None):  # type: ignore[arg-type]
        assert f"gpuctl {name}" in examples, name
