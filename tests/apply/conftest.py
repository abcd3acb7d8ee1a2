"""Apply-engine tests: a simulated cluster per test, the real client, gpuctl's actions."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gpuctl import engine
from gpuctl.document import load_text
from gpuctl.kinds import Options
from gpuctl.kube import Cluster
from gpuctl.sandbox.server import Sandbox
from gpuctl.sandbox.testing import SandboxCluster

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
GPUCTL = Path(sys.executable).with_name("gpuctl")


@dataclass
class Env:
    sandbox: Sandbox
    kubeconfig: Path
    cluster: Cluster

    def render(self, text: str, namespace: str | None = None) -> list[engine.Manifest]:
        return engine.render_documents(load_text("spec.yaml", text), Options(namespace=namespace))

    def example(self, name: str) -> list[engine.Manifest]:
        return self.render((EXAMPLES / name).read_text())

    def gpuctl(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(GPUCTL), *args, "--kubeconfig", str(self.kubeconfig)],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "GPUCTL_CACHE_DIR": str(self.kubeconfig.parent / "cache")},
        )

    def objects(self, kind: str, namespace: str | None = "default") -> dict[str, dict[str, Any]]:
        """name -> live object, of every object of `kind` gpuctl manages."""
        items = self.cluster.list(
            kind, namespace, label_selector="app.kubernetes.io/managed-by=gpuctl"
        )
        return {item["metadata"]["name"]: item for item in items}


@pytest.fixture
def env(sandbox: SandboxCluster) -> Env:
    """The shared `sandbox` fixture (tests/conftest.py), with gpuctl's own client on it."""
    return Env(sandbox.sandbox, sandbox.kubeconfig, Cluster.connect(str(sandbox.kubeconfig)))
