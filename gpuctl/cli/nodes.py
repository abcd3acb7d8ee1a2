"""`get nodes`, `describe node`, `label node`, `get label`: the CLI side (prints)."""

from __future__ import annotations

import click

from gpuctl.cli import complete, table
from gpuctl.cli.main import (
    connection_options,
    echo_objects,
    no_headers_option,
    output_option,
    report,
)
from gpuctl.cluster.client import Cluster
from gpuctl.errors import UsageError
from gpuctl.inventory import nodes


def _connect(kubeconfig: str | None, context: str | None) -> Cluster:
    return Cluster.connect(kubeconfig, context)


def _check_node_word(word: str) -> None:
    if word not in ("node", "nodes", "no"):
        raise UsageError(f"only nodes carry these labels: give `node NAME…`, not {word!r}")


@click.command("nodes")
@connection_options
@click.option("--pool", shell_complete=complete.pools, help="Only the nodes of this resource pool.")
@click.option(
    "--gpu-type", help="Only nodes of this GPU model (runwhere.ai/ or g8s.host/gpu-type)."
)
@output_option
@no_headers_option
def get_nodes(
    kubeconfig: str | None,
    context: str | None,
    pool: str | None,
    gpu_type: str | None,
    output: str | None,
    no_headers: bool,
) -> None:
    """Nodes: NAME, STATUS, GPU (total/used/free), GPU-TYPE, POOL, AGE.

    \b
    gpuctl get nodes
    gpuctl get nodes --pool training-pool --gpu-type A100-80G -o wide
    """
    cluster = _connect(kubeconfig, context)
    items = nodes.list_nodes(cluster, pool, gpu_type)
    if echo_objects(items, output, [f"node/{nodes.name_of(item)}" for item in items]):
        return
    if not items:
        click.echo("No nodes found.", err=True)
        return
    used = nodes.gpus_in_use(nodes.active_pods(cluster))
    wide = output == "wide"
    rows = nodes.node_rows(items, used, wide=wide)
    colour = table.colour_enabled()
    for row in rows:
        row[1] = table.paint(row[1], table.status_colour(row[1].split(",")[0]), colour)
    headers = nodes.NODE_WIDE_HEADERS if wide else nodes.NODE_HEADERS
    click.echo(table.table(headers, rows, no_headers=no_headers), nl=False)


@click.command("node")
@click.argument("name", shell_complete=complete.nodes)
@connection_options
def describe_node(name: str, kubeconfig: str | None, context: str | None) -> None:
    """A node: status, CPU, memory and GPUs with their use, GPU type, labels, pools,
    conditions, and the pods on it with their GPUs.

    \b
    gpuctl describe node gpu-a100-0
    """
    from gpuctl.inventory import pools

    cluster = _connect(kubeconfig, context)
    records = pools.read_records(cluster)
    listed = [pool for pool, record in records.items() if name in pools.recorded_nodes(record)]
    click.echo(nodes.describe_node(cluster, name, listed), nl=False)


@click.command("label")
@click.argument("what", shell_complete=complete.node_word)
@click.argument(
    "args", nargs=-1, required=True, metavar="NODE… KEY=VALUE|KEY", shell_complete=complete.nodes
)
@connection_options
@click.option("--overwrite", is_flag=True, help="Replace a label that has another value.")
@click.option("--delete", is_flag=True, help="Remove the label KEY.")
def label(
    what: str,
    args: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    overwrite: bool,
    delete: bool,
) -> int:
    """Set or remove a g8s.host/ label on nodes (other keys are refused).

    Each node is reported on its own line; the exit code is 1 if any failed.

    \b
    gpuctl label node gpu-a100-0 g8s.host/gpu-type=a100-80g
    gpuctl label node gpu-a100-0 gpu-a100-1 g8s.host/gpu-type=a100-40g --overwrite
    gpuctl label node gpu-a100-0 g8s.host/gpu-type --delete
    """
    _check_node_word(what)
    if len(args) < 2:
        raise UsageError("give one or more node names, then KEY=VALUE (or KEY --delete)")
    change = nodes.LabelChange.parse(args[-1], delete)  # refused keys: before any request
    cluster = _connect(kubeconfig, context)
    lines, errors = nodes.label_nodes(cluster, args[:-1], change, overwrite)
    return report(lines, errors)


@click.command("label")
@click.argument("names", nargs=-1, required=True, metavar="NODE…", shell_complete=complete.nodes)
@click.option("--key", required=True, help="The label key, e.g. g8s.host/gpu-type.")
@connection_options
@no_headers_option
def get_label(
    names: tuple[str, ...],
    key: str,
    kubeconfig: str | None,
    context: str | None,
    no_headers: bool,
) -> int:
    """The value of one label on nodes: NAME, KEY, VALUE.

    \b
    gpuctl get label gpu-a100-0 --key g8s.host/gpu-type
    """
    names = tuple(n for n in names if n not in ("node", "nodes")) or names
    cluster = _connect(kubeconfig, context)
    rows, errors = nodes.label_rows(cluster, names, key)
    if rows:
        click.echo(table.table(("NAME", "KEY", "VALUE"), rows, no_headers=no_headers), nl=False)
    return report([], errors)
