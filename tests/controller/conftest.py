"""A sandbox shaped for placement: free GPUs big 8, mid 6 (cheap), small 4 (cheap), cpu 0;
Jobs run for ten minutes, so GPUs stay taken during a test. The CRD is installed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gpuctl.cluster.client import Cluster
from gpuctl.controller import resource
from gpuctl.sandbox import SandboxConfig
from gpuctl.sandbox.config import NodeSpec
from tests.conftest import Env
from tests.controller.scene import Scene, scene_on
from tests.support.sandbox import Cluster as TestCluster
from tests.support.sandbox import SandboxCluster

CHEAP = {"gpu-orchestrator/cheap-node": "true"}


def gpu_node(name: str, gpus: int, labels: dict[str, str] | None = None) -> NodeSpec:
    capacity = {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
    return NodeSpec(name, dict(labels or {}), capacity)


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    nodes = [
        gpu_node("big", 8),
        gpu_node("mid", 6, CHEAP),
        gpu_node("small", 4, CHEAP),
        NodeSpec("cpu", {}, {"cpu": "32", "memory": "128Gi", "pods": "110"}),
    ]
    return SandboxConfig.fast(nodes=nodes, job_run_seconds=600.0)


@pytest.fixture
def crd_env(sandbox: SandboxCluster) -> Env:
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    cluster.create(resource.crd())
    return Env(sandbox, cluster)


def workload(name: str, gpus: int, strategy: str = "leastLoaded", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"modelName": "llama2", "gpuCount": gpus, "schedulingStrategy": strategy, **spec},
    }


@pytest.fixture
def scene(cluster: TestCluster) -> Iterator[Scene]:
    """A controller scenario on the cluster fixture (the sandbox, the real control plane)."""
    with scene_on(cluster) as made:
        yield made
