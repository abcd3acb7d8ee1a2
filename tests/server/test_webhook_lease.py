"""The webhook Lease (coordination.k8s.io) on the `cluster` fixture, the sandbox and the local
real control plane alike: one replica holds it and renews it, another is refused until it
expires or is released, and a take-over counts as a transition. The Lease has a name of the
test's own: a `gpuctl serve` of another test on the shared control plane holds the real one.
Expiry is judged on the observing replica's own clock (gpuctl.cluster.lease), shown on the
in-process FakeCluster with a killed holder whose clock was a day off."""

from __future__ import annotations

import contextlib
import time
import uuid

import pytest

from gpuctl import constants as c
from gpuctl.cluster.client import Cluster as GpuctlCluster
from gpuctl.cluster.errors import AlreadyExists
from gpuctl.cluster.fake import FakeCluster
from gpuctl.server.webhooks.worker import Leader
from gpuctl.times import micro_rfc3339
from tests.support.sandbox import Cluster, wait_for

DAY = 86400.0


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


@pytest.mark.parametrize("skew", [-DAY, DAY], ids=["renewed-a-day-ago", "renewed-a-day-ahead"])
def test_a_killed_holders_lease_is_judged_by_this_replicas_clock_not_its_renew_time(
    skew: float,
) -> None:
    """The killed holder's clock was a day behind (its renewTime looks a day old) or ahead
    (it looks renewed in the future): either way this replica takes the Lease once it has
    seen it unchanged for its duration, by its own clock, and not before."""
    api = FakeCluster()
    api.add(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": c.WEBHOOK_LEASE, "namespace": c.SYSTEM_NAMESPACE},
            "spec": {
                "holderIdentity": "killed",
                "leaseDurationSeconds": 1,
                "renewTime": micro_rfc3339(time.time() + skew),
            },
        }
    )
    replica = Leader(api, "replica-b", seconds=1)
    started = time.monotonic()
    assert not replica.hold()
    wait_for(replica.hold, timeout=10, what="replica-b taking the killed holder's lease")
    assert time.monotonic() - started >= 1.0
    held = api.get("Lease", c.WEBHOOK_LEASE, c.SYSTEM_NAMESPACE)["spec"]
    assert (held["holderIdentity"], held["leaseTransitions"]) == ("replica-b", 1)
