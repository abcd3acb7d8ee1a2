"""`--help` explains every option: each has its own text, and --timeout says what it bounds."""

from __future__ import annotations

from collections.abc import Iterator

import click

from gpuctl.cli.main import cli


def _commands(command: click.Command, ctx: click.Context) -> Iterator[tuple[str, click.Command]]:
    """Every command under `command` (lazy ones imported), by its full name."""
    yield ctx.command_path, command
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            child = command.get_command(ctx, name)
            assert child is not None, name
            yield from _commands(child, click.Context(child, parent=ctx, info_name=name))


def _options(name: str) -> Iterator[tuple[str, click.Option]]:
    """Every option called `name` (`*`: every option) of every command, with the command."""
    for path, command in _commands(cli, click.Context(cli, info_name="gpuctl")):
        for param in command.params:
            if isinstance(param, click.Option) and name in (*param.opts, "*"):
                yield path, param


def test_every_option_of_every_command_has_help() -> None:
    options = list(_options("*"))
    assert len(options) > 100
    missing = [f"{path} {'/'.join(option.opts)}" for path, option in options if not option.help]
    assert missing == []


def test_every_timeout_says_what_its_command_waits_for() -> None:
    timeouts = {path: option.help or "" for path, option in _options("--timeout")}
    assert {"gpuctl create", "gpuctl apply", "gpuctl delete", "gpuctl scale"} <= set(timeouts)
    assert len(set(timeouts.values())) == len(timeouts), timeouts  # each its own words
    assert "for the jobs to run" in timeouts["gpuctl create"]
    assert "for the jobs to run" in timeouts["gpuctl apply"]
    assert "deletion" not in timeouts["gpuctl create"]
    assert "pods to be gone" in timeouts["gpuctl delete"]
    assert "jobs to run" not in timeouts["gpuctl delete"]
    assert "the API" not in timeouts["gpuctl scale"]
