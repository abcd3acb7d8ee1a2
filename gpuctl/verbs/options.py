"""The render options of a cluster, as every front end asks them before a write (the CLI,
the REST API and the GPUWorkload controller alike): the namespace a spec that names none goes
to, the Kueue version the cluster serves, and the pools that are Kueue ClusterQueues (whose
training jobs render with the pool's queue label, suspended until Kueue admits them)."""

from __future__ import annotations

from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory.kueue import kueue_pools, served_kueue_version
from gpuctl.spec.kinds import Options


def cluster_options(
    cluster: ClusterAPI, namespace: str | None = None, default_namespace: str | None = None
) -> Options:
    """The options to render for `cluster`: in the forced `namespace` whatever the specs say,
    when given; a spec that names none goes to `default_namespace`, else to the
    kubeconfig's namespace. Two reads: the Kueue API discovery and the pool records."""
    return Options(
        namespace=namespace,
        default_namespace=default_namespace or cluster.namespace,
        kueue=served_kueue_version(cluster),
        kueue_pools=kueue_pools(cluster),
    )
