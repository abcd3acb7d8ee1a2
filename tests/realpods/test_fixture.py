"""The real_pods fixture where real nodes cannot run: a skip that names what is missing, but a
failure under CI=true (CI runs the scenarios, so a machine without their packages is broken)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

SCENARIO = "tests/realpods/test_nodes.py::test_the_real_nodes_are_ready_with_gpus_and_the_images"


def run_without_containerd(**environ: str) -> subprocess.CompletedProcess[str]:
    """One scenario in a pytest of its own whose PATH finds none of the real nodes' tools."""
    ci = {key: value for key, value in os.environ.items() if key != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", SCENARIO, "-p", "no:cacheprovider", "-p", "no:xdist",
         "-rsf", "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
        env={**ci, "PATH": "/nonexistent", **environ},
    )  # fmt: skip


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user the missing root is the reason")
def test_missing_packages_skip_with_the_reason() -> None:
    done = run_without_containerd()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout, done.stdout
    assert "real nodes need containerd, runc, ctr, iptables, ip" in done.stdout, done.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user the missing root is the reason")
def test_missing_packages_fail_under_ci() -> None:
    done = run_without_containerd(CI="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 error" in done.stdout, done.stdout  # a fixture that fails errs its test
    assert "CI runs the real-pod scenarios, but real nodes need containerd" in done.stdout
