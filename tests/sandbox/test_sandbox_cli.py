"""`gpuctl sandbox up|status|down` and starting a sandbox in-process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpuctl.sandbox import Sandbox, SandboxConfig
from gpuctl.sandbox.cli import sandbox
from tests.support.sandbox import SandboxCluster, wait_for


def test_a_stopped_sandbox_frees_its_port() -> None:
    """Start and stop, three times; its speed is benchmarks/bench_sandbox.py's to measure."""
    for _ in range(3):
        sandbox = Sandbox(SandboxConfig.fast()).start()
        port = int(sandbox.url.rsplit(":", 1)[1])
        sandbox.stop()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", port))


def test_up_status_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCTL_SANDBOX_DIR", str(tmp_path / "state"))
    config = tmp_path / "cluster.yaml"
    config.write_text(
        "nodes:\n"
        "  - name: big\n"
        "    labels: {runwhere.ai/gpu-type: H100-80G}\n"
        "    capacity: {cpu: 64, memory: 512Gi, nvidia.com/gpu: 8}\n"
        "pod_start_seconds: 0.1\n"
    )
    kubeconfig = tmp_path / "kc"
    runner = CliRunner()
    try:
        up = runner.invoke(
            sandbox, ["up", "--config", str(config), "--kubeconfig", str(kubeconfig)]
        )
        assert up.exit_code == 0, up.output
        assert up.stdout.strip() == f"export KUBECONFIG={kubeconfig}"
        again = runner.invoke(sandbox, ["up", "--config", str(config)])
        assert again.exit_code == 0, again.output  # kept: `up` may be run twice
        assert again.stdout.strip() == f"export KUBECONFIG={kubeconfig}"
        assert "sandbox already running at http://127.0.0.1:" in again.stderr
        (tmp_path / "other.yaml").write_text(config.read_text())
        other = runner.invoke(sandbox, ["up", "--config", str(tmp_path / "other.yaml")])
        assert other.exit_code == 1
        assert f"without --config {tmp_path / 'other.yaml'}; run `gpuctl sandbox down`" in (
            other.output
        )
        status = runner.invoke(sandbox, ["status"])
        assert status.exit_code == 0 and "big" in status.output and "H100-80G" in status.output
        nodes = subprocess.run(
            ["kubectl", "--kubeconfig", str(kubeconfig), "get", "nodes", "-o", "name"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert nodes.stdout.split() == ["node/big"]
    finally:
        down = runner.invoke(sandbox, ["down"])
    assert down.exit_code == 0, down.output
    gone = runner.invoke(sandbox, ["status"])
    assert gone.exit_code == 1 and "no sandbox is running" in gone.output


def test_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCTL_SANDBOX_DIR", str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "gpuctl", "sandbox", "down"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert result.stderr.strip() == "error: no sandbox is running"
    bad = tmp_path / "bad.yaml"
    bad.write_text("colour: blue\n")
    result = subprocess.run(
        [sys.executable, "-m", "gpuctl", "sandbox", "up", "--config", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1
    assert "unknown setting 'colour'" in result.stderr


def test_make_sandbox_takes_a_config(make_sandbox: Callable[..., SandboxCluster]) -> None:
    from gpuctl.sandbox.config import NodeSpec

    one = make_sandbox(SandboxConfig.fast(nodes=[NodeSpec("solo", capacity={"cpu": "4"})]), "team")
    two = make_sandbox()
    assert one.url != two.url and one.namespace == "team"
    names = one.kubectl("get", "nodes", "-o", "name", namespaced=False).stdout.split()
    assert names == ["node/solo"]


def test_status_says_degraded_when_a_controller_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUCTL_SANDBOX_DIR", str(tmp_path))
    with Sandbox(SandboxConfig.fast()) as running:
        # `status` finds the sandbox through the state file `up` writes; this process serves it
        (tmp_path / "state.json").write_text(
            json.dumps({"pid": os.getpid(), "url": running.url, "kubeconfig": "kc"})
        )
        healthy = CliRunner().invoke(sandbox, ["status"])
        assert healthy.exit_code == 0, healthy.output
        assert healthy.output.startswith(f"running at {running.url}")

        def broken(now: float) -> None:
            raise ValueError("bad quantity")

        running.controllers.passes["job-controller"] = broken
        configmaps = running.registry.get("", "configmaps")  # any change wakes the controllers
        running.api.create(configmaps, "default", {"metadata": {"name": "poke"}})
        wait_for(running.controller_errors, what="the controller error")
        degraded = CliRunner().invoke(sandbox, ["status"])
    assert degraded.exit_code == 1
    assert degraded.output.startswith(f"degraded at {running.url}")
    assert "degraded: the simulated controllers raised 1 error(s):" in degraded.output
    assert "  job-controller: ValueError: bad quantity at " in degraded.output


def test_status_shows_the_gpu_type_from_either_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuctl.sandbox.config import NodeSpec

    monkeypatch.setenv("GPUCTL_SANDBOX_DIR", str(tmp_path))
    gpus = {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "8"}
    nodes = [
        NodeSpec("pool-node", {"runwhere.ai/gpu-type": "A100-80G"}, dict(gpus)),
        NodeSpec("user-node", {"g8s.host/gpu-type": "H100-80G"}, dict(gpus)),
        NodeSpec("cpu-node", {}, {"cpu": "8", "memory": "64Gi"}),
    ]
    with Sandbox(SandboxConfig.fast(nodes=nodes)) as running:
        (tmp_path / "state.json").write_text(
            json.dumps({"pid": os.getpid(), "url": running.url, "kubeconfig": "kc"})
        )
        result = CliRunner().invoke(sandbox, ["status"])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("  ")}
    assert "type=A100-80G " in rows["pool-node"]
    assert "type=H100-80G " in rows["user-node"]
    assert "type=- " in rows["cpu-node"]
