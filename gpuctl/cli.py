"""The command line: parses arguments, calls the engine, prints, and picks exit codes.

This is the only module that prints errors. Heavy modules are imported inside the commands so
that `gpuctl render` never pays for the Kubernetes client (or for anything it does not use).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, NoReturn

import click

from gpuctl import __version__
from gpuctl.errors import GpuctlError, SpecError


class LazyGroup(click.Group):
    """A group whose subcommands live in other modules and are imported only when run.

    `lazy` maps a command name to ("module:attribute", one-line help); the help is given here
    so that `gpuctl --help` lists the command without importing it.
    """

    def __init__(
        self, *args: Any, lazy: dict[str, tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            module_name, attr = self.lazy[cmd_name][0].split(":")
            command = getattr(importlib.import_module(module_name), attr)
            assert isinstance(command, click.Command)
            return command
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [
            (name, self.lazy[name][1] if name in self.lazy else self._short_help(ctx, name))
            for name in self.list_commands(ctx)
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _short_help(self, ctx: click.Context, name: str) -> str:
        command = super().get_command(ctx, name)
        return command.get_short_help_str(limit=80) if command else ""


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(
    cls=LazyGroup,
    context_settings=CONTEXT_SETTINGS,
    lazy={
        "sandbox": (
            "gpuctl.sandbox.cli:sandbox",
            "Run a simulated GPU cluster to try gpuctl and kubectl without one.",
        ),
    },
)
@click.version_option(__version__, "--version", prog_name="gpuctl", message="%(prog)s %(version)s")
def cli() -> None:
    """GPU work on Kubernetes from a short YAML file.

    Write a training run, an inference service, a notebook, a CPU service, a resource pool or a
    team quota in a few lines of YAML; gpuctl checks it and turns it into Kubernetes objects.
    """


_file_option = click.option(
    "-f",
    "--filename",
    "files",
    multiple=True,
    required=True,
    metavar="FILE",
    help="A spec file, a directory of *.yaml/*.yml, or - for stdin. Repeatable.",
)


@cli.command()
@_file_option
@click.option(
    "-o",
    "--output",
    type=click.Choice(["yaml", "json"]),
    default="yaml",
    show_default=True,
    help="yaml: multi-document YAML for `kubectl apply -f -`; json: one v1 List.",
)
@click.option("-n", "--namespace", help="Namespace for every job (wins over job.namespace).")
@click.option(
    "--priority-classes",
    is_flag=True,
    help="Set priorityClassName gpuctl-<priority> (see `gpuctl priority-classes`).",
)
def render(
    files: tuple[str, ...], output: str, namespace: str | None, priority_classes: bool
) -> None:
    """Check the specs and print the Kubernetes objects; never contacts a cluster.

    \b
    gpuctl render -f examples/training.yaml
    gpuctl render -f examples/ | kubectl apply -f -
    """
    from gpuctl import engine
    from gpuctl.kinds import Options

    manifests = engine.render(
        files, Options(namespace=namespace, priority_classes=priority_classes)
    )
    text = engine.to_json(manifests) if output == "json" else engine.to_yaml(manifests)
    click.echo(text, nl=False)


@cli.command()
@_file_option
def validate(files: tuple[str, ...]) -> int:
    """Check the specs without rendering them: `FILE: ok`, or every problem found.

    \b
    gpuctl validate -f examples/
    """
    from gpuctl import document, engine
    from gpuctl.errors import SpecError
    from gpuctl.kinds import Options

    failed = False
    for name in document.expand_paths(files):
        shown = document.display_name(name)
        try:
            docs = document.load_text(shown, document.read_text(name))
            engine.render_documents(docs, Options())
        except SpecError as exc:
            failed = True
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            continue
        click.echo(f"{shown}: ok")
    return 1 if failed else 0


@cli.command()
@click.argument("kind")
def schema(kind: str) -> None:
    """Print the JSON Schema of a kind, self-contained, for editors.

    \b
    gpuctl schema training > training.schema.json
    # then in a spec:  # yaml-language-server: $schema=training.schema.json
    """
    import json

    from gpuctl import kinds
    from gpuctl import schema as schemas
    from gpuctl.errors import UsageError

    found = kinds.lookup(kind)
    if found is None:
        hint = schemas.did_you_mean(kind, kinds.spellings())
        raise UsageError(f"unknown kind {kind!r} ({hint})")
    click.echo(json.dumps(schemas.bundle(found.schema), indent=2, ensure_ascii=False))


@cli.command("priority-classes")
def priority_classes() -> None:
    """Print the PriorityClasses that `render --priority-classes` refers to.

    \b
    gpuctl priority-classes | kubectl apply -f -
    """
    from gpuctl import engine

    click.echo(engine.to_yaml(engine.render_priority_classes()), nl=False)


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the shell completion script.

    \b
    eval "$(gpuctl completion bash)"      # or add it to ~/.bashrc
    """
    from click.shell_completion import get_completion_class

    completion_class = get_completion_class(shell)
    assert completion_class is not None
    click.echo(completion_class(cli, {}, "gpuctl", "_GPUCTL_COMPLETE").source())


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the CLI and turn every failure into one line."""
    debug = os.environ.get("GPUCTL_DEBUG") == "1"
    try:
        result = cli.main(args=argv, prog_name="gpuctl", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # usage errors: exit code 2, click's own message
        exc.show()
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except BrokenPipeError:  # `gpuctl render | head`: the reader left, that is fine
        _silence_stdout()
        sys.exit(0)
    except SpecError as exc:  # each problem is already one line that starts with FILE:LINE
        if debug:
            raise
        click.echo(str(exc), err=True)
        sys.exit(exc.exit_code)
    except GpuctlError as exc:
        if debug:
            raise
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except Exception as exc:  # a bug in gpuctl: still one line, the traceback on request
        if debug:
            raise
        click.echo(
            f"error: internal error: {type(exc).__name__}: {exc} "
            "(set GPUCTL_DEBUG=1 for the traceback, and please report it)",
            err=True,
        )
        sys.exit(1)
    sys.exit(result if isinstance(result, int) else 0)


def run() -> NoReturn:
    """The console script: `main`, then leave without tearing the interpreter down.

    Output is flushed first; skipping interpreter finalisation (module teardown, GC) saves
    ~9 ms per command, a tenth of `gpuctl render`. Nothing gpuctl does needs atexit handlers.
    """
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(code)


def _silence_stdout() -> None:
    # Python would otherwise report the broken pipe again while flushing at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
