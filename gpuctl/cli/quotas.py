"""`gpuctl get quotas` and `gpuctl describe quota`: the CLI side of gpuctl.inventory.quotas."""

from __future__ import annotations

import click

from gpuctl.cli import complete
from gpuctl.cli.main import cluster_options, no_headers_option, output_option
from gpuctl.cli.views import quotas as quota_views


def _user(user: str | None, namespace: str | None) -> str | None:
    """A user's namespace is their name, so `-n alice` means user alice."""
    from gpuctl.errors import UsageError

    if user and namespace and user != namespace:
        raise UsageError(f"user {user!r} and namespace {namespace!r} differ: give one of them")
    return user or namespace


@click.command("quotas")
@click.argument("user", required=False, shell_complete=complete.quotas)
@cluster_options
@click.option(
    "-A",
    "--all-namespaces",
    is_flag=True,
    help="Accepted out of kubectl habit: quotas are always listed across namespaces.",
)
@output_option
@no_headers_option
def get_quotas(
    user: str | None,
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    all_namespaces: bool,
    output: str | None,
    no_headers: bool,
) -> int:
    """List quotas per user, across all namespaces: CPU, MEMORY and GPU as used/hard.

    `-` means the resource is not limited. On a terminal, usage from 70% is yellow and from
    90% red (never with NO_COLOR).

    \b
    gpuctl get quotas
    gpuctl get quotas alice -o yaml
    """
    from gpuctl.cli import table
    from gpuctl.cluster import client as kube
    from gpuctl.inventory import quotas

    wanted = _user(user, namespace)
    cluster = kube.Cluster.connect(kubeconfig, context)
    found = quotas.user_quotas(cluster, wanted) if wanted else quotas.list_quotas(cluster)
    if output in ("yaml", "json", "name"):
        click.echo(quota_views.render_objects(found, output), nl=False)
        return 0
    if not found:
        click.echo("No quotas found.", err=True)
        return 0
    text = quota_views.render_table(
        found, wide=output == "wide", no_headers=no_headers, colour=table.colour_enabled()
    )
    click.echo(text, nl=False)
    return 0


@click.command("quota")
@click.argument("user", shell_complete=complete.quotas)
@cluster_options
def describe_quota(
    user: str, kubeconfig: str | None, context: str | None, namespace: str | None
) -> int:
    """Show a user's quota: each resource as used/hard and in percent.

    \b
    gpuctl describe quota alice
    """
    from gpuctl.cli import table
    from gpuctl.cluster import client as kube
    from gpuctl.inventory import quotas

    wanted = _user(user, namespace) or user
    cluster = kube.Cluster.connect(kubeconfig, context)
    colour = table.colour_enabled()
    found = quotas.user_quotas(cluster, wanted)
    click.echo("\n".join(quota_views.describe(quota, colour=colour) for quota in found), nl=False)
    return 0
