"""`gpuctl controller`: manifests, plan (a placement dry run) and run (the controller)."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import click

from gpuctl.cli import table
from gpuctl.cli.main import CONTEXT_SETTINGS, dry_run_option
from gpuctl.controller import resource
from gpuctl.errors import Problem, SpecError
from gpuctl.spec.document import Document


def _deployment_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--namespace, --image and --replicas: what `manifests` prints and `install` applies."""
    for option in reversed(
        (
            click.option(
                "-n",
                "--namespace",
                default=resource.NAMESPACE,
                show_default=True,
                help="Where it runs.",
            ),
            click.option(
                "--image",
                default=resource.DEFAULT_CONTROLLER_IMAGE,
                show_default=True,
                help="An image whose entrypoint is gpuctl.",
            ),
            click.option(
                "--replicas",
                type=click.IntRange(1),
                default=1,
                show_default=True,
                help="Controller pods (one leads, the others stand by; 2 or more also get a "
                "PodDisruptionBudget).",
            ),
        )
    ):
        command = option(command)
    return command


@click.group(context_settings=CONTEXT_SETTINGS)
def controller() -> None:
    """The GPUWorkload scheduling controller (gpu.warp.dev/v1alpha1)."""


@controller.command()
@_deployment_options
@click.option("--crd-only", is_flag=True, help="Only the CustomResourceDefinition.")
def manifests(namespace: str, image: str, replicas: int, crd_only: bool) -> None:
    """Print the CRD, namespace, ServiceAccount, roles and Deployment that install it."""
    objects = [resource.crd()] if crd_only else resource.manifests(namespace, image, replicas)
    click.echo(resource.to_yaml(objects), nl=False)


@controller.command()
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Path to the kubeconfig file.")
@click.option("--context", help="The kubeconfig context to use.")
@_deployment_options
@dry_run_option
def install(
    kubeconfig: str | None,
    context: str | None,
    namespace: str,
    image: str,
    replicas: int,
    dry_run: str,
) -> int:
    """Apply what `gpuctl controller manifests` prints (through `gpuctl apply`'s verb: what is
    unchanged stays, what changed is updated), then wait until GPUWorkloads are served.

    \b
    gpuctl controller install
    gpuctl controller install --namespace gpu-system --replicas 2 --dry-run=server
    """
    from gpuctl.cli.main import progress_line, show_result
    from gpuctl.cluster.client import Cluster
    from gpuctl.controller.install import install_manifests, wait_established
    from gpuctl.verbs.apply import Apply
    from gpuctl.verbs.common import DryRun

    cluster = Cluster.connect(kubeconfig, context)
    manifests = install_manifests(cluster, namespace, image, replicas)
    result = Apply(cluster, DryRun(dry_run), progress=progress_line(), prune=False).run(manifests)
    show_result(result)
    if not result.ok:
        return 1
    if DryRun(dry_run) is DryRun.NONE:
        wait_established(cluster)
        click.echo(f"{resource.CRD_NAME} established: kubectl get {resource.PLURAL}")
    return 0


# --------------------------------------------------------------------------- plan


def _check(document: Document) -> list[Problem]:
    """A GPUWorkload document against the CRD's schema, each problem at its line."""
    import jsonschema

    data = document.data
    if not isinstance(data, dict):
        return [document.problem((), "expected a GPUWorkload object")]
    problems = []
    if data.get("apiVersion") != resource.API_VERSION:
        problems.append(document.problem(("apiVersion",), f"expected {resource.API_VERSION}"))
    if data.get("kind") != resource.KIND:
        problems.append(document.problem(("kind",), f"expected {resource.KIND}"))
    schema = resource.json_schema(resource.spec_schema())
    validator = jsonschema.Draft202012Validator(schema)
    for error in validator.iter_errors(data.get("spec")):
        problems.append(document.problem(("spec", *error.absolute_path), error.message))
    return problems


def _plan_rows(placement: Any) -> list[list[str]]:
    rows = []
    for candidate in placement.candidates:
        node = candidate.node
        if candidate.rank == 1:
            verdict = f"chosen: {candidate.reason}"
        elif candidate.suitable:
            verdict = candidate.reason
        else:
            verdict = f"not suitable: {candidate.reason}"
        rows.append(
            [
                str(candidate.rank) if candidate.suitable else "-",
                node.name,
                str(node.gpus),
                str(node.free),
                f"{candidate.score:g}" if candidate.suitable else "-",
                verdict,
            ]
        )
    return rows


@controller.command()
@click.option(
    "-f",
    "--filename",
    "files",
    multiple=True,
    required=True,
    metavar="FILE",
    help="GPUWorkload YAML (a file, a directory, or - for stdin). Repeatable.",
)
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Path to the kubeconfig file.")
@click.option("--context", help="The kubeconfig context to use.")
@click.option("--seed", type=int, help="Seed the random strategy (the same draw every time).")
@click.option(
    "-l",
    "--node-selector",
    help="Place only on nodes with these labels (a label selector: gpu=a100,team!=ml).",
)
def plan(
    files: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    seed: int | None,
    node_selector: str | None,
) -> int:
    """Where each GPUWorkload would go: every node's score, and why it was or was not chosen.

    Reads nodes and pods (and placed GPUWorkloads) from the cluster; writes nothing.
    """
    from gpuctl.cluster.client import Cluster
    from gpuctl.controller import view as cluster_view
    from gpuctl.controller.workload import Workload
    from gpuctl.spec.document import load_files

    documents = load_files(files)
    problems = [problem for document in documents for problem in _check(document)]
    if problems:
        raise SpecError(problems)
    cluster = Cluster.connect(kubeconfig, context)
    view = cluster_view.read_cluster(cluster, None, node_selector)
    workloads = [Workload.of(document.data) for document in documents]
    placements = cluster_view.plan(view, workloads, random.Random(seed))
    unplaced = 0
    for index, (workload, placement) in enumerate(zip(workloads, placements, strict=True)):
        chosen = placement.chosen.name if placement.chosen else "no node"
        unplaced += placement.chosen is None
        if index:
            click.echo()
        click.echo(
            f"{resource.SINGULAR}/{workload.name}: {workload.gpus} GPU(s), "
            f"{workload.strategy} -> {chosen}"
        )
        headers = ["RANK", "NODE", "GPUS", "FREE", "SCORE", "WHY"]
        click.echo(table.table(headers, _plan_rows(placement)), nl=False)
        if placement.chosen is None:
            click.echo(placement.reason)
    return 1 if unplaced else 0


# --------------------------------------------------------------------------- run


@controller.command()
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Path to the kubeconfig file.")
@click.option("--context", help="The kubeconfig context to use.")
@click.option(
    "-n",
    "--namespace",
    help="Reconcile only the GPUWorkloads of this namespace (default: every namespace); "
    "its Lease lives there too.",
)
@click.option(
    "--lease-namespace",
    help="Where its Lease lives (default: the --namespace, else $POD_NAMESPACE, else the "
    "kubeconfig context's).",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    default=8080,
    show_default=True,
    help="Port of the Prometheus endpoint (/metrics).",
)
@click.option(
    "--health-port",
    type=click.IntRange(0, 65535),
    default=8081,
    show_default=True,
    help="Port of the probes' endpoints (/healthz, /readyz).",
)
@click.option(
    "--leader-elect/--no-leader-elect",
    default=True,
    show_default=True,
    help="Reconcile only while holding the Lease gpu-orchestrator (for several replicas).",
)
@click.option(
    "-l",
    "--node-selector",
    help="Place only on nodes with these labels (a label selector: gpu=a100,team!=ml).",
)
@click.option(
    "--node-check-interval",
    type=click.FloatRange(0.1),
    default=10.0,
    show_default=True,
    help="Seconds between looks at the node of a placed workload whose pod has not started "
    "(placed again when the node is NotReady or gone).",
)
@click.option(
    "--not-ready-grace",
    type=click.FloatRange(0),
    default=30.0,
    show_default=True,
    help="Seconds a node must have been NotReady before its waiting workloads are placed again.",
)
@click.option("-v", "--verbose", is_flag=True, help="Log debug messages too (the caches' watches).")
@click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text, or json: one object a line (ts, level, logger, msg) for a log pipeline.",
)
def run(
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    lease_namespace: str | None,
    metrics_port: int,
    health_port: int,
    leader_elect: bool,
    node_selector: str | None,
    node_check_interval: float,
    not_ready_grace: float,
    verbose: bool,
    log_format: str,
) -> int:
    """Run the controller: place each GPUWorkload on a node and create its Job there."""
    from gpuctl.cluster.client import Cluster
    from gpuctl.controller import logs, operator

    logs.configure(log_format, verbose)
    cluster = Cluster.connect(kubeconfig, context)
    options = operator.RunOptions(
        namespace=lease_namespace
        or namespace
        or os.environ.get("POD_NAMESPACE")
        or cluster.namespace,
        watch_namespace=namespace,
        metrics_port=metrics_port,
        health_port=health_port,
        leader_elect=leader_elect,
        node_selector=node_selector,
        node_check_seconds=node_check_interval,
        not_ready_grace_seconds=not_ready_grace,
    )
    return operator.run(cluster, options)
