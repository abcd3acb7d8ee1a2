"""`top jobs`, `top nodes`, `monitoring manifests`: GPU figures from Prometheus (prints)."""

from __future__ import annotations

import re
from typing import Any

import click

from gpuctl.cli import table
from gpuctl.cli.main import cluster_options, no_headers_option
from gpuctl.cluster.client import Cluster
from gpuctl.inventory import jobs
from gpuctl.monitoring import gpu
from gpuctl.monitoring.prometheus import ENV_VAR, Prometheus, url_from


def prometheus_option(command: Any) -> Any:
    return click.option(
        "--prometheus-url",
        metavar="URL",
        help=f"Prometheus with the DCGM exporter's series (else ${ENV_VAR}, else the "
        "context's prometheusUrl in gpuctl's config file).",
    )(command)


_sort_option = click.option(
    "--sort-by",
    type=click.Choice(gpu.SORT_KEYS),
    default="util",
    show_default=True,
    help="Highest first (name: alphabetical).",
)


@click.group("top")
def top() -> None:
    """GPU utilisation, GPU memory and temperature now, like kubectl top."""


@top.command("jobs")
@cluster_options
@prometheus_option
@click.option("-A", "--all-namespaces", is_flag=True, help="Jobs in every namespace.")
@click.option("--pool", help="Only jobs in this resource pool.")
@_sort_option
@no_headers_option
def top_jobs(
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    prometheus_url: str | None,
    all_namespaces: bool,
    pool: str | None,
    sort_by: str,
    no_headers: bool,
) -> None:
    """Per job: GPUS, GPU-UTIL (mean), GPU-MEM (used/total), TEMP (hottest GPU).

    A job whose pods report no GPU series shows `-`.

    \b
    gpuctl top jobs --prometheus-url http://127.0.0.1:9090
    GPUCTL_PROMETHEUS_URL=http://prometheus:9090 gpuctl top jobs --pool training-pool -A
    """
    cluster = Cluster.connect(kubeconfig, context)
    prometheus = Prometheus(url_from(prometheus_url, cluster.context))
    where = None if all_namespaces else (namespace or cluster.namespace)
    found = gpu.job_figures(cluster, prometheus, where, pool)
    if not found:
        click.echo("No jobs found.", err=True)
        return
    headers, rows = gpu.job_rows(found, sort_by, all_namespaces=where is None)
    click.echo(table.table(headers, rows, no_headers=no_headers), nl=False)


@top.command("nodes")
@cluster_options
@prometheus_option
@click.option("--pool", help="Only the nodes of this resource pool.")
@_sort_option
@no_headers_option
def top_nodes(
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    prometheus_url: str | None,
    pool: str | None,
    sort_by: str,
    no_headers: bool,
) -> None:
    """Per GPU node: GPUS, GPU-UTIL (mean), GPU-MEM (used/total), TEMP (hottest GPU).

    Figures come from NVIDIA's DCGM exporter; other vendors' nodes show `-`, and a note on
    stderr names the exporter series that are not read.

    \b
    gpuctl top nodes --prometheus-url http://127.0.0.1:9090 --sort-by temp
    """
    cluster = Cluster.connect(kubeconfig, context)
    prometheus = Prometheus(url_from(prometheus_url, cluster.context))
    rows = gpu.node_rows(cluster, prometheus, pool, sort_by)
    if not rows:
        click.echo("No GPU nodes found.", err=True)
        return
    click.echo(table.table(gpu.NODE_HEADERS, rows, no_headers=no_headers), nl=False)
    for line in gpu.unread_vendors(cluster, pool):
        click.echo(f"note: {line}", err=True)


@click.group("monitoring")
def monitoring() -> None:
    """What Prometheus and Grafana need for gpuctl's GPUs."""


def _label_value(value: str, option: str) -> str:
    """`value` when it is a Kubernetes label value, else a usage error that says the rule."""
    if len(value) > 63 or not re.fullmatch(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?", value):
        raise click.BadParameter(
            f"{value!r} is not a label value: at most 63 letters, digits, '-', '_' or '.', "
            "beginning and ending with a letter or digit",
            param_hint=option,
        )
    return value


@monitoring.command("manifests")
@click.option("-n", "--namespace", default="monitoring", show_default=True, help="Where they go.")
@click.option(
    "--release",
    default="kube-prometheus-stack",
    show_default=True,
    help="The Helm release of kube-prometheus-stack: the PrometheusRule is labelled "
    "release=RELEASE, which its Prometheus selects by default.",
    callback=lambda _ctx, _param, value: _label_value(value, "--release"),
)
def manifests(namespace: str, release: str) -> None:
    """Print a PrometheusRule (GPU temperature >= 85 °C, a pod's GPUs idle for 30 minutes, a
    gpuctl pod pending for 15 minutes), a Grafana dashboard ConfigMap (pools, nodes, jobs) and a
    PodMonitor that scrapes the jobs' own metrics endpoints (a job spec's `metrics`).

    \b
    gpuctl monitoring manifests | kubectl apply -f -
    gpuctl monitoring manifests --release prom | kubectl apply -f -
    """
    from gpuctl.monitoring import manifests as monitoring_manifests
    from gpuctl.render import engine

    objects = monitoring_manifests.render(namespace, release)
    click.echo(engine.to_yaml(objects), nl=False)


# ----------------------------------------------------------------- describe job's section

BLOCKS = "▁▂▃▄▅▆▇█"
SPARK_WIDTH = 30


def sparkline(values: list[float], top: float, width: int = SPARK_WIDTH) -> str:
    """`values` (oldest first) as block characters, 0 to `top`, at most `width` of them
    (each the mean of its share of the values)."""
    if not values:
        return "-"
    buckets = min(width, len(values))
    means = []
    for index in range(buckets):
        part = values[index * len(values) // buckets : (index + 1) * len(values) // buckets]
        means.append(sum(part) / len(part))
    scale = top if top > 0 else max(means) or 1.0
    return "".join(BLOCKS[min(int(v / scale * len(BLOCKS)), len(BLOCKS) - 1)] for v in means)


def usage_section(
    details: jobs.Details,
    prometheus_url: str | None,
    context: str | None,
    since: float,
    since_text: str,
) -> str:
    """`describe job`'s GPU usage: per pod now, and utilisation over the last `since`
    seconds as a sparkline (0-100%). One line when Prometheus is not there (or gpuctl's config
    file, read for kubeconfig context `context`, is wrong)."""
    import time

    from gpuctl.errors import GpuctlError
    from gpuctl.monitoring.prometheus import NotConfigured

    try:
        prometheus = Prometheus(url_from(prometheus_url, context))
        namespace = details.job["metadata"]["namespace"]
        pods = [p["metadata"]["name"] for p in details.pods]
        usages = gpu.pod_usage(prometheus, namespace, pods, since, time.time())
    except NotConfigured:
        return (
            f"GPU usage:  no Prometheus configured (--prometheus-url, ${ENV_VAR}, or "
            "`gpuctl config set-prometheus URL`)\n"
        )
    except GpuctlError as exc:
        return f"GPU usage:  {exc}\n"
    if not usages:
        return "GPU usage:  no pods\n"
    rows = []
    for usage in usages:
        cells = gpu.figure_cells(usage.now)
        rows.append([usage.pod, *cells, sparkline(usage.util_history, 100.0)])
    headers = ["POD", "GPUS", "GPU-UTIL", "GPU-MEM", "TEMP", f"UTIL LAST {since_text}"]
    body = table.table(headers, rows)
    return "GPU usage (Prometheus):\n" + "".join(f"  {line}\n" for line in body.splitlines())


def range_sparkline(values: list[float], width: int = SPARK_WIDTH) -> str:
    """`values` (oldest first) as block characters from their lowest to their highest: a
    loss going from 2.1 to 1.7 fills the range, as a curve of it would."""
    if not values:
        return "-"
    low = min(values)
    return sparkline([v - low for v in values], max(values) - low, width)


def own_metrics_section(
    details: jobs.Details,
    prometheus_url: str | None,
    context: str | None,
    since: float,
    since_text: str,
) -> str:
    """`describe job`'s curves of the values the job pushed (loss, throughput, progress, ...):
    each one's last value and its curve over the last `since` seconds. Nothing when the job
    pushed none, or without a Prometheus (the GPU usage section above says why)."""
    import time

    from gpuctl.errors import GpuctlError
    from gpuctl.monitoring import custom

    try:
        prometheus = Prometheus(url_from(prometheus_url, context))
        namespace, name = jobs.job_of(details.job)
        end = time.time()
        step = max(since / gpu.HISTORY_POINTS, 1.0)
        series = custom.job_series(prometheus, namespace, name, end - since, end, step)
    except GpuctlError:
        return ""
    if not series:
        return ""
    rows = []
    for key in custom.drawing_order(series):
        values = [point["value"] for point in series[key]]
        rows.append([key, f"{values[-1]:.4g}", range_sparkline(values)])
    body = table.table(["METRIC", "NOW", f"LAST {since_text} (LOW TO HIGH)"], rows)
    return "Job metrics (pushed):\n" + "".join(f"  {line}\n" for line in body.splitlines())
