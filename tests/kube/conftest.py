"""`local`: the session's local control plane (tests/kube/session.py) with a namespace per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuctl.sandbox.testing import Cluster
from tests.kube import controlplane, session


@pytest.fixture
def local(tmp_path: Path) -> Iterator[Cluster]:
    reason = controlplane.unavailable_reason()
    if reason:
        pytest.skip(reason)
    with session.local_cluster(tmp_path) as cluster:
        yield cluster
