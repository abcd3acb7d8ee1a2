"""The commands that write to a cluster what specs render: create, apply, diff and delete.
Heavy modules are imported inside each command."""

from __future__ import annotations

from typing import Any

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
from gpuctl.errors import GpuctlError, SpecError


def _write_options(command: Any) -> Any:
    """The options create and apply share."""
    for option in reversed(
        [
            dry_run_option,
            click.option(
                "--wait", is_flag=True, help="Wait until the jobs run; fail fast when they cannot."
            ),
            timeout_option,
            click.option(
                "--priority-classes", is_flag=True, help="Set priorityClassName gpuctl-<priority>."
            ),
            click.option(
                "--overwrite", is_flag=True, help="Let a pool take nodes that are in another pool."
            ),
        ]
    ):
        command = option(command)
    return command


class Session:
    """The specs rendered for one cluster command, and the cluster to act on."""

    def __init__(
        self,
        files: tuple[str, ...],
        kubeconfig: str | None,
        context: str | None,
        namespace: str | None,
        priority_classes: bool = False,
    ) -> None:
        from gpuctl.cluster import client
        from gpuctl.render import engine
        from gpuctl.spec.kinds import Options
        from gpuctl.verbs.workset import Workset

        # Invalid specs are reported before the Kubernetes client is even imported.
        specs = engine.load_specs(files)
        self.cluster = client.Cluster.connect(kubeconfig, context)
        options = Options(
            namespace=namespace,
            default_namespace=self.cluster.namespace,
            priority_classes=priority_classes,
        )
        self.work = Workset.of_specs(specs, options)


def _wait(wait: bool, timeout: str, settle: str, cluster: Any) -> Any:
    from gpuctl.verbs.wait import Wait

    if not wait:
        return None
    return Wait(cluster, duration(timeout), duration(settle), progress_line())


_settle_option = click.option(
    "--settle",
    default="5s",
    show_default=True,
    help="With --wait: how long every pod must stay Ready, without restarting, to count as up.",
)


@click.command()
@file_option
@cluster_options
@_write_options
@_settle_option
def create(
    files: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    dry_run: str,
    wait: bool,
    timeout: str,
    priority_classes: bool,
    overwrite: bool,
    settle: str,
) -> int:
    """Create the objects; one that exists already is an error naming it.

    All or nothing: when one object cannot be created, what this run created is removed
    again. A pool file also labels its nodes runwhere.ai/pool (and runwhere.ai/gpu-type); a
    node of another pool is refused unless --overwrite, before anything is written.

    \b
    gpuctl create -f examples/training.yaml
    gpuctl create -f task1.yaml -f task2.yaml --wait
    """
    from gpuctl.verbs.common import DryRun
    from gpuctl.verbs.create import Create

    session = Session(files, kubeconfig, context, namespace, priority_classes)
    result = Create(
        session.cluster,
        DryRun(dry_run),
        duration(timeout),
        progress_line(),
        node_labels=session.work.node_labels,
        overwrite=overwrite,
        wait=_wait(wait, timeout, settle, session.cluster),
        on_written=show_result,  # what was created is said before waiting for it to run
    ).run(session.work.manifests)
    return 0 if result.ok else 1


@click.command()
@file_option
@cluster_options
@_write_options
@_settle_option
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
def apply(
    files: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    dry_run: str,
    wait: bool,
    timeout: str,
    priority_classes: bool,
    overwrite: bool,
    settle: str,
    force: bool,
    prune: bool,
) -> int:
    """Create what is missing, keep what is unchanged, replace what changed (safely), and
    prune what the jobs no longer render.

    A pool file also labels its nodes, and unlabels those it no longer lists.

    \b
    gpuctl apply -f examples/inference.yaml
    gpuctl apply -f examples/ --dry-run=server
    """
    from gpuctl.verbs.apply import Apply
    from gpuctl.verbs.common import DryRun

    session = Session(files, kubeconfig, context, namespace, priority_classes)
    result = Apply(
        session.cluster,
        DryRun(dry_run),
        duration(timeout),
        progress_line(),
        force=force,
        prune=prune,
        node_labels=session.work.node_labels,
        overwrite=overwrite,
        wait=_wait(wait, timeout, settle, session.cluster),
        on_written=show_result,
    ).run(session.work.manifests)
    return 0 if result.ok else 1


class DiffError(GpuctlError):
    """diff could not compare: kubectl's convention is an exit code above 1."""

    exit_code = 2


@click.command()
@file_option
@cluster_options
def diff(
    files: tuple[str, ...], kubeconfig: str | None, context: str | None, namespace: str | None
) -> int:
    """Show what apply would change: a unified diff of live and rendered objects.

    Exit code 0 when nothing differs, 1 when something does, 2 when diff could not compare
    (kubectl's convention).

    \b
    gpuctl diff -f examples/training.yaml
    """
    from gpuctl.verbs.diff import Diff

    try:
        session = Session(files, kubeconfig, context, namespace)
        result = Diff(session.cluster, session.work.node_labels).run(session.work.manifests)
    except SpecError as exc:
        exc.exit_code = 2
        raise
    except GpuctlError as exc:
        raise DiffError(str(exc)) from exc
    click.echo(result.text, nl=False)
    return 1 if result.differs else 0


@click.command()
@click.argument("what", nargs=-1, shell_complete=complete.job_word_then_name)
@click.option(
    "-f",
    "--filename",
    "files",
    multiple=True,
    metavar="FILE",
    type=click.Path(allow_dash=True),
    help="Delete the objects these specs render. Repeatable.",
)
@cluster_options
@click.option("--force", is_flag=True, help="No grace period: pods are killed at once.")
@click.option("--wait", is_flag=True, help="Wait until the objects and their pods are gone.")
@timeout_option
@click.option(
    "--include-namespaces",
    is_flag=True,
    help="Also delete the namespaces a quota file renders (never done otherwise).",
)
@click.option(
    "--ignore-not-found",
    is_flag=True,
    help="An object (or job) already gone is no error: nothing is said, exit code 0.",
)
def delete(
    what: tuple[str, ...],
    files: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    force: bool,
    wait: bool,
    timeout: str,
    include_namespaces: bool,
    ignore_not_found: bool,
) -> int:
    """Delete what specs render (-f), or a job by name (job NAME); pods go with them.

    Each object already gone is reported `KIND/NAME not found` and the exit code is 1, as
    kubectl does; --ignore-not-found silences that.

    \b
    gpuctl delete -f examples/training.yaml --wait
    gpuctl delete job qwen2-7b-llamafactory-sft --force
    gpuctl delete -f examples/training.yaml --ignore-not-found
    """
    from gpuctl.errors import UsageError
    from gpuctl.verbs.delete import Delete, JobNotFound

    if bool(files) == bool(what) or (what and (len(what) != 2 or what[0] not in ("job", "jobs"))):
        raise UsageError("give either -f FILE… or `job NAME`")
    if files:
        session = Session(files, kubeconfig, context, namespace)
        cluster = session.cluster
    else:
        from gpuctl.cluster import client

        cluster = client.Cluster.connect(kubeconfig, context)
    verb = Delete(
        cluster,
        force=force,
        wait=wait,
        timeout=duration(timeout),
        include_namespaces=include_namespaces,
        ignore_not_found=ignore_not_found,
        progress=progress_line(),
    )
    if files:
        result = verb.files(session.work.manifests, session.work.node_labels)
    else:
        try:
            result = verb.job(what[1], namespace or cluster.namespace)
        except JobNotFound:
            if not ignore_not_found:
                raise
            return 0
    show_result(result)
    return 0 if result.ok else 1
