"""A pool's GPU cap (max-gpus) on the sandbox: create/apply refuse a job that would take the
pool's jobs beyond it, naming the GPUs used and the cap; `get pools` shows used/cap; a job
applied again counts once."""

from __future__ import annotations

import json

import pytest

from gpuctl.sandbox import SandboxConfig
from tests.conftest import run_gpuctl
from tests.support.sandbox import SandboxCluster

from .test_cluster_scenarios import pods, training, wait
from .test_scenarios import gpuctl

CAPPED = """kind: pool
version: v0.1
metadata: {name: capped}
max-gpus: 8
nodes:
  gpu-a100-0: {}
  gpu-a100-1: {}
"""


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """Training pods that run for the whole test: their GPUs stay requested."""
    return SandboxConfig.fast(job_run_seconds=3600)


def in_capped(name: str, gpus: int) -> str:
    return training(name, gpus).replace("resources:\n", "resources:\n  pool: capped\n")


def test_a_job_beyond_the_pools_cap_is_refused(sandbox: SandboxCluster) -> None:
    created = gpuctl(sandbox, "create", "-f", "-", stdin=CAPPED)
    assert created.returncode == 0, created.stderr
    first = gpuctl(sandbox, "create", "-f", "-", stdin=in_capped("cap-first", 6))
    assert first.returncode == 0, first.stderr
    wait(lambda: pods(sandbox, "cap-first"), 60, "the first job's pod")

    refused = gpuctl(sandbox, "create", "-f", "-", stdin=in_capped("cap-second", 4))
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "error: nothing was created: job.batch/cap-second: pool capped: 6 of 8 GPUs used, "
        "this job asks 4 (cap 8)"
    ), refused.stderr
    assert sandbox.kubectl("get", "job", "cap-second", check=False).returncode != 0

    again = gpuctl(sandbox, "apply", "-f", "-", stdin=in_capped("cap-first", 6))
    assert again.returncode == 0, again.stderr  # its own pods are not counted twice
    fits = gpuctl(sandbox, "create", "-f", "-", stdin=in_capped("cap-third", 2))
    assert fits.returncode == 0, fits.stderr
    wait(lambda: pods(sandbox, "cap-third"), 60, "the third job's pod")

    listed = run_gpuctl(sandbox, "get", "pools", "-o", "json", namespaced=False)
    assert listed.returncode == 0, listed.stderr
    capped = next(p for p in json.loads(listed.stdout)["items"] if p["name"] == "capped")
    assert (capped["gpuCapUsed"], capped["gpuCap"]) == (8, 8)
    table = run_gpuctl(sandbox, "get", "pools", namespaced=False).stdout.splitlines()
    assert table[0].split()[:4] == ["NAME", "NODES", "GPU", "CAP"]
    assert next(line for line in table if line.startswith("capped")).split()[3] == "8/8"
