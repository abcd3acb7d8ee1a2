"""`local`: the session's local control plane (tests/kube/session.py) with a namespace per test;
`kueue_local`: the session's plane with Kueue (its manager running all session)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kube import controlplane, session
from tests.support.sandbox import Cluster


@pytest.fixture
def local(tmp_path: Path) -> Iterator[Cluster]:
    reason = controlplane.unavailable_reason()
    if reason:
        pytest.skip(reason)
    with session.local_cluster(tmp_path) as cluster:
        yield cluster


@pytest.fixture
def kueue_local(tmp_path: Path) -> Iterator[Cluster]:
    reason = controlplane.unavailable_reason()
    if reason:
        pytest.skip(reason)
    with session.local_cluster(tmp_path, session.KUEUE) as cluster:
        yield cluster
