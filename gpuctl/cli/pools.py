"""`get pools`, `describe pool`, `add node`, `remove node`: the CLI side (prints)."""

from __future__ import annotations

import click

from gpuctl.cli import complete, table
from gpuctl.cli.main import (
    connection_options,
    echo_objects,
    no_headers_option,
    output_option,
    overwrite_hint,
    report,
)
from gpuctl.cli.views import pools as pool_views
from gpuctl.cluster.client import Cluster
from gpuctl.errors import UsageError
from gpuctl.inventory import pools
from gpuctl.monitoring import prometheus
from gpuctl.verbs import pool_labels


def _check_node_word(word: str) -> None:
    if word not in ("node", "nodes", "no"):
        raise UsageError(f"pools hold nodes: give `node NAME… --pool POOL`, not {word!r}")


@click.command("pools")
@connection_options
@output_option
@no_headers_option
def get_pools(
    kubeconfig: str | None,
    context: str | None,
    output: str | None,
    no_headers: bool,
) -> None:
    """Resource pools: NAME, NODES, GPU (total/used/free), GPU-TYPES, DESCRIPTION, AGE.

    \b
    gpuctl get pools
    gpuctl get pools -o wide
    """
    cluster = Cluster.connect(kubeconfig, context)
    inventory = pools.Inventory.read(cluster)
    found = inventory.pools()
    summaries = [inventory.summary(p) for p in found] if output in ("yaml", "json") else []
    if echo_objects(summaries, output, [f"pool/{pool.name}" for pool in found]):
        return
    if not found:
        click.echo("No pools found.", err=True)
        return
    wide = output == "wide"
    headers = pool_views.POOL_WIDE_HEADERS if wide else pool_views.POOL_HEADERS
    rows = pool_views.pool_rows(inventory, found, wide=wide)
    click.echo(table.table(headers, rows, no_headers=no_headers), nl=False)


@click.group("query")
def query() -> None:
    """Resource occupancy: which pools have GPUs free."""


@query.command("pools")
@connection_options
@click.option(
    "--prometheus-url",
    metavar="URL",
    help="Add GPU-UTIL, the pool's GPUs' mean utilisation now (else $GPUCTL_PROMETHEUS_URL, "
    "else the context's prometheusUrl in gpuctl's config file).",
)
@output_option
@no_headers_option
def query_pools(
    kubeconfig: str | None,
    context: str | None,
    prometheus_url: str | None,
    output: str | None,
    no_headers: bool,
) -> None:
    """Every pool with its GPU occupancy: NAME, NODES, GPU-TOTAL, GPU-USED, GPU-FREE,
    OCCUPANCY (used/total), GPU-TYPES (model:GPUs), and GPU-UTIL when Prometheus is known.

    \b
    gpuctl query pools
    gpuctl query pools -o json
    gpuctl query pools --prometheus-url http://127.0.0.1:9090
    """
    cluster = Cluster.connect(kubeconfig, context)
    inventory = pools.Inventory.read(cluster)
    found = inventory.pools()
    summaries = [inventory.summary(p) for p in found] if output in ("yaml", "json") else []
    if echo_objects(summaries, output, [f"pool/{pool.name}" for pool in found]):
        return
    if not found:
        click.echo("No pools found.", err=True)
        return
    rows = pool_views.query_rows(inventory, found)
    headers = list(pool_views.QUERY_HEADERS)
    url = prometheus.configured_url(prometheus_url, cluster.context)
    if url:
        from gpuctl.monitoring import gpu

        source = prometheus.Prometheus(url)
        try:
            utilisation = gpu.pool_utilisation(source, {p.name: p.members for p in found})
        except prometheus.PrometheusError as exc:  # the pools still, without their GPU-UTIL
            click.echo(f"warning: GPU-UTIL: {exc}", err=True)
            utilisation = {}
        headers.append("GPU-UTIL")
        for pool, row in zip(found, rows, strict=True):
            row.append(utilisation.get(pool.name, gpu.MISSING))
    click.echo(table.table(headers, rows, no_headers=no_headers), nl=False)


@click.command("pool")
@click.argument("name", shell_complete=complete.pools)
@connection_options
def describe_pool(name: str, kubeconfig: str | None, context: str | None) -> None:
    """A pool: its record, nodes, GPU types with counts, and the jobs running on it.

    \b
    gpuctl describe pool training-pool
    """
    inventory = pools.Inventory.read(Cluster.connect(kubeconfig, context))
    click.echo(pool_views.describe_pool(inventory, name), nl=False)


@click.command("add")
@click.argument("what", shell_complete=complete.node_word)
@click.argument("names", nargs=-1, required=True, metavar="NODE…", shell_complete=complete.nodes)
@click.option(
    "--pool",
    required=True,
    shell_complete=complete.pools,
    help="The pool (created with gpuctl create -f).",
)
@click.option("--overwrite", is_flag=True, help="Move nodes that are in another pool.")
@connection_options
def add(
    what: str,
    names: tuple[str, ...],
    pool: str,
    overwrite: bool,
    kubeconfig: str | None,
    context: str | None,
) -> int:
    """Add nodes to a resource pool: label them runwhere.ai/pool and record them.

    Every node is checked first; if one is missing or in another pool, nothing changes.

    \b
    gpuctl add node gpu-a100-0 gpu-a100-1 --pool training-pool
    """
    _check_node_word(what)
    result = pool_labels.add_nodes(Cluster.connect(kubeconfig, context), pool, names, overwrite)
    return report(result.lines(), result.worded(overwrite_hint))


@click.command("remove")
@click.argument("what", shell_complete=complete.node_word)
@click.argument("names", nargs=-1, required=True, metavar="NODE…", shell_complete=complete.nodes)
@click.option(
    "--pool", required=True, shell_complete=complete.pools, help="The pool the nodes are in."
)
@connection_options
def remove(
    what: str,
    names: tuple[str, ...],
    pool: str,
    kubeconfig: str | None,
    context: str | None,
) -> int:
    """Remove nodes from a resource pool: drop their runwhere.ai/pool label and record.

    \b
    gpuctl remove node gpu-a100-1 --pool training-pool
    """
    _check_node_word(what)
    result = pool_labels.remove_nodes(Cluster.connect(kubeconfig, context), pool, names)
    return report(result.lines(), result.errors)
