"""The chip–framework check: a job whose image or command clearly targets another vendor's
accelerators than its GPU type's (gpuctl.spec.accelerators).

Each finding is a warning, never a refusal: image names and command lines are read by their
words (a CUDA tag, `torch_npu`, `--device npu`), and a multi-vendor image or a wrapper script
can fool a word match either way. The job is created; the warning names the field and the fix.

- A CUDA build (`nvidia/cuda`, `nvcr.io/...`, a `cuda`/`cuNNN` tag, `vllm/vllm-openai`) on an
  AMD, Intel or Ascend type: CUDA binaries do not run there.
- A ROCm build (`rocm/...`, a `rocm` tag) on a type that is not AMD.
- An Ascend build (`ascend`, `cann`, `mindspore`) on a type that is not Ascend.
- `torch_npu` or `--device npu` in the command on a type that is not Ascend; `--device xpu` or
  `intel_extension_for_pytorch` on a type that is not Intel; `--device cuda` on Intel or Ascend
  (ROCm's PyTorch answers to `cuda`, so AMD is fine).
- DeepSpeed is not checked: it runs on every vendor of the catalog (CUDA, ROCm, Intel XPU and
  Ascend NPU accelerators).

Pure: a spec document in, problems out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from gpuctl.errors import Problem
from gpuctl.spec import accelerators
from gpuctl.spec.accelerators import AMD, ASCEND, INTEL, NVIDIA, Vendor
from gpuctl.spec.document import Document


@dataclass(frozen=True)
class Sign:
    """Words that show a build or a command targets one vendor."""

    vendor: Vendor
    what: str  # how the warning names it
    pattern: re.Pattern[str]
    hint: str


_IMAGE_SIGNS: Final = (
    Sign(
        NVIDIA,
        "a CUDA build",
        re.compile(
            r"(^|/)(nvidia|nvcr\.io)/|(^|[/:_.-])cuda|[:_.-]cu\d{2,3}\b|vllm/vllm-openai", re.I
        ),
        "use the vendor's build of the framework",
    ),
    Sign(AMD, "a ROCm build", re.compile(r"(^|/)rocm/|(^|[/:_.-])rocm", re.I), "use a CUDA build"),
    Sign(
        ASCEND,
        "an Ascend (CANN) build",
        re.compile(r"ascend|(^|[/:_.-])cann|mindspore", re.I),
        "use the vendor's build of the framework",
    ),
)
_COMMAND_SIGNS: Final = (
    Sign(
        ASCEND,
        "Ascend NPUs (torch_npu / --device npu)",
        re.compile(r"torch_npu|--device[= ]npu\b|\bdevice=npu\b", re.I),
        "drop the NPU device, or set resources.gpu-type to an Ascend type",
    ),
    Sign(
        INTEL,
        "Intel XPUs (--device xpu / intel_extension_for_pytorch)",
        re.compile(r"intel_extension_for_pytorch|--device[= ]xpu\b", re.I),
        "drop the XPU device, or set resources.gpu-type to an Intel type",
    ),
    Sign(
        NVIDIA,
        "CUDA devices (--device cuda)",
        re.compile(r"--device[= ]cuda\b", re.I),
        "use the accelerator's device name",
    ),
)
# Vendors that run a sign's target too: ROCm's PyTorch answers to torch.device("cuda").
_ALSO_RUNS: Final = {(NVIDIA.key, "CUDA devices (--device cuda)"): (AMD.key,)}
_HINTS: Final = {
    AMD.key: "a ROCm build, e.g. rocm/pytorch or rocm/vllm",
    ASCEND.key: "a CANN build, e.g. ascendai/pytorch or quay.io/ascend/vllm-ascend",
    INTEL.key: "an XPU build, e.g. intel/intel-extension-for-pytorch",
    NVIDIA.key: "a CUDA build, e.g. nvcr.io/nvidia/pytorch or vllm/vllm-openai",
}


def _resources(data: dict[str, Any]) -> dict[str, Any]:
    resources = data.get("resources")
    return resources if isinstance(resources, dict) else {}


def _environment(data: dict[str, Any]) -> dict[str, Any]:
    environment = data.get("environment")
    return environment if isinstance(environment, dict) else {}


def _mismatch(sign: Sign, vendor: Vendor) -> bool:
    return sign.vendor.key != vendor.key and vendor.key not in _ALSO_RUNS.get(
        (sign.vendor.key, sign.what), ()
    )


def chip_problems(document: Document) -> list[Problem]:
    """Warnings for a workload spec whose image or command targets another vendor than its
    GPU type's; [] for a spec without accelerators."""
    data = document.data if isinstance(document.data, dict) else {}
    res, env = _resources(data), _environment(data)
    if not (isinstance(res.get("gpu"), int) and res["gpu"] > 0):
        return []
    gpu_type = res.get("gpu-type") if isinstance(res.get("gpu-type"), str) else None
    model = accelerators.lookup(gpu_type)
    vendor = model.vendor
    typed = (
        f"resources.gpu-type {gpu_type} is {vendor.title} ({model.resource})"
        if gpu_type
        else f"the job has no resources.gpu-type, so it asks for {vendor.title} GPUs "
        f"({model.resource})"
    )
    problems = []
    image = env.get("image")
    if isinstance(image, str):
        for sign in _IMAGE_SIGNS:
            if sign.pattern.search(image) and _mismatch(sign, vendor):
                problems.append(
                    document.problem(
                        ("environment", "image"),
                        f"image {image} is {sign.what}, but {typed}",
                        f"use {_HINTS[vendor.key]}",
                    )
                )
                break
    problems += _command_problems(document, env, vendor, typed)
    return problems


def _command_problems(
    document: Document, env: dict[str, Any], vendor: Vendor, typed: str
) -> list[Problem]:
    for field_name in ("command", "args"):
        items = env.get(field_name)
        if not isinstance(items, list):
            continue
        words = [str(item) for item in items]
        for index in range(len(words)):
            # `--device` and `npu` are often two items: read each with the one after it
            text = " ".join(words[index : index + 2])
            for sign in _COMMAND_SIGNS:
                if sign.pattern.search(text) and _mismatch(sign, vendor):
                    return [
                        document.problem(
                            ("environment", field_name, index),
                            f"the {field_name} uses {sign.what}, but {typed}",
                            sign.hint,
                        )
                    ]
    return []
