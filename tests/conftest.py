"""Shared fixtures: `sandbox` (one simulated cluster per test) and `cluster` (the sandbox by
default; the real cluster in KUBECONFIG as well when GPUCTL_E2E=1, marked e2e)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from gpuctl.sandbox import SandboxConfig
from gpuctl.sandbox.testing import Cluster, SandboxCluster, real_cluster, running_sandbox

E2E = os.environ.get("GPUCTL_E2E") == "1"


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """Test timings; override this fixture in a module for other nodes or delays."""
    return SandboxConfig.fast()


@pytest.fixture
def sandbox(tmp_path: Path, sandbox_config: SandboxConfig) -> Iterator[SandboxCluster]:
    """A sandbox on a free port: `.kubeconfig`, `.url`, `.namespace` ("default"), `.faults`,
    `.requests`, `.api_client()`, `.kubectl(...)`, and `.sandbox` (the server itself)."""
    with running_sandbox(tmp_path, sandbox_config) as cluster:
        yield cluster


@pytest.fixture
def make_sandbox(tmp_path: Path) -> Iterator[Callable[..., SandboxCluster]]:
    """More sandboxes, or one with its own config: `make_sandbox(config, namespace="team")`."""
    with ExitStack() as stack:
        made = itertools.count(1)

        def make(config: SandboxConfig | None = None, namespace: str = "default") -> SandboxCluster:
            workdir = tmp_path / f"sandbox-{next(made)}"
            workdir.mkdir()
            return stack.enter_context(running_sandbox(workdir, config, namespace))

        yield make


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
