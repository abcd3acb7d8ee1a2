"""The render options every front end asks of a cluster before a write (the CLI, the REST API
and the GPUWorkload controller): the namespaces, the Kueue version served, and the pools
whose record says they are Kueue ClusterQueues."""

from __future__ import annotations

from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.fake import FakeCluster
from gpuctl.spec.kinds import Options
from gpuctl.verbs.options import cluster_options


def record(pool: str, **data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"{c.POOL_CONFIGMAP_PREFIX}{pool}",
            "namespace": c.SYSTEM_NAMESPACE,
            "labels": {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE, c.Labels.POOL: pool},
        },
        "data": data,
    }


def test_the_options_name_the_kueue_pools_and_the_namespaces() -> None:
    cluster = FakeCluster()
    cluster.served[c.KUEUE_GROUP] = ("v1beta1",)
    cluster.add(record("queued", **{c.POOL_KUEUE_KEY: "true"}), record("plain"))
    assert cluster_options(cluster) == Options(
        namespace=None,
        default_namespace=cluster.namespace,
        kueue="v1beta1",
        kueue_pools=frozenset({"queued"}),
    )
    forced = cluster_options(cluster, "team", "other")
    assert (forced.namespace, forced.default_namespace) == ("team", "other")


def test_a_cluster_without_kueue_has_no_kueue_version() -> None:
    cluster = FakeCluster()
    cluster.served[c.KUEUE_GROUP] = ()
    assert cluster_options(cluster).kueue is None
