"""What the simulated cluster looks like and how fast it moves: nodes, timings, bad images."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpuctl.spec import accelerators

# The GPU model label a node of `gpu-type:` gets (gpuctl's runwhere.ai/gpu-type).
GPU_TYPE_LABEL = "runwhere.ai/gpu-type"


@dataclass
class NodeSpec:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    capacity: dict[str, str] = field(default_factory=dict)
    taints: list[dict[str, str]] = field(default_factory=list)


def default_nodes() -> list[NodeSpec]:
    """Two 8×A100 nodes, one 4×T4 node that also shares GPU memory, one CPU-only node."""
    a100 = {"cpu": "96", "memory": "1024Gi", "nvidia.com/gpu": "8", "pods": "110"}
    return [
        NodeSpec("gpu-a100-0", {"runwhere.ai/gpu-type": "A100-80G"}, dict(a100)),
        NodeSpec("gpu-a100-1", {"runwhere.ai/gpu-type": "A100-80G"}, dict(a100)),
        NodeSpec(
            "gpu-t4-0",
            {"runwhere.ai/gpu-type": "T4-16G"},
            {
                "cpu": "32",
                "memory": "256Gi",
                "nvidia.com/gpu": "4",
                "aliyun.com/gpu-mem": "64",
                "pods": "110",
            },
        ),
        NodeSpec("cpu-0", {}, {"cpu": "32", "memory": "128Gi", "pods": "110"}),
    ]


@dataclass
class SandboxConfig:
    """Every delay is in seconds; tests use tiny ones, `sandbox up` realistic-feeling ones."""

    nodes: list[NodeSpec] = field(default_factory=default_nodes)
    pod_start_seconds: float = 1.0  # Pending (scheduled) → Running and ready
    job_run_seconds: float = 5.0  # Running → Succeeded for pods whose restartPolicy is not Always
    pod_termination_seconds: float = 0.5  # graceful deletion, capped by the pod's own grace period
    log_interval_seconds: float = 0.5  # one deterministic log line per interval while running
    crash_after_seconds: float = 2.0  # how long a crashing container runs before it exits
    # The kubelet's back-offs keep their real durations (crash loops: 10 s doubling to 5 min,
    # reset after 10 min of running; image pulls: 10 s) multiplied by this; tests shrink it.
    backoff_time_scale: float = 1.0
    tick_seconds: float = 0.02  # controller loop period
    bookmark_seconds: float = 1.0  # how often a watch with allowWatchBookmarks gets one
    watch_history: int = 10000  # events kept for watches from an old resourceVersion
    # image name patterns (fnmatch) that never pull, or start and then crash
    image_pull_errors: list[str] = field(default_factory=lambda: ["*:does-not-exist", "*/missing*"])
    crashing_images: list[str] = field(default_factory=lambda: ["*crash*"])
    # hostPath paths (fnmatch) that exist on no node: a volume of type File, Directory, Socket,
    # CharDevice or BlockDevice there cannot be mounted (DirectoryOrCreate makes the directory)
    missing_host_paths: list[str] = field(default_factory=lambda: ["*/missing*"])
    # httpGet probe paths (fnmatch) the simulated container answers with HTTP 500
    failing_probe_paths: list[str] = field(default_factory=lambda: ["/unhealthy*"])
    # probes keep their real delays and periods multiplied by this; tests shrink it
    probe_time_scale: float = 1.0
    kubernetes_version: str = "1.32"

    @classmethod
    def fast(cls, **overrides: Any) -> SandboxConfig:
        """Timings for tests: things happen within a few ticks."""
        values: dict[str, Any] = {
            "pod_start_seconds": 0.05,
            "job_run_seconds": 0.1,
            "pod_termination_seconds": 0.05,
            "log_interval_seconds": 0.02,
            "crash_after_seconds": 0.02,
            "backoff_time_scale": 0.005,  # 10 s → 50 ms, 5 min → 1.5 s
            "probe_time_scale": 0.005,
            "tick_seconds": 0.01,
            "bookmark_seconds": 0.2,
        }
        values.update(overrides)
        return cls(**values)

    @classmethod
    def load(cls, path: str | Path) -> SandboxConfig:
        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise ValueError("expected a mapping at the top")
        values: dict[str, Any] = {}
        for key, value in data.items():
            key = key.replace("-", "_")
            if key == "nodes":
                values["nodes"] = [_node(n) for n in value]
            elif key in cls.__dataclass_fields__:
                values[key] = value
            else:
                raise ValueError(f"unknown setting {key!r}")
        return cls(**values)

    def image_fails_pull(self, image: str) -> bool:
        return any(fnmatch.fnmatchcase(image, p) for p in self.image_pull_errors)

    def image_crashes(self, image: str) -> bool:
        return any(fnmatch.fnmatchcase(image, p) for p in self.crashing_images)

    def host_path_missing(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, p) for p in self.missing_host_paths)

    def probe_fails(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, p) for p in self.failing_probe_paths)


def _node(data: dict[str, Any]) -> NodeSpec:
    """A node of the config file. `gpu-type: MI300X` with `gpus: 8` is a node of that model:
    `gpus` devices of the model's resource name (gpuctl.spec.accelerators: amd.com/gpu), its
    vendor's operator labels and runwhere.ai/gpu-type; `labels` and `capacity` win."""
    capacity = {str(k): str(v) for k, v in (data.get("capacity") or {}).items()}
    capacity.setdefault("pods", "110")
    labels = {str(k): str(v) for k, v in (data.get("labels") or {}).items()}
    if data.get("gpu-type"):
        model = accelerators.lookup(str(data["gpu-type"]))
        labels = {
            **accelerators.operator_labels(model),
            GPU_TYPE_LABEL: str(data["gpu-type"]),
            **labels,
        }
        capacity.setdefault(model.resource, str(data.get("gpus", 8)))
    return NodeSpec(
        name=str(data["name"]),
        labels=labels,
        capacity=capacity,
        taints=list(data.get("taints") or []),
    )
