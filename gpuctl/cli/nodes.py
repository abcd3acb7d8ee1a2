"""`get nodes`, `describe node`, `label node`, `get label`: the CLI side (prints)."""

from __future__ import annotations

from typing import Any

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
from gpuctl.cli.views import nodes as node_views
from gpuctl.cluster.client import Cluster
from gpuctl.errors import UsageError
from gpuctl.inventory import nodes
from gpuctl.verbs import node_labels


def _check_node_word(word: str) -> None:
    if word not in ("node", "nodes", "no"):
        raise UsageError(f"only nodes carry these labels: give `node NAME…`, not {word!r}")


@click.command("nodes")
@connection_options
@click.option("--pool", shell_complete=complete.pools, help="Only the nodes of this resource pool.")
@click.option(
    "--gpu-type",
    help="Only nodes of this GPU model (a100-80g or g8s.host/a100-80g, matched on "
    "runwhere.ai/ or g8s.host/gpu-type); a label key such as g8s.host/gpu-type lists that label.",
)
@click.option(
    "--status",
    "status_filter",
    type=click.Choice(nodes.NODE_STATUS_FILTERS + nodes.DOCUMENT_NODE_STATUS, case_sensitive=False),
    help="Only nodes of this status (Ready also matches a cordoned node; or the API's words: "
    "active, maintaining = cordoned, faulty = NotReady).",
)
@click.option("--label", "label_key", metavar="KEY", help="List this label's value on each node.")
@output_option
@no_headers_option
def get_nodes(
    kubeconfig: str | None,
    context: str | None,
    pool: str | None,
    gpu_type: str | None,
    status_filter: str | None,
    label_key: str | None,
    output: str | None,
    no_headers: bool,
) -> None:
    """Nodes: NAME, STATUS, GPU (total/used/free), VENDOR, GPU-TYPE, POOL, AGE.

    \b
    gpuctl get nodes
    gpuctl get nodes --pool training-pool --gpu-type A100-80G -o wide
    gpuctl get nodes --gpu-type g8s.host/a100-80g      # any letter case: A100-80G too
    gpuctl get nodes --status NotReady
    gpuctl get nodes --gpu-type g8s.host/gpu-type      # the GPU-type label of every node
    gpuctl get nodes --label g8s.host/gpu-type
    """
    query = nodes.GpuTypeQuery.parse(gpu_type) if gpu_type else nodes.GpuTypeQuery()
    if label_key and query.key:
        raise UsageError("give either --label KEY or --gpu-type KEY, not both")
    cluster = Cluster.connect(kubeconfig, context)
    items = nodes.list_nodes(cluster, pool, query.value, status_filter)
    key = label_key or query.key
    if key:
        _echo_key(items, key, output, no_headers)
        return
    if echo_objects(items, output, [f"node/{nodes.name_of(item)}" for item in items]):
        return
    if not items:
        click.echo("No nodes found.", err=True)
        return
    from gpuctl.inventory import pools
    from gpuctl.placement.capacity import node_usage

    used = node_usage(items, nodes.active_pods(cluster))
    records = pools.read_records_if_allowed(cluster)
    member_of = {nodes.name_of(n): pools.pools_of(nodes.name_of(n), n, records) for n in items}
    wide = output == "wide"
    rows = node_views.node_rows(items, used, wide=wide, member_of=member_of)
    colour = table.colour_enabled()
    for row in rows:
        row[1] = table.paint(row[1], table.status_colour(row[1].split(",")[0]), colour)
    headers = node_views.NODE_WIDE_HEADERS if wide else node_views.NODE_HEADERS
    click.echo(table.table(headers, rows, no_headers=no_headers), nl=False)


def _echo_key(items: list[dict[str, Any]], key: str, output: str | None, no_headers: bool) -> None:
    """One label on every node: NAME, KEY, VALUE."""
    names = [f"node/{nodes.name_of(item)}" for item in items]
    if echo_objects(nodes.key_summaries(items, key), output, names):
        return
    if not items:
        click.echo("No nodes found.", err=True)
        return
    rows = node_views.key_rows(items, key)
    click.echo(table.table(node_views.KEY_HEADERS, rows, no_headers=no_headers), nl=False)


def _echo_gpu_labels(items: list[dict[str, Any]], output: str | None, no_headers: bool) -> None:
    """Every node's GPU labels and pool: NAME, GPU-LABELS, POOL."""
    names = [f"node/{nodes.name_of(item)}" for item in items]
    if echo_objects(nodes.gpu_label_summaries(items), output, names):
        return
    if not items:
        click.echo("No nodes found.", err=True)
        return
    rows = node_views.gpu_label_rows(items)
    click.echo(table.table(node_views.GPU_LABEL_HEADERS, rows, no_headers=no_headers), nl=False)


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

    cluster = Cluster.connect(kubeconfig, context)
    node = nodes.get_node(cluster, name)
    member_of = pools.pools_of(name, node, pools.read_records_if_allowed(cluster))
    click.echo(node_views.describe_node(cluster, name, member_of), nl=False)


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
    change = node_labels.LabelChange.parse(args[-1], delete)  # refused keys: before any request
    cluster = Cluster.connect(kubeconfig, context)
    result = node_labels.label_nodes(cluster, args[:-1], change, overwrite)
    return report(result.lines(), result.worded(overwrite_hint))


@click.command("label")
@click.argument("names", nargs=-1, metavar="[NODE…]", shell_complete=complete.nodes)
@click.option("--key", help="The label key, e.g. g8s.host/gpu-type.")
@click.option("--all", "all_nodes", is_flag=True, help="Every node.")
@connection_options
@output_option
@no_headers_option
def get_label(
    names: tuple[str, ...],
    key: str | None,
    all_nodes: bool,
    kubeconfig: str | None,
    context: str | None,
    output: str | None,
    no_headers: bool,
) -> int:
    """The value of one label on nodes (NAME, KEY, VALUE); with --all and no --key, every
    node's GPU labels and pool. Also spelled `get node-labels`.

    \b
    gpuctl get label gpu-a100-0 --key g8s.host/gpu-type
    gpuctl get node-labels gpu-a100-0 --key=g8s.host/gpu-type
    gpuctl get node-labels --all
    gpuctl get node-labels --all --key g8s.host/gpu-type
    """
    names = tuple(n for n in names if n not in ("node", "nodes")) or names
    if all_nodes and names:
        raise UsageError("give node names or --all, not both")
    if not all_nodes and not names:
        raise UsageError("give one or more node names (with --key KEY), or --all")
    if names and not key:
        raise UsageError("give the label key: --key KEY (e.g. --key g8s.host/gpu-type)")
    cluster = Cluster.connect(kubeconfig, context)
    if all_nodes:
        items = nodes.list_nodes(cluster)
        if key:
            _echo_key(items, key, output, no_headers)
        else:
            _echo_gpu_labels(items, output, no_headers)
        return 0
    assert key is not None
    rows, errors = node_views.label_rows(cluster, names, key)
    if rows:
        click.echo(table.table(node_views.KEY_HEADERS, rows, no_headers=no_headers), nl=False)
    return report([], errors)


@click.command("gpu-type")
@click.argument("names", nargs=-1, metavar="[NODE…]", shell_complete=complete.nodes)
@click.option("--all", "all_nodes", is_flag=True, help="Every node (the default).")
@click.option("--pool", shell_complete=complete.pools, help="Only the nodes of this resource pool.")
@connection_options
@output_option
@no_headers_option
def get_gpu_type(
    names: tuple[str, ...],
    all_nodes: bool,
    pool: str | None,
    kubeconfig: str | None,
    context: str | None,
    output: str | None,
    no_headers: bool,
) -> None:
    """Each node's GPU labels (runwhere.ai/ and g8s.host/gpu-type, other g8s.host/ GPU keys,
    nvidia.com/gpu.*) and the pool it is bound to: NAME, GPU-LABELS, POOL.

    \b
    gpuctl get gpu-type --all
    gpuctl get gpu-type gpu-a100-0 -o yaml
    """
    if all_nodes and names:
        raise UsageError("give node names or --all, not both")
    items = nodes.list_nodes(Cluster.connect(kubeconfig, context), pool)
    if names:
        missing = sorted(set(names) - {nodes.name_of(item) for item in items})
        if missing:
            raise nodes.NodeNotFound(f"node {', '.join(missing)} not found")
        items = [item for item in items if nodes.name_of(item) in names]
    _echo_gpu_labels(items, output, no_headers)
