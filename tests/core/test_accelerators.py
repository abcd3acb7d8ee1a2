"""The accelerator catalog, the render of other vendors' GPU types, quotas per vendor, and the
chip–framework check's warnings (gpuctl.spec.accelerators, gpuctl.spec.chips)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuctl.errors import SpecError
from gpuctl.render import engine
from gpuctl.spec import accelerators, chips
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options

from .conftest import REPO


def spec(gpu_type: str | None, image: str = "busybox:1.36", command: str = '["sleep", "1"]') -> str:
    typed = f"  gpu-type: {gpu_type}\n" if gpu_type else ""
    return (
        "kind: training\nversion: v0.1\njob: {name: t}\n"
        f"environment:\n  image: {image}\n  command: {command}\n"
        f"resources:\n  gpu: 2\n{typed}  cpu: 1\n  memory: 1Gi\n"
    )


def limits(text: str) -> dict[str, str]:
    manifests = engine.render_documents(load_text("spec.yaml", text), Options())
    job = next(m for m in manifests if m.kind == "Job")
    found: dict[str, str] = job.obj["spec"]["template"]["spec"]["containers"][0]["resources"][
        "limits"
    ]
    return found


@pytest.mark.parametrize(
    ("gpu_type", "vendor", "resource"),
    [
        ("A100-80G", "nvidia", "nvidia.com/gpu"),
        ("a10-24g", "nvidia", "nvidia.com/gpu"),  # not an A100: the suffix rule stops at `-`
        ("MI300X", "amd", "amd.com/gpu"),
        ("mi300x-192g", "amd", "amd.com/gpu"),
        ("Max_1550", "intel", "gpu.intel.com/i915"),  # Intel's own label value
        ("Arc-B580", "intel", "gpu.intel.com/xe"),
        ("Ascend910B", "ascend", "huawei.com/Ascend910"),
        ("910B-64G", "ascend", "huawei.com/Ascend910"),
        ("Ascend310P", "ascend", "huawei.com/Ascend310P"),
        ("Ascend310", "ascend", "huawei.com/Ascend310"),
        ("my-own-card", "nvidia", "nvidia.com/gpu"),  # unknown: NVIDIA by default
    ],
)
def test_a_gpu_type_maps_to_its_vendor_and_resource(
    gpu_type: str, vendor: str, resource: str
) -> None:
    model = accelerators.lookup(gpu_type)
    assert (model.vendor.key, model.resource) == (vendor, resource)
    assert model.known == (gpu_type != "my-own-card")


@pytest.mark.parametrize(
    ("gpu_type", "resource"),
    [
        (None, "nvidia.com/gpu"),
        ("MI300X", "amd.com/gpu"),
        ("Ascend910B", "huawei.com/Ascend910"),
        ("Flex-170", "gpu.intel.com/i915"),
    ],
)
def test_render_asks_for_the_vendors_resource(gpu_type: str | None, resource: str) -> None:
    found = limits(spec(gpu_type))
    assert {k: v for k, v in found.items() if k not in ("cpu", "memory")} == {resource: "2"}


def test_gpu_count_counts_every_vendor() -> None:
    assert accelerators.gpu_count({"amd.com/gpu": "4", "cpu": "8"}) == 4
    assert accelerators.gpu_count({"huawei.com/Ascend910": 8, "gpu.intel.com/xe": "2"}) == 10
    assert accelerators.gpu_count({"aliyun.com/gpu-mem": "64"}) == 0


def test_a_nodes_vendor_comes_from_its_resource_then_its_labels() -> None:
    by = accelerators.vendor_of_node
    assert by({"amd.com/gpu": "8"}, {}) is accelerators.AMD
    assert by({}, {"accelerator": "huawei-Ascend910"}) is accelerators.ASCEND
    assert by({}, {"intel.feature.node.kubernetes.io/gpu": "true"}) is accelerators.INTEL
    assert by({}, {"runwhere.ai/gpu-type": "MI250X"}) is accelerators.AMD
    assert by({"cpu": "8"}, {}) is None


def quota(users: str) -> dict[str, Any]:
    text = f"kind: quota\nversion: v0.1\nmetadata: {{name: q}}\nusers:\n{users}"
    manifests = engine.render_documents(load_text("quota.yaml", text), Options())
    hard: dict[str, Any] = next(m for m in manifests if m.kind == "ResourceQuota").obj["spec"][
        "hard"
    ]
    return hard


def test_a_quota_limits_each_vendor_on_each_of_its_resource_names() -> None:
    hard = quota("  alice:\n    gpu: 8\n    accelerators: {amd: 4, ascend: 0}\n")
    gpus = {k: v for k, v in hard.items() if "cpu" not in k and "memory" not in k}
    assert gpus == {  # gpu limits every vendor that accelerators does not name
        "requests.nvidia.com/gpu": "8",
        "requests.amd.com/gpu": "4",
        "requests.gpu.intel.com/i915": "8",
        "requests.gpu.intel.com/xe": "8",
        "requests.huawei.com/Ascend910": "0",
        "requests.huawei.com/Ascend310P": "0",
        "requests.huawei.com/Ascend310": "0",
    }


def test_a_quota_of_no_gpus_forbids_every_vendor_and_shares() -> None:
    hard = quota("  alice:\n    gpu: 0\n")
    assert {k: v for k, v in hard.items() if "cpu" not in k and "memory" not in k} == {
        "requests.nvidia.com/gpu": "0",
        "requests.amd.com/gpu": "0",
        "requests.gpu.intel.com/i915": "0",
        "requests.gpu.intel.com/xe": "0",
        "requests.huawei.com/Ascend910": "0",
        "requests.huawei.com/Ascend310P": "0",
        "requests.huawei.com/Ascend310": "0",
        "requests.aliyun.com/gpu-mem": "0",
    }
    shared = quota("  alice:\n    gpu: 4\n    gpu-share: 40Gi\n")
    assert shared["requests.aliyun.com/gpu-mem"] == "40"
    assert "requests.aliyun.com/gpu-mem" not in quota("  alice:\n    gpu: 4\n")


def test_a_quota_may_not_limit_nvidia_twice() -> None:
    with pytest.raises(SpecError) as caught:
        quota("  alice:\n    gpu: 8\n    accelerators: {nvidia: 4}\n")
    assert str(caught.value.problems[0]) == (
        "quota.yaml:7:28: users.alice.accelerators.nvidia: NVIDIA GPUs are limited twice: by "
        "gpu and by accelerators.nvidia (keep one of the two)"
    )


def test_the_quota_schema_names_the_catalogs_vendors() -> None:
    schema = json.loads((REPO / "schemas" / "quota.json").read_text())
    per_user = schema["properties"]["users"]["additionalProperties"]["properties"]
    assert set(per_user["accelerators"]["properties"]) == {v.key for v in accelerators.VENDORS}


def warnings(text: str) -> list[str]:
    return [str(p) for p in chips.chip_problems(load_text("job.yaml", text)[0])]


def test_a_cuda_image_on_an_amd_type_is_warned_about() -> None:
    assert warnings(spec("MI300X", image="vllm/vllm-openai:v0.6.0")) == [
        "job.yaml:5:10: environment.image: image vllm/vllm-openai:v0.6.0 is a CUDA build, but "
        "resources.gpu-type MI300X is AMD (amd.com/gpu) (use a ROCm build, e.g. rocm/pytorch "
        "or rocm/vllm)"
    ]


def test_a_cuda_image_on_an_ascend_type_is_warned_about() -> None:
    found = warnings(spec("Ascend910B", image="nvcr.io/nvidia/pytorch:24.05-py3"))
    assert len(found) == 1
    assert "is a CUDA build, but resources.gpu-type Ascend910B is Huawei Ascend" in found[0]


def test_an_npu_command_on_nvidia_is_warned_about() -> None:
    command = '["python", "train.py", "--device", "npu"]'
    assert warnings(spec(None, command=command)) == [
        "job.yaml:6:35: environment.command[2]: the command uses Ascend NPUs (torch_npu / "
        "--device npu), but the job has no resources.gpu-type, so it asks for NVIDIA GPUs "
        "(nvidia.com/gpu) (drop the NPU device, or set resources.gpu-type to an Ascend type)"
    ]
    assert "torch_npu" in warnings(spec("A100", command='["python", "-c", "import torch_npu"]'))[0]


@pytest.mark.parametrize(
    ("gpu_type", "image", "command"),
    [
        ("MI300X", "rocm/vllm:latest", '["python", "serve.py", "--device", "cuda"]'),
        ("Ascend910B", "ascendai/pytorch:2.1.0", '["python", "train.py", "--device", "npu"]'),
        ("A100", "nvcr.io/nvidia/pytorch:24.05-py3", '["deepspeed", "train.py"]'),
        ("MI300X", "registry.example.com/llama-factory-deepspeed:v0.8.0", '["deepspeed", "x"]'),
    ],
)
def test_matching_builds_and_deepspeed_anywhere_are_not_warned_about(
    gpu_type: str, image: str, command: str
) -> None:
    assert warnings(spec(gpu_type, image=image, command=command)) == []


def test_the_new_examples_pass_the_check() -> None:
    for name in ("inference-amd.yaml", "training-ascend.yaml"):
        path = REPO / "examples" / name
        assert chips.chip_problems(load_text(name, path.read_text())[0]) == []


def test_the_controller_places_gpuworkloads_on_nvidia_gpus_only() -> None:
    from gpuctl.controller.view import view_of

    def node(name: str, resource: str) -> dict[str, Any]:
        capacity = {"cpu": "8", resource: "8"}
        return {
            "metadata": {"name": name},
            "status": {
                "capacity": capacity,
                "allocatable": capacity,
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }

    view = view_of([node("amd-0", "amd.com/gpu"), node("nv-0", "nvidia.com/gpu")], [], [])
    assert {n.name: n.gpus for n in view.capacity.nodes} == {"amd-0": 0, "nv-0": 8}


def test_scaling_a_notebook_keeps_its_vendors_gpus() -> None:
    from gpuctl.verbs.scale import Size, with_size

    def notebook(resources: dict[str, str], gpu_type: str | None) -> dict[str, Any]:
        affinity = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "runwhere.ai/gpu-type", "operator": "In", "values": [t]}
                            ]
                        }
                        for t in ([gpu_type] if gpu_type else [])
                    ]
                }
            }
        }
        pod = {
            "containers": [{"name": "nb", "resources": {"limits": dict(resources)}}],
            **({"affinity": affinity} if gpu_type else {}),
        }
        return {
            "metadata": {"name": "nb", "namespace": "default"},
            "spec": {"template": {"spec": pod}},
        }

    def limits_after(live: dict[str, Any], gpus: int) -> dict[str, str]:
        scaled = with_size(live, Size(gpus=gpus, cpu=None, memory=None))
        found: dict[str, str] = scaled["spec"]["template"]["spec"]["containers"][0]["resources"][
            "limits"
        ]
        return found

    assert limits_after(notebook({"amd.com/gpu": "1"}, "MI300X"), 2) == {"amd.com/gpu": "2"}
    assert limits_after(notebook({}, "Ascend910B"), 1) == {"huawei.com/Ascend910": "1"}
    assert limits_after(notebook({}, None), 1) == {"nvidia.com/gpu": "1"}
    assert limits_after(notebook({"amd.com/gpu": "1"}, "MI300X"), 0) == {}
