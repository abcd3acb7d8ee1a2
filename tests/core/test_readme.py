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


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_second() -> None:
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", setup, re.S)
    assert len(commands) == 2
    assert "gpuctl render -f examples/" in commands[0]
    ci = (REPO / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_field_reference_is_generated_from_the_schemas() -> None:
    assert reference.section() in README, "run `make readme`"


def test_every_command_has_an_example() -> None:
    examples = "\n".join(_bash_blocks())
    for name in cli.list_commands(None):  # type: ignore[arg-type]
        assert f"gpuctl {name}" in examples, name
