"""`gpuctl config`: gpuctl's own settings per kubeconfig context (gpuctl.settings)."""

from __future__ import annotations

import click

from gpuctl import settings
from gpuctl.cli.main import connection_options
from gpuctl.cluster.client import context_name
from gpuctl.monitoring import prometheus


@click.group("config")
def config() -> None:
    """gpuctl's settings per kubeconfig context, in ~/.config/gpuctl/config.yaml
    (${XDG_CONFIG_HOME}/gpuctl/config.yaml when that is set)."""


@config.command("set-prometheus", short_help="Remember the Prometheus URL of a kubeconfig context.")
@click.argument("url")
@connection_options
@click.option(
    "--default",
    "as_default",
    is_flag=True,
    help="The default for every context without its own, instead of one context's.",
)
def set_prometheus(url: str, kubeconfig: str | None, context: str | None, as_default: bool) -> None:
    """Remember the Prometheus (with the DCGM exporter's series) of the current kubeconfig
    context, of --context NAME (any name, as kubectl config set-context takes), or the
    --default one. `top`, `describe job`, `query pools` and
    `serve` use it when neither --prometheus-url nor $GPUCTL_PROMETHEUS_URL is given.

    \b
    gpuctl config set-prometheus http://prometheus.monitoring:9090
    gpuctl config set-prometheus https://prometheus.prod.example.com --context prod
    gpuctl config set-prometheus http://127.0.0.1:9090 --default
    """
    name = None if as_default else (context or context_name(kubeconfig, None))
    written = settings.set_prometheus_url(url, name)
    target = "the default" if name is None else f"context {name}"
    click.echo(f"{written}: prometheusUrl of {target} set to {url}")


@config.command(
    "get-prometheus", short_help="Print the Prometheus URL a context gets, and from where."
)
@connection_options
def get_prometheus(kubeconfig: str | None, context: str | None) -> int:
    """Print the Prometheus URL the current context (or --context NAME) would use, and where
    it comes from. Exit 1 when there is none.

    \b
    gpuctl config get-prometheus
    gpuctl config get-prometheus --context prod
    """
    found = prometheus.resolved(None, context_name(kubeconfig, context))
    if found is None:
        click.echo("no Prometheus configured", err=True)
        return 1
    click.echo(f"{found[0]}  ({found[1]})")
    return 0
