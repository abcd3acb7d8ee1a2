"""The sandbox configuration shipped in examples/ loads and gives the nodes the README names."""

from __future__ import annotations

from pathlib import Path

from gpuctl.sandbox import SandboxConfig

CONFIG = Path(__file__).resolve().parents[2] / "examples" / "sandbox" / "cluster.yaml"


def test_example_cluster_config_loads() -> None:
    config = SandboxConfig.load(CONFIG)
    names = [node.name for node in config.nodes]
    assert names[:2] == ["node1", "node2"]
    assert config.nodes[0].labels["runwhere.ai/gpu-type"] == "A100-100G"
    assert config.nodes[0].capacity["nvidia.com/gpu"] == "8"
