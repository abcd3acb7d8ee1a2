"""The cluster protocols: the real connection offers every one of them; the in-process fake
offers the core, status writes (as a status subresource takes them: `status` only) and log
streams, so the verbs, the inventory and the controller run on it in unit tests.

The first two functions are checked by mypy (`make lint`), not called: a connection that lost
a call of a protocol it is given for fails the type check there."""

from __future__ import annotations

import pytest

from gpuctl.cluster.api import FullClusterAPI, LogCluster, StatusCluster
from gpuctl.cluster.client import Cluster
from gpuctl.cluster.errors import NotFound
from gpuctl.cluster.fake import FakeCluster


def the_real_connection_offers_every_protocol(cluster: Cluster) -> FullClusterAPI:
    return cluster


def the_fake_offers_the_core_status_writes_and_logs(
    fake: FakeCluster,
) -> tuple[StatusCluster, LogCluster]:
    return fake, fake


def _config_map() -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a", "namespace": "default", "labels": {"x": "1"}},
        "data": {"k": "v"},
        "status": {"phase": "Old", "retries": 2},
    }


def test_a_status_write_on_the_fake_merges_into_status_and_leaves_the_rest() -> None:
    fake = FakeCluster()
    fake.add(_config_map())
    before = fake.get("ConfigMap", "a", "default")
    written = fake.patch_status("ConfigMap", "a", "default", {"phase": "New", "retries": None})
    assert written["status"] == {"phase": "New"}  # merge patch: null removes a field
    assert (written["data"], written["metadata"]["labels"]) == ({"k": "v"}, {"x": "1"})
    assert int(written["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])
    assert fake.get("ConfigMap", "a", "default") == written
    assert fake.writes() == [("patch-status", "ConfigMap", "a")]


def test_a_status_write_on_the_fake_of_a_missing_object_is_not_found() -> None:
    fake = FakeCluster()
    with pytest.raises(NotFound):
        fake.patch_status("ConfigMap", "gone", "default", {"phase": "New"})
    assert fake.objects == {}
