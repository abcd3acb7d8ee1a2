"""The command line: parses arguments, calls the engine, prints, and picks exit codes.

This is the only module that prints errors. Heavy modules are imported inside the commands so
that `gpuctl render` never pays for the Kubernetes client (or for anything it does not use).
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from gpuctl import __version__
from gpuctl.cli import complete
from gpuctl.errors import GpuctlError, SpecError
from gpuctl.terminal import shown


class LazyGroup(click.Group):
    """A group whose subcommands live in other modules and are imported only when run.

    `lazy` maps a command name to ("module:attribute", one-line help); the help is given here
    so that `gpuctl --help` lists the command without importing it. `aliases` maps other
    spellings (kubectl's plural, singular and short forms) to a command name. An unknown name
    is a usage error with the nearest spelling.
    """

    def __init__(
        self,
        *args: Any,
        lazy: dict[str, tuple[str, str]] | None = None,
        aliases: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy or {}
        self.aliases = aliases or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd_name = self.aliases.get(cmd_name, cmd_name)
        if cmd_name in self.lazy:
            module_name, attr = self.lazy[cmd_name][0].split(":")
            command = getattr(importlib.import_module(module_name), attr)
            assert isinstance(command, click.Command)
            return command
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if ctx.resilient_parsing or name.startswith("-") or self.get_command(ctx, name):
            return super().resolve_command(ctx, [self.aliases.get(name, name), *args[1:]])
        from gpuctl.spec.schema import did_you_mean

        spellings = [*self.list_commands(ctx), *self.aliases]
        raise click.exceptions.NoSuchCommand(
            name, f"No such command {name!r} ({did_you_mean(name, spellings)}).", ctx=ctx
        )

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


def given_or_global(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A command's own --kubeconfig/--context/-n when given, else the one given before the
    command (`gpuctl --context prod get jobs`), else None."""
    if value is not None or param.name is None:
        return value
    root = ctx.find_root()
    return root.params.get(param.name) if root is not ctx else None


def connection_options(command: Any) -> Any:
    """--kubeconfig and --context, as kubectl has them (for cluster-scoped commands)."""
    command = click.option(
        "--context",
        callback=given_or_global,
        shell_complete=complete.contexts,
        help="The kubeconfig context to use.",
    )(command)
    return click.option(
        "--kubeconfig",
        type=click.Path(dir_okay=False),
        callback=given_or_global,
        help="Path to the kubeconfig file.",
    )(command)


def namespace_option(command: Any) -> Any:
    """-n/--namespace, for the commands whose objects live in a namespace."""
    return click.option(
        "-n",
        "--namespace",
        callback=given_or_global,
        shell_complete=complete.namespaces,
        help="Namespace (wins over job.namespace).",
    )(command)


def cluster_options(command: Any) -> Any:
    """--kubeconfig, --context and -n, as kubectl has them."""
    return connection_options(namespace_option(command))


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(
    cls=LazyGroup,
    context_settings=CONTEXT_SETTINGS,
    lazy={
        "render": (
            "gpuctl.cli.offline:render",
            "Check the specs and print the Kubernetes objects; never contacts a cluster.",
        ),
        "validate": (
            "gpuctl.cli.offline:validate",
            "Check the specs without rendering them: `FILE: ok`, or every problem found.",
        ),
        "schema": (
            "gpuctl.cli.offline:schema",
            "Print the JSON Schema of a kind, self-contained, for editors.",
        ),
        "priority-classes": (
            "gpuctl.cli.priorities:priority_classes",
            "Print (or install) the PriorityClasses the jobs' pods name.",
        ),
        "completion": ("gpuctl.cli.offline:completion", "Print the shell completion script."),
        "create": (
            "gpuctl.cli.writing:create",
            "Create the objects; one that exists already is an error naming it.",
        ),
        "apply": (
            "gpuctl.cli.writing:apply",
            "Create what is missing, keep what is unchanged, replace what changed...",
        ),
        "diff": (
            "gpuctl.cli.writing:diff",
            "Show what apply would change: a unified diff of live and rendered objects.",
        ),
        "delete": (
            "gpuctl.cli.writing:delete",
            "Delete what specs render (-f), or jobs (job JOB…); pods go with them.",
        ),
        "sandbox": (
            "gpuctl.sandbox.cli:sandbox",
            "Run a simulated GPU cluster to try gpuctl and kubectl without one.",
        ),
        "logs": ("gpuctl.cli.jobs:logs", "Print the logs of a job's pods (-f to follow)."),
        "pause": ("gpuctl.cli.jobs:pause", "Pause a job: suspend it, or scale it to zero."),
        "resume": ("gpuctl.cli.jobs:resume", "Resume a paused job."),
        "label": ("gpuctl.cli.nodes:label", "Set or remove g8s.host/ labels on nodes."),
        "add": ("gpuctl.cli.pools:add", "Add nodes to a resource pool."),
        "remove": ("gpuctl.cli.pools:remove", "Remove nodes from a resource pool."),
        "query": ("gpuctl.cli.pools:query", "Pools with their GPU occupancy (query pools)."),
        "scale": ("gpuctl.cli.notebooks:scale", "Change a notebook's GPUs, CPU or memory."),
        "cp": ("gpuctl.cli.notebooks:cp", "Copy files to or from a notebook (like kubectl cp)."),
        "top": ("gpuctl.cli.monitoring:top", "GPU use now per job or node (from Prometheus)."),
        "monitoring": (
            "gpuctl.cli.monitoring:monitoring",
            "Alert rules and a Grafana dashboard for GPUs.",
        ),
        "serve": ("gpuctl.server.cli:serve", "Serve the REST API (/api/v1, Swagger UI)."),
        "config": (
            "gpuctl.cli.config:config",
            "gpuctl's settings per kubeconfig context (its Prometheus).",
        ),
        "controller": (
            "gpuctl.cli.controller:controller",
            "The GPUWorkload scheduling controller: manifests, plan, run.",
        ),
    },
)
@click.version_option(__version__, "--version", prog_name="gpuctl", message="%(prog)s %(version)s")
@cluster_options
def cli(kubeconfig: str | None, context: str | None, namespace: str | None) -> None:
    """GPU work on Kubernetes from a short YAML file.

    Write a training run, an inference service, a notebook, a CPU service, a resource pool or a
    team quota in a few lines of YAML; gpuctl checks it and turns it into Kubernetes objects.

    --kubeconfig, --context and -n go before the command or after it; after it they win.
    """


file_option = click.option(
    "-f",
    "--filename",
    "files",
    multiple=True,
    required=True,
    metavar="FILE",
    type=click.Path(allow_dash=True),
    help="A spec file, a directory of *.yaml/*.yml, or - for stdin. Repeatable.",
)


# ------------------------------------------------------------------ cluster commands


def duration(text: str) -> float:
    """`300`, `30s`, `5m`, `1h` as seconds."""
    units = {"s": 1, "m": 60, "h": 3600}
    try:
        if text and text[-1] in units:
            return float(text[:-1]) * units[text[-1]]
        return float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a duration such as 30s, 5m or 1h") from None


OptionTarget = TypeVar("OptionTarget", bound=Callable[..., Any] | click.Command)


def timeout_option(waits_for: str) -> Callable[[OptionTarget], OptionTarget]:
    """--timeout; `waits_for` says what the command waits for, which differs per command."""
    return click.option(
        "--timeout",
        default="5m",
        show_default=True,
        metavar="DURATION",
        help=f"How long to wait {waits_for}.",
    )


dry_run_option = click.option(
    "--dry-run",
    type=click.Choice(["none", "client", "server"]),
    default="none",
    is_flag=False,
    flag_value="client",
    show_default=True,
    help="client (also --dry-run alone): print the plan; server: also have the server check "
    "every object. Nothing is written.",
)


def progress_line() -> Any:
    """A progress line rewritten in place on a terminal; silent when stderr is not one."""
    if not sys.stderr.isatty():
        return lambda _text: None

    def show(text: str) -> None:
        sys.stderr.write("\r\x1b[K" + shown(text))
        sys.stderr.flush()

    return show


def _remedy(exc: GpuctlError) -> str:
    """How the CLI lifts a refusal, where a flag does (the REST API words its own)."""
    from gpuctl.verbs.errors import Unschedulable

    if isinstance(exc, Unschedulable) and exc.pending_helps:
        return " (--allow-pending accepts it anyway, to wait for nodes that join)"
    return ""


def overwrite_hint(remedy: str) -> str:
    """How the CLI asks to lift a refusal that overwriting would (VerbResult.worded)."""
    return f"add --overwrite to {remedy}"


def report(lines: list[str], errors: list[str]) -> int:
    """A verb's lines on stdout and errors on stderr, control characters escaped."""
    for line in lines:
        click.echo(shown(line, multiline=True))
    for error in errors:
        click.echo(f"error: {shown(error, multiline=True)}", err=True)
    return 1 if errors else 0


def show_result(result: Any) -> None:
    """A verb's result: its lines on stdout, warnings and errors on stderr."""
    for warning in result.warnings:
        click.echo(f"warning: {shown(warning, multiline=True)}", err=True)
    report(result.lines(), result.errors)


# ------------------------------------------------------------ get and describe groups


@cli.group(
    cls=LazyGroup,
    lazy={
        "jobs": ("gpuctl.cli.jobs:get_jobs", "One row per job (or per pod with --pods)."),
        "nodes": ("gpuctl.cli.nodes:get_nodes", "Nodes with their GPUs, GPU type and pool."),
        "label": ("gpuctl.cli.nodes:get_label", "The value of one label on nodes."),
        "node-labels": ("gpuctl.cli.nodes:get_label", "Same as `get label`."),
        "gpu-type": ("gpuctl.cli.nodes:get_gpu_type", "Each node's GPU labels and pool."),
        "notebook": ("gpuctl.cli.notebooks:get_notebook", "Notebooks and their address."),
        "pools": ("gpuctl.cli.pools:get_pools", "Resource pools with their GPUs."),
        "quotas": ("gpuctl.cli.quotas:get_quotas", "Quotas per user: used/hard."),
    },
    aliases={
        "job": "jobs",
        "node": "nodes",
        "no": "nodes",
        "labels": "label",
        "pool": "pools",
        "quota": "quotas",
        "resourcequota": "quotas",
        "resourcequotas": "quotas",
    },
)
def get() -> None:
    """List jobs, nodes, pools, quotas or a node label."""


@cli.group(
    cls=LazyGroup,
    lazy={
        "job": ("gpuctl.cli.jobs:describe_job", "A job in detail: status, why, pods, events."),
        "node": ("gpuctl.cli.nodes:describe_node", "A node: GPUs, labels, pools, conditions."),
        "pool": ("gpuctl.cli.pools:describe_pool", "A pool: nodes, GPU types, running jobs."),
        "quota": (
            "gpuctl.cli.quotas:describe_quota",
            "A quota: used/hard, in percent.",
        ),
    },
    aliases={
        "jobs": "job",
        "nodes": "node",
        "no": "node",
        "pools": "pool",
        "quotas": "quota",
        "resourcequota": "quota",
        "resourcequotas": "quota",
    },
)
def describe() -> None:
    """Show one job, node, pool or quota in detail."""


output_option = click.option(
    "-o",
    "--output",
    type=click.Choice(["wide", "yaml", "json", "name"]),
    help="wide: more columns; yaml/json: the objects; name: kind/name only.",
)
no_headers_option = click.option("--no-headers", is_flag=True, help="Leave out the header row.")


def echo_objects(items: list[dict[str, Any]], output: str | None, names: list[str]) -> bool:
    """`-o yaml|json` (one v1 List of `items`) or `-o name` (`names`, one a line): True when
    printed, False when the output is a table, which the command prints itself."""
    from gpuctl.cli import table

    if output in ("yaml", "json"):
        click.echo(table.as_list(items, output), nl=False)
        return True
    if output == "name":
        for name in names:
            click.echo(name)
        return True
    return False


class _WarningLines(logging.Handler):
    """gpuctl's logged warnings as `warning: ...` lines on stderr, the way the CLI prints its
    own; silent once something (serve, controller run) configures logging for the process."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        if not logging.getLogger().handlers:
            click.echo(f"warning: {shown(record.getMessage())}", err=True)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the CLI and turn every failure into one line."""
    debug = os.environ.get("GPUCTL_DEBUG") == "1"
    logging.getLogger("gpuctl").addHandler(_WarningLines())
    try:
        result = cli.main(args=argv, prog_name="gpuctl", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # usage errors (exit code 2), click's own message
        _show_click_error(exc)
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
        click.echo(shown(str(exc), multiline=True), err=True)
        sys.exit(exc.exit_code)
    except GpuctlError as exc:
        if debug:
            raise
        click.echo(f"error: {shown(str(exc), multiline=True)}{_remedy(exc)}", err=True)
        sys.exit(exc.exit_code)
    except Exception as exc:  # a bug in gpuctl: still one line, the traceback on request
        if debug:
            raise
        if isinstance(exc, ModuleNotFoundError) and getattr(sys, "frozen", False):
            click.echo(f"error: {_left_out_of_binary(exc)}", err=True)
            sys.exit(1)
        click.echo(
            f"error: internal error: {type(exc).__name__}: {exc} "
            "(set GPUCTL_DEBUG=1 for the traceback, and please report it)",
            err=True,
        )
        sys.exit(1)
    sys.exit(result if isinstance(result, int) else 0)


def _show_click_error(exc: click.ClickException) -> None:
    """Click's own errors with gpuctl's (and kubectl's) `error:` prefix, in gpuctl's case (no
    capital, no full stop), then where the command's help is, as kubectl does:

        error: missing option '-f' / '--filename'
        See 'gpuctl render --help' for usage.
    """
    message = exc.format_message().removesuffix(".")
    if isinstance(exc, click.NoSuchOption):  # in the words of gpuctl's other near misses
        from gpuctl.spec.schema import did_you_mean

        message = f"no such option {exc.option_name!r}"
        if exc.possibilities:
            message += f" ({did_you_mean(exc.option_name, sorted(exc.possibilities))})"
    if message[:2].istitle():  # "Missing option", never "PATH" or "'x' is"
        message = message[0].lower() + message[1:]
    click.echo(f"error: {shown(message, multiline=True)}", err=True)
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        click.echo(f"See '{ctx.command_path} --help' for usage.", err=True)


def _left_out_of_binary(exc: ModuleNotFoundError) -> str:
    return (
        f"this command needs {exc.name}, which the single-file binary leaves out (it has every "
        "command but `serve` and `controller run`); install gpuctl with pip for it"
    )


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
