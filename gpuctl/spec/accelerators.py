"""Accelerators of every vendor: the one catalog that maps a GPU type to its vendor, the
resource name the vendor's device plugin advertises, the node labels the vendor's operator
or Node Feature Discovery sets, and the exporter whose series monitoring reads.

Pure data and lookups (no cluster): render picks the resource a job asks for, inventory and
placement count every vendor's devices with `gpu_count`, `get nodes` names a node's vendor.

- A GPU type matches a catalog entry (or one of its aliases) ignoring letter case, with `_` and
  spaces read as `-`, and also when a `-` suffix follows it (a memory size or form factor:
  `A100-80G` is an A100, `MI300X-192G` an MI300X, `Max_1550` a Max-1550).
- A GPU type the catalog does not know is NVIDIA's (`nvidia.com/gpu`), as are jobs without a
  GPU type: that is what every cluster without another vendor's device plugin offers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_FLOOR
from typing import Final

from gpuctl import constants as c
from gpuctl.spec import quantity


@dataclass(frozen=True)
class Exporter:
    """A vendor's Prometheus exporter and the series gpuctl reads from it."""

    name: str
    utilization: str  # per device, %
    memory_used: str
    temperature: str


@dataclass(frozen=True)
class Vendor:
    key: str  # how specs and quotas name the vendor: nvidia, amd, intel, ascend
    title: str
    resources: tuple[str, ...]  # device-plugin resource names; the first is the usual one
    # Node labels the vendor's operator, device plugin or NFD rules set on its nodes:
    # (key, value) for a presence label, (key, "") for a label whose value names the product.
    node_labels: tuple[tuple[str, str], ...]
    exporter: Exporter | None
    # The frameworks' words for the device: what DeepSpeed and PyTorch call its accelerator.
    torch_device: str

    @property
    def resource(self) -> str:
        return self.resources[0]

    @property
    def quota_keys(self) -> tuple[str, ...]:
        """The ResourceQuota keys that limit this vendor's devices, one per resource name."""
        return tuple(f"requests.{name}" for name in self.resources)


@dataclass(frozen=True)
class Accelerator:
    gpu_type: str  # the catalog's spelling
    vendor: Vendor
    resource: str  # the device plugin's resource name for this model
    aliases: tuple[str, ...] = ()
    known: bool = True  # False: not in the catalog, NVIDIA by default


NVIDIA: Final = Vendor(
    "nvidia",
    "NVIDIA",
    (c.GPU_RESOURCE,),
    (
        ("nvidia.com/gpu.present", "true"),  # NVIDIA GPU Operator
        ("feature.node.kubernetes.io/pci-10de.present", "true"),  # NFD, PCI vendor 10de
        ("nvidia.com/gpu.product", ""),  # GPU feature discovery
    ),
    Exporter(
        "DCGM exporter", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP"
    ),
    "cuda",
)
AMD: Final = Vendor(
    "amd",
    "AMD",
    ("amd.com/gpu",),
    (
        ("feature.node.kubernetes.io/amd-gpu", "true"),  # AMD GPU Operator's NFD rule
        ("feature.node.kubernetes.io/pci-1002.present", "true"),  # NFD, PCI vendor 1002
        ("amd.com/gpu.product-name", ""),  # AMD node labeller
    ),
    Exporter(
        "AMD device-metrics-exporter",
        "gpu_gfx_activity",
        "gpu_used_vram",
        "gpu_junction_temperature",
    ),
    "cuda",  # ROCm builds of PyTorch answer to torch.device("cuda")
)
INTEL: Final = Vendor(
    "intel",
    "Intel",
    ("gpu.intel.com/i915", "gpu.intel.com/xe"),
    (
        ("intel.feature.node.kubernetes.io/gpu", "true"),  # Intel device plugins' NFD rule
        ("gpu.intel.com/product", ""),  # the NFD rules for data center GPUs
    ),
    Exporter(
        "Intel XPU Manager",
        "xpum_engine_ratio",
        "xpum_memory_used_bytes",
        "xpum_temperature_celsius",
    ),
    "xpu",
)
ASCEND: Final = Vendor(
    "ascend",
    "Huawei Ascend",
    ("huawei.com/Ascend910", "huawei.com/Ascend310P", "huawei.com/Ascend310"),
    (
        ("accelerator", "huawei-Ascend910"),  # what the Ascend device plugin selects on
        ("accelerator", "huawei-Ascend310P"),
        ("accelerator", "huawei-Ascend310"),
        ("feature.node.kubernetes.io/pci-19e5.present", "true"),  # NFD, PCI vendor 19e5
    ),
    Exporter(
        "Ascend npu-exporter",
        "npu_chip_info_utilization",
        "npu_chip_info_hbm_used_memory",
        "npu_chip_info_temperature",
    ),
    "npu",
)
VENDORS: Final = (NVIDIA, AMD, INTEL, ASCEND)
DEFAULT_VENDOR: Final = NVIDIA


def _models(vendor: Vendor, resource: str, *types: str | tuple[str, ...]) -> list[Accelerator]:
    found = []
    for model in types:
        names = (model,) if isinstance(model, str) else model
        found.append(Accelerator(names[0], vendor, resource, names[1:]))
    return found


CATALOG: Final = (
    *_models(
        NVIDIA,
        c.GPU_RESOURCE,
        "B200",
        "H200",
        "H100",
        "H800",
        "H20",
        "A100",
        "A800",
        "A40",
        "A30",
        "A10",
        "L40S",
        "L40",
        "L20",
        "L4",
        "T4",
        "V100",
        ("RTX-4090", "4090"),
    ),
    *_models(AMD, "amd.com/gpu", "MI325X", "MI300X", "MI300A", "MI250X", "MI250", "MI210", "MI100"),
    *_models(
        INTEL,
        "gpu.intel.com/i915",
        ("Max-1550", "Max1550"),
        ("Max-1100", "Max1100"),
        ("Flex-170", "Flex170"),
        ("Flex-140", "Flex140"),
    ),
    *_models(INTEL, "gpu.intel.com/xe", ("Arc-B580", "B580")),
    *_models(
        ASCEND,
        "huawei.com/Ascend910",
        ("Ascend910B", "910B", "Ascend-910B"),
        ("Ascend910", "910", "Ascend-910"),
    ),
    *_models(ASCEND, "huawei.com/Ascend310P", ("Ascend310P", "310P", "Ascend-310P")),
    *_models(ASCEND, "huawei.com/Ascend310", ("Ascend310", "310", "Ascend-310")),
)
ALL_RESOURCES: Final = tuple(name for vendor in VENDORS for name in vendor.resources)


def _spelling(text: str) -> str:
    return text.strip().casefold().replace("_", "-").replace(" ", "-")


# Every spelling of every model, longest first, so `Ascend910B` is not read as `Ascend910`.
_SPELLINGS: Final = sorted(
    ((_spelling(name), model) for model in CATALOG for name in (model.gpu_type, *model.aliases)),
    key=lambda item: -len(item[0]),
)


def lookup(gpu_type: str | None) -> Accelerator:
    """The catalog entry of a GPU type; NVIDIA's `nvidia.com/gpu` for none or an unknown one."""
    wanted = _spelling(gpu_type or "")
    for spelling, model in _SPELLINGS:
        if wanted == spelling or wanted.startswith(spelling + "-"):
            return model
    return Accelerator(gpu_type or "", DEFAULT_VENDOR, DEFAULT_VENDOR.resource, known=False)


def vendor_named(key: str) -> Vendor | None:
    return next((vendor for vendor in VENDORS if vendor.key == key), None)


def vendor_of_resource(resource: str) -> Vendor | None:
    return next((vendor for vendor in VENDORS if resource in vendor.resources), None)


def _count(value: object) -> int:
    if value is None or isinstance(value, bool) or not isinstance(value, str | int | float):
        return 0
    try:
        return max(int(quantity.parse(value).to_integral_value(rounding=ROUND_FLOOR)), 0)
    except (ValueError, ArithmeticError):
        return 0


def gpu_count(resources: Mapping[str, object] | None) -> int:
    """Whole accelerators in a resource list (a container's limits or requests, a node's
    capacity or allocatable): the sum over every vendor's resource names."""
    found = resources or {}
    return sum(_count(found.get(name)) for name in ALL_RESOURCES)


def counts_by_resource(resources: Mapping[str, object] | None) -> dict[str, int]:
    """resource name -> whole devices, for the accelerator resource names present."""
    found = resources or {}
    return {name: _count(found[name]) for name in ALL_RESOURCES if name in found}


def vendor_of_node(
    capacity: Mapping[str, object] | None, labels: Mapping[str, str] | None
) -> Vendor | None:
    """A node's accelerator vendor: the one whose resource it advertises, else the one whose
    operator labelled it, else the one its GPU-type label names; None for none."""
    for name, count in counts_by_resource(capacity).items():
        if count > 0:
            return vendor_of_resource(name)
    labels = labels or {}
    for vendor in VENDORS:
        for key, value in vendor.node_labels:
            if key in labels and (not value or labels[key] == value):
                return vendor
    gpu_type = next((labels[key] for key in c.GPU_TYPE_NODE_LABELS if labels.get(key)), "")
    model = lookup(gpu_type) if gpu_type else None
    return model.vendor if model is not None and model.known else None


def operator_labels(model: Accelerator) -> dict[str, str]:
    """The presence labels the vendor's operator or NFD would set on a node of this model
    (for Ascend, the `accelerator` label of the model's resource): what a simulated node of
    the model carries."""
    labels = {}
    device = model.resource.rsplit("/", 1)[-1]
    for key, value in model.vendor.node_labels:
        if (value == "true" and "pci-" not in key) or (
            key == "accelerator" and value == f"huawei-{device}"
        ):
            labels[key] = value
    return labels
