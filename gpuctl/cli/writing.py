"""The commands that write to a cluster what specs render: create, apply, diff and delete.

Each gathers its options into one object (kubectl's pattern): `complete` loads the specs and
connects, `validate` refuses a contradictory command line, and the command runs the verb.
Heavy modules are imported inside the methods.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gpuctl.cli import complete
from gpuctl.cli.main import (
    cluster_options,
    dry_run_option,
    duration,
    file_option,
    progress_line,
    show_result,
    timeout_option,
)
from gpuctl.errors import GpuctlError, SpecError, UsageError
from gpuctl.spec import jobref

if TYPE_CHECKING:
    from gpuctl.cluster.api import ClusterAPI, LogCluster
    from gpuctl.spec.jobref import JobKey
    from gpuctl.verbs.delete import Delete
    from gpuctl.verbs.wait import Wait
    from gpuctl.verbs.workset import Workset

Decorator = Callable[[Any], Any]
OptionsT = TypeVar("OptionsT", bound="Target")


def gathered(cls: type[OptionsT], *options: Decorator) -> Decorator:
    """`options` (click decorators, in the order --help lists them) gathered into one `cls`
    object, passed as the command's first argument; the command's own options, declared
    below this decorator, stay keyword arguments and are listed after these."""
    names = {field.name for field in fields(cls)}

    def decorate(command: Callable[..., int]) -> Any:
        @functools.wraps(command)
        def run(**given: Any) -> int:
            mine = {name: given.pop(name) for name in names if name in given}
            return command(cls(**mine), **given)

        for option in reversed(options):
            run = option(run)
        return run

    return decorate


class Session:
    """The specs rendered for one cluster command, and the cluster to act on."""

    def __init__(self, target: Target) -> None:
        from gpuctl.spec.kinds import Options
        from gpuctl.verbs.workset import Workset

        def connect() -> Options:
            # Only for specs that passed: invalid ones are reported before the Kubernetes
            # client is even imported.
            from gpuctl.cluster import client
            from gpuctl.verbs.options import cluster_options

            self.cluster: LogCluster = client.Cluster.connect(target.kubeconfig, target.context)
            return cluster_options(self.cluster, target.namespace)

        self.work: Workset = Workset.from_files(target.files, connect)


@dataclass(frozen=True, kw_only=True)
class Target:
    """Where a writing command acts: the spec files, the cluster and the namespace."""

    files: tuple[str, ...]
    kubeconfig: str | None
    context: str | None
    namespace: str | None

    def complete(self) -> Session:
        """Load and check the specs, connect, and render them for that cluster."""
        return Session(self)


@dataclass(frozen=True, kw_only=True)
class WriteOptions(Target):
    """create and apply: where, how (dry run, pools taking nodes) and whether to wait."""

    dry_run: str
    wait: bool
    timeout: str
    overwrite: bool
    settle: str
    allow_pending: bool

    def verb_arguments(self, session: Session) -> dict[str, Any]:
        """What Create and Apply take alike, besides the cluster."""
        from gpuctl.verbs.common import DryRun

        return {
            "dry_run": DryRun(self.dry_run),
            "timeout": duration(self.timeout),
            "progress": progress_line(),
            "node_labels": session.work.node_labels,
            "overwrite": self.overwrite,
            "allow_pending": self.allow_pending,
            "wait": self.waiter(session.cluster),
            "on_written": show_result,  # what was written is said before waiting for it to run
        }

    def waiter(self, cluster: LogCluster) -> Wait | None:
        from gpuctl.verbs.wait import Wait

        if not self.wait:
            return None
        return Wait(cluster, duration(self.timeout), duration(self.settle), progress_line())


target_options = gathered(Target, file_option, cluster_options)


# create's and apply's flags after --timeout
_WRITE_FLAGS = (
    click.option(
        "--overwrite", is_flag=True, help="Let a pool take nodes that are in another pool."
    ),
    click.option(
        "--settle",
        default="5s",
        show_default=True,
        help="With --wait: how long every pod must stay Ready, without restarting, to count as up.",
    ),
    click.option(
        "--allow-pending",
        is_flag=True,
        help="Accept a job no node could ever hold as asked (it waits, Pending, for nodes "
        "that join); without it such a job is refused and nothing is written.",
    ),
)


def write_options(waits_for: str) -> Decorator:
    """The options of create and apply; `waits_for` is what the command's --timeout bounds."""
    return gathered(
        WriteOptions,
        file_option,
        cluster_options,
        dry_run_option,
        click.option(
            "--wait", is_flag=True, help="Wait until the jobs run; fail fast when they cannot."
        ),
        timeout_option(waits_for),
        *_WRITE_FLAGS,
    )


@click.command()
@write_options(
    "for the jobs to run (with --wait), and for what create deletes to be gone (what a failed "
    "create made, the leftovers of a half-deleted job)"
)
def create(options: WriteOptions) -> int:
    """Create the objects; one that exists already is an error naming it.

    A job that exists already is refused by its name before anything is written
    (`job NAME already exists in namespace NS: use apply to change it, or delete it first`).

    All or nothing: when one object cannot be created, what this run created is removed
    again. A pool file also labels its nodes runwhere.ai/pool (and runwhere.ai/gpu-type); a
    node of another pool is refused unless --overwrite, before anything is written.

    \b
    gpuctl create -f examples/training.yaml
    gpuctl create -f task1.yaml -f task2.yaml --wait
    """
    from gpuctl.verbs.create import Create

    session = options.complete()
    verb = Create(session.cluster, **options.verb_arguments(session))
    return 0 if verb.run(session.work.manifests).ok else 1


@click.command()
@write_options(
    "for another apply of the same job to finish, for a replaced object to be gone before it "
    "is made again (and for a rollback), and for the jobs to run (with --wait)"
)
@click.option(
    "--force",
    is_flag=True,
    help="Delete and create again every existing object, changed or not (re-pulls images).",
)
@click.option(
    "--prune/--no-prune",
    default=True,
    show_default=True,
    help="Delete the objects of these jobs that the specs no longer render.",
)
def apply(options: WriteOptions, force: bool, prune: bool) -> int:
    """Create what is missing, keep what is unchanged, replace what changed (safely), and
    prune what the jobs no longer render.

    A pool file also labels its nodes, and unlabels those it no longer lists.

    \b
    gpuctl apply -f examples/inference.yaml
    gpuctl apply -f examples/ --dry-run=server
    """
    from gpuctl.verbs.apply import Apply

    session = options.complete()
    verb = Apply(session.cluster, force=force, prune=prune, **options.verb_arguments(session))
    return 0 if verb.run(session.work.manifests).ok else 1


class DiffError(GpuctlError):
    """diff could not compare: kubectl's convention is an exit code above 1."""

    exit_code = 2


@click.command()
@target_options
def diff(target: Target) -> int:
    """Show what apply would change: a unified diff of live and rendered objects.

    Exit code 0 when nothing differs (stdout stays empty; stderr says `no changes: N objects
    are as the files say`), 1 when something does, 2 when diff could not compare (kubectl's
    convention).

    \b
    gpuctl diff -f examples/training.yaml
    """
    from gpuctl.verbs.diff import Diff

    try:
        session = target.complete()
        result = Diff(session.cluster, session.work.node_labels).run(session.work.manifests)
    except SpecError as exc:
        exc.exit_code = 2
        raise
    except GpuctlError as exc:
        raise DiffError(str(exc)) from exc
    click.echo(result.text, nl=False)
    if not result.differs:
        # kubectl diff says nothing here; one line on stderr tells a person that diff did
        # compare, and leaves stdout an empty diff for scripts.
        count = len(result.changes)
        objects = "object is" if count == 1 else "objects are"
        click.echo(f"no changes: {count} {objects} as the files say", err=True)
    return 1 if result.differs else 0


@dataclass(frozen=True, kw_only=True)
class DeleteOptions(Target):
    """delete: what (spec files, or `job NAME`), and how (grace, waiting, namespaces)."""

    what: tuple[str, ...]
    force: bool
    wait: bool
    timeout: str
    include_namespaces: bool
    ignore_not_found: bool

    def validate(self) -> None:
        """Either -f FILE… or `job JOB…`, never both, never neither."""
        files, what = self.files, self.what
        if bool(files) == bool(what) or (
            what and (len(what) < 2 or what[0] not in ("job", "jobs"))
        ):
            raise UsageError("give either -f FILE… or `job JOB…`")

    def connect(self) -> ClusterAPI:
        from gpuctl.cluster import client

        return client.Cluster.connect(self.kubeconfig, self.context)


delete_options = gathered(
    DeleteOptions,
    click.argument("what", nargs=-1, shell_complete=complete.job_word_then_name),
    click.option(
        "-f",
        "--filename",
        "files",
        multiple=True,
        metavar="FILE",
        type=click.Path(allow_dash=True),
        help="Delete the objects these specs render. Repeatable.",
    ),
    cluster_options,
    click.option("--force", is_flag=True, help="No grace period: pods are killed at once."),
    click.option("--wait", is_flag=True, help="Wait until the objects and their pods are gone."),
    timeout_option("for the objects and their pods to be gone (with --wait)"),
    click.option(
        "--include-namespaces",
        is_flag=True,
        help="Also delete the namespaces a quota file renders (never done otherwise).",
    ),
    click.option(
        "--ignore-not-found",
        is_flag=True,
        help="An object (or job) already gone is no error: nothing is said, exit code 0.",
    ),
)


@click.command()
@delete_options
def delete(options: DeleteOptions) -> int:
    """Delete what specs render (-f), or jobs (job JOB…); pods go with them.

    Each object already gone is reported `KIND/NAME not found` and the exit code is 1, as
    kubectl does; --ignore-not-found silences that. A deleted job's pushed metrics are deleted
    from the Pushgateway ($GPUCTL_PUSHGATEWAY_URL, else the config file's pushgatewayUrl).
    JOB is NAME, NAMESPACE/NAME or NAMESPACE.NAME; several are deleted in turn, each one's
    lines as it goes, and the exit code is 1 when any of them failed.

    \b
    gpuctl delete -f examples/training.yaml --wait
    gpuctl delete job qwen2-7b-llamafactory-sft --force
    gpuctl delete job alice/qwen2-7b-llamafactory-sft llama3-8b-inference
    gpuctl delete -f examples/training.yaml --ignore-not-found
    """
    from gpuctl.monitoring import custom
    from gpuctl.verbs.delete import Delete

    options.validate()
    session = options.complete() if options.files else None
    cluster = session.cluster if session else options.connect()
    verb = Delete(
        cluster,
        force=options.force,
        wait=options.wait,
        timeout=duration(options.timeout),
        include_namespaces=options.include_namespaces,
        ignore_not_found=options.ignore_not_found,
        progress=progress_line(),
        pushgateway=custom.configured(_context_of(cluster)),
    )
    if session:
        result = verb.files(session.work.manifests, session.work.node_labels)
        show_result(result)
        return 0 if result.ok else 1
    keys = jobref.locate_all(options.what[1:], options.namespace, cluster.namespace)
    return max((_delete_job(verb, key, options.ignore_not_found) for key in keys), default=0)


def _delete_job(verb: Delete, key: JobKey, ignore_not_found: bool) -> int:
    """Delete one job, saying what became of it: 0 when done, 1 when it failed."""
    from gpuctl.inventory.jobs import JobNotFound

    try:
        result = verb.job(key.name, key.namespace)
    except JobNotFound as exc:
        if ignore_not_found:
            return 0
        click.echo(f"error: {exc}", err=True)
        return 1
    except UsageError:
        raise
    except GpuctlError as exc:
        click.echo(f"error: {exc}", err=True)
        return 1
    show_result(result)
    return 0 if result.ok else 1


def _context_of(cluster: ClusterAPI) -> str | None:
    """The kubeconfig context `cluster` was connected with (None in a pod)."""
    from gpuctl.cluster.client import Cluster

    return cluster.context if isinstance(cluster, Cluster) else None
