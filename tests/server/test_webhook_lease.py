"""The webhook Lease (coordination.k8s.io) on the `cluster` fixture, the sandbox and the local
real control plane alike: one replica holds it and renews it, another is refused until it
expires or is released, and a take-over counts as a transition. The Lease has a name of the
test's own: a `gpuctl serve` of another test on the shared control plane holds the real one."""

from __future__ import annotations

import contextlib
import uuid

from gpuctl import constants as c
from gpuctl.cluster.client import Cluster as GpuctlCluster
from gpuctl.cluster.errors import AlreadyExists
from gpuctl.server.webhooks.worker import Leader
from tests.support.sandbox import Cluster, wait_for


def test_one_replica_holds_the_webhook_lease_until_it_expires_or_is_released(
    cluster: Cluster,
) -> None:
    api = GpuctlCluster.connect(str(cluster.kubeconfig))
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": c.SYSTEM_NAMESPACE}}
    with contextlib.suppress(AlreadyExists):
        api.create(namespace)
    lease = f"{c.WEBHOOK_LEASE}-{uuid.uuid4().hex[:8]}"
    first = Leader(api, "replica-a", seconds=2, name=lease)
    second = Leader(api, "replica-b", seconds=2, name=lease)
    assert first.hold()
    assert not second.hold()
    assert first.hold()  # renewed by its holder
    held = api.get("Lease", lease, c.SYSTEM_NAMESPACE)
    assert held["spec"]["holderIdentity"] == "replica-a"
    assert held["spec"]["leaseDurationSeconds"] == 2

    wait_for(second.hold, timeout=30, what="replica-b taking the expired lease")
    assert not first.hold()
    held = api.get("Lease", lease, c.SYSTEM_NAMESPACE)
    assert (held["spec"]["holderIdentity"], held["spec"]["leaseTransitions"]) == ("replica-b", 1)

    first.release()  # not its lease: left alone
    assert api.find("Lease", lease, c.SYSTEM_NAMESPACE) is not None
    second.release()
    assert api.find("Lease", lease, c.SYSTEM_NAMESPACE) is None
    assert first.hold()
    first.release()  # nothing of the test is left
