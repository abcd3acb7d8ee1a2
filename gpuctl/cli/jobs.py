"""`get jobs`, `describe job`, `logs`, `pause`, `resume`: the CLI side (prints)."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click

from gpuctl.cli import complete, table
from gpuctl.cli.main import (
    cluster_options,
    duration,
    echo_objects,
    no_headers_option,
    output_option,
    report,
)
from gpuctl.cli.views import jobs as job_views
from gpuctl.cluster.api import TableCluster
from gpuctl.cluster.client import Cluster
from gpuctl.cluster.resources import ref
from gpuctl.errors import GpuctlError, UsageError
from gpuctl.inventory import jobs
from gpuctl.spec import jobref, kinds

T = TypeVar("T")


@click.command("jobs")
@cluster_options
@click.option("-A", "--all-namespaces", is_flag=True, help="Jobs in every namespace.")
@click.option("--pool", shell_complete=complete.pools, help="Only jobs in this resource pool.")
@click.option(
    "--kind",
    "--type",
    "kind",
    type=click.Choice(kinds.job_kinds()),
    help="Only jobs of this kind.",
)
@click.option("--pods", is_flag=True, help="One row per pod instead of per job.")
@click.option(
    "--prometheus-url",
    metavar="URL",
    help="Prometheus for PROGRESS (else $GPUCTL_PROMETHEUS_URL, else the context's "
    "prometheusUrl in gpuctl's config file; without one, no PROGRESS column).",
)
@output_option
@no_headers_option
def get_jobs(
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    all_namespaces: bool,
    pool: str | None,
    kind: str | None,
    pods: bool,
    prometheus_url: str | None,
    output: str | None,
    no_headers: bool,
) -> None:
    """One row per job: NAME, KIND, POOL, STATUS, READY, GPU, AGE (--pods: one per pod), and
    PROGRESS when a listed job reports its progress (POST /api/v1/metrics/custom).

    \b
    gpuctl get jobs
    gpuctl get jobs --pool training-pool --kind training -o wide
    gpuctl get jobs --pods -A
    """
    from gpuctl.monitoring.prometheus import configured_url

    cluster = Cluster.connect(kubeconfig, context)
    where = None if all_namespaces else (namespace or cluster.namespace)
    progress_from = None if pods else configured_url(prometheus_url, cluster.context)
    with _collector_paused():
        _list_jobs(cluster, where, pool, kind, pods, output, no_headers, progress_from)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """A listing makes some ten objects a pod and keeps them all until printed: Python's cycle
    collector would walk them again and again for nothing (40 % of the client's time over
    10,000 pods). What cycles it leaves are collected once the collector runs again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _list_jobs(
    cluster: TableCluster,
    where: str | None,
    pool: str | None,
    kind: str | None,
    pods: bool,
    output: str | None,
    no_headers: bool,
    progress_from: str | None = None,
) -> None:
    if pods and output in (None, "name"):
        # The server's printed Table has all these need (no pod specs: GPU is wide's).
        lines = jobs.list_pod_lines(cluster, where, pool, kind)
        if output == "name":
            click.echo("".join(f"pod/{line.metadata['name']}\n" for line in lines), nl=False)
        else:
            _echo_rows(
                *job_views.pod_line_rows(lines, wide=False), where=where, no_headers=no_headers
            )
        return
    if pods:
        items = jobs.list_pods(cluster, where, pool, kind)
        headers, rows = job_views.pod_rows(items, wide=output == "wide")
    else:
        found = jobs.list_jobs(cluster, where, pool, kind)
        headers, rows = job_views.job_rows(
            found,
            all_namespaces=where is None,
            wide=output == "wide",
            preempted=jobs.preempted_jobs(cluster, found, where)
            if output in (None, "wide")
            else {},
        )
        if progress_from and output in (None, "wide"):
            _add_progress(progress_from, where, found, headers, rows)
        # -o yaml|json|name: a partial job is the objects that are left of it
        items = [part for item in found for part in item.get("leftovers") or [item]]
    names = [ref(item.get("kind", "Pod"), item["metadata"]["name"]) for item in items]
    if not echo_objects(items, output, names):
        _echo_rows(headers, rows, where=where, no_headers=no_headers)


def _add_progress(
    prometheus_url: str,
    where: str | None,
    found: list[dict[str, Any]],
    headers: list[str],
    rows: list[list[str]],
) -> None:
    """PROGRESS, the percent each job pushed last, when some listed job reports one; a
    Prometheus that fails leaves the table without it, and says why on stderr."""
    from gpuctl.monitoring import custom
    from gpuctl.monitoring.prometheus import Prometheus, PrometheusError

    try:
        reported = custom.progress_now(Prometheus(prometheus_url), where)
    except PrometheusError as exc:
        click.echo(f"warning: PROGRESS: {exc}", err=True)
        return
    cells = custom.progress_cells([jobs.job_of(obj) for obj in found], reported)
    if cells is not None:
        headers.append("PROGRESS")
        for row, cell in zip(rows, cells, strict=True):
            row.append(cell)


def _echo_rows(
    headers: list[str], rows: list[list[str]], *, where: str | None, no_headers: bool
) -> None:
    """The table, its STATUS column in colour on a terminal; a note when it is empty."""
    if not rows:
        scope = "any namespace" if where is None else f"namespace {where}"
        click.echo(f"No jobs found in {scope}.", err=True)
        return
    status_column = headers.index("STATUS")
    colour = table.colour_enabled()
    for row in rows:
        row[status_column] = table.paint(
            row[status_column], table.status_colour(row[status_column]), colour
        )
    click.echo(table.table(headers, rows, no_headers=no_headers), nl=False)


@click.command("job")
@click.argument(
    "references", metavar="JOB...", nargs=-1, required=True, shell_complete=complete.jobs
)
@cluster_options
@click.option(
    "--prometheus-url",
    metavar="URL",
    help="Prometheus for GPU usage (else $GPUCTL_PROMETHEUS_URL, else the context's "
    "prometheusUrl in gpuctl's config file).",
)
@click.option("--since", default="1h", show_default=True, help="The GPU usage curve's window.")
def describe_job(
    references: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    prometheus_url: str | None,
    since: str,
) -> int:
    """Jobs in detail: spec summary, status and why, pods, events, access address, and each
    pod's GPU usage now with a curve of its GPU utilisation (from Prometheus); and the values
    the job pushed (loss, throughput, progress: POST /api/v1/metrics/custom) with their curves.

    JOB is NAME, NAMESPACE/NAME or NAMESPACE.NAME, or the name of one of the job's pods.
    Several are described in turn, a blank line between; each one not found is an error line
    at the end (exit code 1).

    \b
    gpuctl describe job qwen2-7b-llamafactory-sft
    gpuctl describe job alice/qwen2-7b-llamafactory-sft llama3-8b-inference
    gpuctl describe job qwen2-7b-llamafactory-sft --since 6h --prometheus-url http://prom:9090
    """
    window = duration(since)
    cluster = Cluster.connect(kubeconfig, context)
    keys = jobref.locate_all(references, namespace, cluster.namespace)
    errors = []
    shown = 0
    for key in keys:
        try:
            text = _description(cluster, key, prometheus_url, window, since)
        except UsageError:
            raise
        except GpuctlError as exc:
            errors.append(str(exc))
            continue
        click.echo(("\n" if shown else "") + text, nl=False)
        shown += 1
    return report([], errors)


def _description(
    cluster: Cluster, key: jobref.JobKey, prometheus_url: str | None, window: float, since: str
) -> str:
    """One job's description, whole (nothing of it is printed before all of it is read)."""
    from gpuctl.cli.monitoring import own_metrics_section, usage_section

    details = _job_or_pod(
        lambda name: jobs.gather(cluster, name, key.namespace), cluster, key
    ).found
    return "".join(
        (
            job_views.describe(details),
            usage_section(details, prometheus_url, cluster.context, window, since),
            own_metrics_section(details, prometheus_url, cluster.context, window, since),
        )
    )


def _job_or_pod(find: Callable[[str], T], cluster: Cluster, key: jobref.JobKey) -> jobs.ByPod[T]:
    """`find` of the job `key` names, or of the job whose pod it names: then the line `pod
    x-abc12 belongs to job x` on stderr."""
    found = jobs.by_job_or_pod(find, cluster, key.name, key.namespace)
    if found.pod is not None:
        click.echo(f"pod {found.pod} belongs to job {found.job}", err=True)
    return found


@click.command()
@click.argument(
    "references", metavar="JOB...", nargs=-1, required=True, shell_complete=complete.jobs
)
@cluster_options
@click.option("-f", "--follow", is_flag=True, help="Keep printing new lines (and new pods).")
@click.option("--tail", type=int, help="Only the last N lines of each pod.")
@click.option("--since", help="Only lines newer than this, e.g. 10m or 1h.")
@click.option("--grep", help="Only lines matching this regular expression.")
@click.option("--pod", help="Only this pod of the job.")
def logs(
    references: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    follow: bool,
    tail: int | None,
    since: str | None,
    grep: str | None,
    pod: str | None,
) -> int:
    """Print the logs of a job's pods, each line prefixed [pod] when there are several.

    JOB is NAME, NAMESPACE/NAME or NAMESPACE.NAME; a pod's name gives that pod's logs only.
    Several jobs are printed in turn (not with -f or --pod); each one not found is an error
    line at the end (exit code 1).

    \b
    gpuctl logs qwen2-7b-llamafactory-sft -f
    gpuctl logs llama3-8b-inference --tail 100 --grep 'ERROR|WARN'
    gpuctl logs alice.qwen2-7b-llamafactory-sft llama3-8b-inference --tail 10
    """
    try:
        pattern = re.compile(grep) if grep else None
    except re.error as exc:
        raise UsageError(f"--grep {grep!r} is not a regular expression: {exc}") from exc
    if len(references) > 1 and (follow or pod):
        option = "-f" if follow else "--pod"
        raise UsageError(f"{option} takes one job; {len(references)} were given")
    cluster = Cluster.connect(kubeconfig, context)
    keys = jobref.locate_all(references, namespace, cluster.namespace)
    options = jobs.LogOptions(
        follow=follow,
        tail=tail,
        since_seconds=int(duration(since)) if since else None,
        grep=pattern,
        pod=pod,
    )
    errors = []
    stop = threading.Event()
    try:
        for key in keys:
            try:
                _print_logs(cluster, key, options, stop, prefix=len(keys) > 1)
            except UsageError:
                raise
            except GpuctlError as exc:
                errors.append(str(exc))
    except KeyboardInterrupt:  # Ctrl-C ends a follow (or the jobs' logs): how one stops it
        stop.set()
    return report([], errors)


def _print_logs(
    cluster: Cluster,
    key: jobref.JobKey,
    options: jobs.LogOptions,
    stop: threading.Event,
    *,
    prefix: bool,
) -> None:
    """One job's logs (only its pod's when `key` names a pod); `prefix`: every line [pod]."""
    found = _job_or_pod(lambda name: jobs.find_job(cluster, name, key.namespace), cluster, key)
    if found.pod is not None:
        if options.pod not in (None, found.pod):
            raise UsageError(f"{key.name} is a pod of job {found.job}; --pod says {options.pod}")
        options = dataclasses.replace(options, pod=found.pod)
    for line in jobs.stream_logs(cluster, found.found, options, stop, prefix=prefix):
        click.echo(line)


def _find_job(cluster: Cluster, reference: str, namespace: str | None) -> dict[str, Any]:
    """The workload of the job `reference` names (NAME, NAMESPACE/NAME or NAMESPACE.NAME)."""
    key = jobref.locate(reference, namespace, cluster.namespace)
    return jobs.find_job(cluster, key.name, key.namespace)


@click.command()
@click.argument("reference", metavar="JOB", shell_complete=complete.jobs)
@cluster_options
def pause(
    reference: str, kubeconfig: str | None, context: str | None, namespace: str | None
) -> None:
    """Pause a job: a Job is suspended, a Deployment/StatefulSet scaled to zero. JOB is NAME,
    NAMESPACE/NAME or NAMESPACE.NAME.

    \b
    gpuctl pause llama3-8b-inference
    """
    from gpuctl.verbs.pause import Pause  # the verbs load the renderer: not for get/describe

    cluster = Cluster.connect(kubeconfig, context)
    job = _find_job(cluster, reference, namespace)
    for line in Pause(cluster).run(job).lines():
        click.echo(line)


@click.command()
@click.argument("reference", metavar="JOB", shell_complete=complete.jobs)
@cluster_options
def resume(
    reference: str, kubeconfig: str | None, context: str | None, namespace: str | None
) -> None:
    """Resume a paused job (to the replica count it had when paused). JOB is NAME,
    NAMESPACE/NAME or NAMESPACE.NAME.

    \b
    gpuctl resume llama3-8b-inference
    """
    from gpuctl.verbs.pause import Resume

    cluster = Cluster.connect(kubeconfig, context)
    job = _find_job(cluster, reference, namespace)
    for line in Resume(cluster).run(job).lines():
        click.echo(line)
