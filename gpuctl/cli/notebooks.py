"""`get notebook`, `scale notebook`, `cp`: the CLI side of working in a notebook (prints)."""

from __future__ import annotations

import re

import click

from gpuctl.cli import table
from gpuctl.cli.main import (
    cluster_options,
    duration,
    echo_objects,
    no_headers_option,
    output_option,
    progress_line,
    report,
    show_result,
    timeout_option,
)
from gpuctl.cli.views import notebooks as notebook_views
from gpuctl.cluster.client import Cluster
from gpuctl.errors import UsageError
from gpuctl.inventory import notebooks
from gpuctl.spec import jobref, quantity


@click.command("notebook")
@click.argument("reference", metavar="[NOTEBOOK]", required=False)
@cluster_options
@output_option
@no_headers_option
def get_notebook(
    reference: str | None,
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    output: str | None,
    no_headers: bool,
) -> None:
    """Notebooks and where to open them: NAME, STATUS, GPU, ADDRESS (with the token), AGE.

    \b
    gpuctl get notebook
    gpuctl get notebook data-prep-notebook
    """
    cluster = Cluster.connect(kubeconfig, context)
    where, name = namespace or cluster.namespace, None
    if reference is not None:
        where, name = jobref.locate(reference, namespace, cluster.namespace)
    found = notebooks.list_notebooks(cluster, where, name)
    if echo_objects(found, output, [f"statefulset/{o['metadata']['name']}" for o in found]):
        return
    if not found:
        click.echo(f"No notebooks found in namespace {where}.", err=True)
        return
    rows = notebook_views.rows(cluster, found)
    click.echo(table.table(notebook_views.HEADERS, rows, no_headers=no_headers), nl=False)


@click.command("scale")
@click.argument("what", metavar="notebook")
@click.argument("reference", metavar="NOTEBOOK")
@click.option("--gpu", "gpus", type=click.IntRange(0, 1024), help="Whole GPUs to have.")
@click.option(
    "--gpu-share",
    help="GPU memory to have on one shared GPU, such as 4Gi (a notebook with gpu-share).",
)
@click.option("--cpu", help="CPU to have (request and limit), such as 4 or 500m.")
@click.option("--memory", help="Memory to have (request and limit), such as 16Gi.")
@timeout_option("for the notebook's StatefulSet to take the new size")
@cluster_options
def scale(
    what: str,
    reference: str,
    gpus: int | None,
    gpu_share: str | None,
    cpu: str | None,
    memory: str | None,
    timeout: str,
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
) -> int:
    """Change a notebook's GPUs, GPU share, CPU or memory.

    CPU and memory change IN PLACE where the cluster can resize a running pod (Kubernetes
    1.33 and later): the notebook keeps running, kernels and all. Otherwise (a GPU change, a
    pod that is not running, a cluster that cannot or will not resize it, such as a lower
    memory limit) the notebook RESTARTS: its pod is replaced by one of the new size (running
    processes and kernels end); its workdirs stay mounted. The output says which happened and
    why. A GPU count that no node of the notebook's pool (and GPU type) has is refused.

    A notebook has whole GPUs (`gpu`) or a share of one (`gpu-share`), as its spec says:
    --gpu changes the first, --gpu-share the second, and each is refused on a notebook with
    the other. To switch, edit the spec (remove gpu-share and set gpu, or the other way
    round) and `gpuctl apply -f` it.

    The change goes through `apply` (an in-place update of the StatefulSet). A later
    `gpuctl apply -f notebook.yaml` sets the size back to what the file says.

    \b
    gpuctl scale notebook data-prep-notebook --gpu 2
    gpuctl scale notebook data-prep-notebook --gpu-share 4Gi
    gpuctl scale notebook data-prep-notebook --cpu 8 --memory 32Gi
    """
    if what not in ("notebook", "notebooks"):
        raise UsageError(f"only notebooks can be scaled: give `notebook NAME`, not {what!r}")
    if gpus is None and gpu_share is None and cpu is None and memory is None:
        raise UsageError("say what to change: --gpu or --gpu-share, --cpu and/or --memory")
    if gpu_share is not None and not _gpu_share(gpu_share):
        raise UsageError(f"--gpu-share {gpu_share!r} is not whole Gi of GPU memory (such as 4Gi)")
    for flag, value in (("--cpu", cpu), ("--memory", memory)):
        if value is not None and not _positive_quantity(value):
            raise UsageError(f"{flag} {value!r} is not a positive quantity (such as 4, 500m, 16Gi)")
    from gpuctl.verbs.scale import ScaleNotebook, Size

    size = Size(gpus, cpu, memory, gpu_share)
    cluster = Cluster.connect(kubeconfig, context)
    key = jobref.locate(reference, namespace, cluster.namespace)
    name = key.name
    verb = ScaleNotebook(cluster, timeout=duration(timeout), progress=progress_line())
    scaled = verb.run(name, key.namespace, size)
    lines = scaled.lines()
    if scaled.errors:
        return report(lines, scaled.errors)
    if scaled.replaced_pod:
        lines.append(f"pod/{scaled.replaced_pod} deleted: it could not start, and is re-made")
    if not scaled.changed and not scaled.replaced_pod:
        return report([f"notebook {name} already has {size.words()}; nothing changed"], [])
    if scaled.resized_pod:
        done = (
            f"notebook {name} resized in place to {size.words()}: pod/{scaled.resized_pod} "
            "keeps running, kernels and all"
        )
    else:
        done = (
            f"notebook {name} restarted: {scaled.restart_reason}; its pod is replaced by one "
            f"with {size.words()}, running kernels end; files in its workdirs are kept"
        )
    return report([*lines, done], [])


def _gpu_share(value: str) -> bool:
    """What a spec's gpu-share may be (its schema's pattern)."""
    from gpuctl.spec import schema

    return (
        re.fullmatch(schema.load("common.json")["$defs"]["gpuShare"]["pattern"], value) is not None
    )


def _positive_quantity(value: str) -> bool:
    try:
        return quantity.parse(value) > 0
    except ValueError:
        return False


@click.command("cp")
@click.argument("source")
@click.argument("destination")
@cluster_options
def cp(
    source: str,
    destination: str,
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
) -> None:
    """Copy files between here and a notebook, like `kubectl cp` (tar over the exec stream;
    the notebook's image needs `tar`). A directory is copied whole; a destination ending in /
    is a directory to copy into.

    \b
    gpuctl cp train.py data-prep-notebook:/home/jovyan/work/train.py
    gpuctl cp ./data data-prep-notebook:/home/jovyan/work/
    gpuctl cp data-prep-notebook:/home/jovyan/work/results ./results
    """
    from gpuctl.verbs import copy

    src, dst = copy.plan(source, destination)  # usage errors before connecting
    remote = dst or src
    assert remote is not None
    cluster = Cluster.connect(kubeconfig, context)
    key = jobref.settle(remote.ref, namespace, cluster.namespace)
    show_result(copy.Copy(cluster).run(source, destination, key.namespace))
