"""`real_pods`: the session's control plane with real nodes (tests/kube/nodes.py: kubelet and
containerd on this machine, no kwok node), a namespace per test; and `gpuctl`, the installed
command on it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.conftest import run_gpuctl
from tests.kube import controlplane, nodes, session
from tests.support.sandbox import Cluster


def missing_under_ci(reason: str | None, environ: Mapping[str, str]) -> str | None:
    """The reason, when real pods cannot run here and CI (CI=true) says they must: there a
    missing package is a failure, elsewhere a skip that names it."""
    return reason if reason and environ.get("CI", "").lower() == "true" else None


@pytest.fixture
def real_pods(tmp_path: Path) -> Iterator[Cluster]:
    reason = controlplane.unavailable_reason() or nodes.unavailable_reason()
    if missing_under_ci(reason, os.environ):
        pytest.fail(f"CI runs the real-pod scenarios, but {reason}")
    if reason:
        pytest.skip(reason)
    with session.local_cluster(tmp_path, session.REAL_PODS) as cluster:
        yield cluster


def gpuctl(
    cluster: Cluster, *args: str, stdin: str | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """The installed command against `cluster`, in its namespace."""
    return run_gpuctl(cluster, *args, stdin=stdin, timeout=timeout)
