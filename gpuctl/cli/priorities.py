"""`gpuctl priority-classes`: print the PriorityClasses gpuctl-high/-medium/-low that the
jobs' pods name, or install them (`install`, an administrator's command, once per cluster)."""

from __future__ import annotations

import click

from gpuctl.cli.main import CONTEXT_SETTINGS, connection_options, dry_run_option


@click.group(context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.pass_context
def priority_classes(ctx: click.Context) -> None:
    """Print (or install) the PriorityClasses the jobs' pods name.

    high and medium preempt lower-priority pods when nothing else fits (preemptionPolicy
    PreemptLowerPriority); low never preempts (Never) and is the first to be preempted.

    \b
    gpuctl priority-classes                       # print them
    gpuctl priority-classes install               # create or update them in the cluster
    gpuctl priority-classes | kubectl apply -f -  # the same with kubectl
    """
    if ctx.invoked_subcommand is None:
        from gpuctl.render import engine

        click.echo(engine.to_yaml(engine.render_priority_classes()), nl=False)


@priority_classes.command()
@connection_options
@dry_run_option
def install(kubeconfig: str | None, context: str | None, dry_run: str) -> int:
    """Create the PriorityClasses, or update them to what `gpuctl priority-classes` prints
    (through `gpuctl apply`'s verb: what is unchanged stays). Needs the right to create
    cluster-scoped objects.

    \b
    gpuctl priority-classes install
    gpuctl priority-classes install --dry-run=server
    """
    from gpuctl.cli.main import progress_line, show_result
    from gpuctl.cluster.client import Cluster
    from gpuctl.render import engine
    from gpuctl.verbs.apply import Apply
    from gpuctl.verbs.common import DryRun

    cluster = Cluster.connect(kubeconfig, context)
    apply = Apply(cluster, DryRun(dry_run), progress=progress_line(), prune=False)
    result = apply.run(engine.render_priority_classes())
    show_result(result)
    return 0 if result.ok else 1
