"""Tab completion of names from the cluster: jobs, nodes, pools, quotas, namespaces, contexts.

Each function is a click `shell_complete` callback. It connects with the --kubeconfig and
--context of the command line being completed (or the ones given before the command), asks for
the names, and offers those that start with what was typed. Completion must never get in the
way: any failure (no kubeconfig, no cluster, no permission) offers nothing, quickly, and
prints nothing. Heavy modules are imported only when a completion runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import click
from click.shell_completion import CompletionItem

if TYPE_CHECKING:
    from gpuctl.cluster.api import ClusterAPI

CONNECT_TIMEOUT = 1.0  # seconds: a completion that waits longer is worse than none
READ_TIMEOUT = 2.0


def _option(ctx: click.Context, name: str) -> str | None:
    """The value of --kubeconfig/--context/-n on the line being completed, nearest first."""
    current: click.Context | None = ctx
    while current is not None:
        value = current.params.get(name)
        if isinstance(value, str) and value:
            return value
        current = current.parent
    return None


def _connect(ctx: click.Context) -> ClusterAPI:
    from gpuctl.cluster import client

    # A completion is its own short process: one attempt, short timeouts, no retries.
    client.ATTEMPTS = 1
    client.CONNECT_TIMEOUT = CONNECT_TIMEOUT
    return client.Cluster.connect(
        _option(ctx, "kubeconfig"), _option(ctx, "context"), read_timeout=READ_TIMEOUT
    )


def _offer(names: Iterable[str], incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(name) for name in sorted(set(names)) if name.startswith(incomplete)]


def _quietly(
    list_names: Callable[[click.Context], Iterable[str]],
) -> Callable[[click.Context, click.Parameter, str], list[CompletionItem]]:
    """A shell_complete callback that offers `list_names(ctx)`, or nothing on any error."""

    def complete(
        ctx: click.Context, _param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        try:
            return _offer(list_names(ctx), incomplete)
        except Exception:  # completion offers nothing rather than a traceback in the shell
            return []

    return complete


def _job_names(ctx: click.Context) -> list[str]:
    from gpuctl.inventory import jobs

    cluster = _connect(ctx)
    where = _option(ctx, "namespace") or cluster.namespace
    return [item["metadata"]["name"] for item in jobs.list_jobs(cluster, where)]


def _node_names(ctx: click.Context) -> list[str]:
    from gpuctl.inventory import nodes

    return [nodes.name_of(node) for node in nodes.list_nodes(_connect(ctx))]


def _pool_names(ctx: click.Context) -> list[str]:
    from gpuctl.inventory import pools
    from gpuctl.inventory.nodes import pool_of

    cluster = _connect(ctx)
    labelled = {pool_of(node) for node in cluster.list("Node")}
    return [*pools.read_records(cluster), *(name for name in labelled if name)]


def _quota_users(ctx: click.Context) -> list[str]:
    from gpuctl.inventory import quotas

    return [quota.user for quota in quotas.list_quotas(_connect(ctx))]


def _namespace_names(ctx: click.Context) -> list[str]:
    return [item["metadata"]["name"] for item in _connect(ctx).list("Namespace")]


def _context_names(ctx: click.Context) -> list[str]:
    import importlib
    import os

    importlib.import_module("gpuctl.cluster.client")  # first: the light import of `kubernetes`
    kube_config = importlib.import_module("kubernetes.config.kube_config")

    path = _option(ctx, "kubeconfig") or os.environ.get("KUBECONFIG") or "~/.kube/config"
    contexts, _active = kube_config.list_kube_config_contexts(path)
    return [str(context["name"]) for context in contexts]


jobs = _quietly(_job_names)
nodes = _quietly(_node_names)
pools = _quietly(_pool_names)
quotas = _quietly(_quota_users)
namespaces = _quietly(_namespace_names)
contexts = _quietly(_context_names)


def job_word_then_name(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """`delete job NAME`: first the word `job`, then a job's name."""
    if not ctx.params.get(param.name or ""):
        return _offer(["job"], incomplete)
    return jobs(ctx, param, incomplete)


def node_word(
    _ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """`label node …`, `add node …`: the word `node`."""
    return _offer(["node"], incomplete)
