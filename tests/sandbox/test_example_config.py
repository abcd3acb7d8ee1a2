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


def test_a_node_of_another_vendor_gets_its_resource_and_operator_labels() -> None:
    nodes = {node.name: node for node in SandboxConfig.load(CONFIG).nodes}
    amd, ascend, intel = nodes["gpu-mi300x-0"], nodes["npu-910b-0"], nodes["gpu-max1550-0"]
    assert amd.capacity["amd.com/gpu"] == "8" and "nvidia.com/gpu" not in amd.capacity
    assert amd.labels["feature.node.kubernetes.io/amd-gpu"] == "true"
    assert amd.labels["amd.com/gpu.product-name"] == "AMD_Instinct_MI300X_OAM"  # as written
    assert ascend.capacity["huawei.com/Ascend910"] == "8"
    assert ascend.labels["accelerator"] == "huawei-Ascend910"
    assert ascend.labels["runwhere.ai/gpu-type"] == "Ascend910B"
    assert intel.capacity["gpu.intel.com/i915"] == "4"
    assert intel.labels["intel.feature.node.kubernetes.io/gpu"] == "true"
