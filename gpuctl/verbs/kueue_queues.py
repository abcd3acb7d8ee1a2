"""The LocalQueues of the pools that are Kueue ClusterQueues (see constants.KUEUE_GROUP).

Render puts a pool's name in the queue label of the pool's training jobs when the pool is a
ClusterQueue; Kueue admits such a job only through a LocalQueue of that name in the job's
namespace. create and apply make it, after the jobs, the first time a namespace runs a job in
the pool (Kueue takes up a job queued before its LocalQueue exists once it appears); it stays,
shared by the namespace's later jobs, until the pool is deleted (`for_pools`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Forbidden, KubeError, NotFound
from gpuctl.inventory.kueue import served_kueue_version
from gpuctl.render.engine import Manifest, render_local_queue
from gpuctl.verbs.common import DryRun, ObjectResult, VerbResult
from gpuctl.verbs.plan import desired_object


def wanted(manifests: Sequence[Manifest]) -> list[tuple[str, str]]:
    """(pool, namespace) of each job queued to its own pool's ClusterQueue."""
    found = set()
    for manifest in manifests:
        labels = manifest.obj["metadata"].get("labels") or {}
        pool = labels.get(c.Labels.POOL)
        if (
            workloads.adapter(manifest.kind) is not None
            and pool
            and pool != c.DEFAULT_POOL
            and labels.get(c.KUEUE_QUEUE_LABEL) == pool
        ):
            found.add((pool, manifest.namespace))
    return sorted(found)


def ensure(cluster: ClusterAPI, manifests: Sequence[Manifest], dry_run: DryRun) -> VerbResult:
    """Create the LocalQueues the jobs need and lack. One that cannot be created is a warning
    (the job exists, and stays Queued until the LocalQueue does)."""
    result = VerbResult(dry_run=dry_run)
    pairs = wanted(manifests)
    # where Kueue is gone, the oldest version: the create then says so, as a warning
    version = (served_kueue_version(cluster) or c.KUEUE_VERSIONS[-1]) if pairs else ""
    for pool, namespace in pairs:
        manifest = render_local_queue(pool, namespace, version)
        try:
            if dry_run is not DryRun.NONE:
                if cluster.find("LocalQueue", pool, namespace) is None:
                    result.objects.append(ObjectResult("LocalQueue", pool, namespace, "created"))
                continue
            cluster.create(desired_object(manifest))
        except AlreadyExists:
            continue
        except KubeError as exc:
            result.warnings.append(
                f"{manifest.ref} in namespace {namespace} could not be created ({exc}): the "
                f"jobs of pool {pool} in {namespace} stay Queued until an administrator "
                "creates it"
            )
            continue
        result.objects.append(ObjectResult("LocalQueue", pool, namespace, "created"))
    return result


def for_pools(cluster: ClusterAPI, pools: Sequence[str]) -> list[tuple[str, str, str]]:
    """(kind, name, namespace) of every LocalQueue gpuctl made for these pools, in any
    namespace: what deleting the pools deletes too (none where the cluster has no Kueue)."""
    targets = []
    for pool in pools:
        selector = f"{c.Labels.POOL}={pool},{c.Labels.MANAGED_BY}={c.MANAGED_BY_VALUE}"
        try:
            queues = cluster.list("LocalQueue", label_selector=selector)
        except (NotFound, Forbidden):
            return []
        targets += [
            ("LocalQueue", q["metadata"]["name"], q["metadata"]["namespace"]) for q in queues
        ]
    return targets
