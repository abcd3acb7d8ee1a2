"""The controller's Prometheus metrics, named as gpu-orchestrator names them, in a registry of
their own (served on the metrics port at /metrics)."""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)

# Only the series named below: no `_created` timestamp series beside each counter.
disable_created_metrics()  # type: ignore[no-untyped-call]


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.scheduled = Counter(
            "warp_gpuworkload_scheduled_total",
            "GPUWorkloads placed on a node (a Job created or adopted), by strategy.",
            ["strategy"],
            registry=self.registry,
        )
        self.failed = Counter(
            "warp_gpuworkload_failed_total",
            "Failed scheduling attempts, by reason.",
            ["reason"],
            registry=self.registry,
        )
        self.retries = Counter(
            "warp_gpuworkload_retries_total",
            "Retries scheduled after a failed attempt.",
            registry=self.registry,
        )
        self.replaced = Counter(
            "warp_gpuworkload_replaced_total",
            "Placed GPUWorkloads placed again because their node went NotReady or away "
            "before their pod ran.",
            registry=self.registry,
        )
        self.reconcile_duration = Histogram(
            "warp_gpuworkload_reconcile_duration_seconds",
            "Time one reconcile of a GPUWorkload took, by result.",
            ["result"],
            registry=self.registry,
        )
        self.fragmentation = Gauge(
            "warp_gpuworkload_fragmented_gpus",
            "Free GPUs on Ready nodes that cannot host the largest pending GPUWorkload.",
            registry=self.registry,
        )
        self.leader = Gauge(
            "warp_gpuworkload_leader",
            "1 while this replica holds the leader lease, else 0.",
            registry=self.registry,
        )
