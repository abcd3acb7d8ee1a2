"""Shared fixtures: `sandbox` (one simulated cluster per test) and `cluster` (the sandbox by
default; the real cluster in KUBECONFIG as well when GPUCTL_E2E=1, marked e2e)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuctl.sandbox.testing import Cluster, SandboxCluster, real_cluster, running_sandbox

E2E = os.environ.get("GPUCTL_E2E") == "1"


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[SandboxCluster]:
    """A sandbox on a free port with test timings; `.kubeconfig`, `.url`, `.faults`,
    `.requests`, `.api_client()`, `.kubectl(...)`; the objects go in namespace `default`."""
    with running_sandbox(tmp_path) as cluster:
        yield cluster


@pytest.fixture(params=[pytest.param("sandbox"), pytest.param("real", marks=pytest.mark.e2e)])
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Cluster]:
    """A conformance scenario's cluster: the same test runs against both, so they must agree."""
    if request.param == "real":
        if not E2E:
            pytest.skip("needs a real cluster: GPUCTL_E2E=1 with KUBECONFIG (make e2e)")
        with real_cluster(tmp_path) as real:
            yield real
    else:
        with running_sandbox(tmp_path, namespace="conformance") as fake:
            yield fake
