"""GPU figures per pod, per job and per node from the DCGM exporter's series (data only).

The NVIDIA DCGM exporter publishes one series per GPU: DCGM_FI_DEV_GPU_UTIL (%),
DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE (MiB), DCGM_FI_DEV_GPU_TEMP (°C), labelled with the
node (`Hostname`) and, for a GPU a pod holds, its `namespace` and `pod`.

Only NVIDIA's series are read. The other vendors' exporters are named in the accelerator catalog
(gpuctl.spec.accelerators: AMD's device-metrics-exporter gpu_gfx_activity, gpu_used_vram,
gpu_junction_temperature; Intel's XPU Manager xpum_engine_ratio, xpum_memory_used_bytes,
xpum_temperature_celsius; Ascend's npu-exporter npu_chip_info_utilization,
npu_chip_info_hbm_used_memory, npu_chip_info_temperature): their nodes show `-` figures, and
`unread_vendors` says so in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl.cluster.api import ClusterAPI
from gpuctl.constants import Labels
from gpuctl.inventory import jobs, nodes, status
from gpuctl.monitoring.prometheus import Prometheus
from gpuctl.spec import accelerators

UTIL = "DCGM_FI_DEV_GPU_UTIL"
FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
TEMP = "DCGM_FI_DEV_GPU_TEMP"
NODE_LABEL = "Hostname"  # the DCGM exporter's node label
MISSING = "-"


@dataclass
class Figures:
    """What a set of GPUs shows now: their count, mean utilisation, memory and hottest one."""

    gpus: int = 0
    util: float = 0.0  # mean over the GPUs, %
    used_mib: float = 0.0
    total_mib: float = 0.0
    temp: float = 0.0  # the hottest, °C

    def add(self, other: Figures) -> None:
        total = self.gpus + other.gpus
        if total:
            self.util = (self.util * self.gpus + other.util * other.gpus) / total
        self.gpus = total
        self.used_mib += other.used_mib
        self.total_mib += other.total_mib
        self.temp = max(self.temp, other.temp)


def _selector(matchers: dict[str, str]) -> str:
    inner = ",".join(f'{key}="{_escape(value)}"' for key, value in sorted(matchers.items()))
    return "{" + inner + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def figures_by(
    prometheus: Prometheus, group: Sequence[str], matchers: dict[str, str] | None = None
) -> dict[tuple[str, ...], Figures]:
    """Figures per distinct value of the `group` labels, over series matching `matchers`."""
    where = _selector(matchers or {})
    by = ", ".join(group)
    queries = {
        "gpus": f"count by ({by}) ({UTIL}{where})",
        "util": f"avg by ({by}) ({UTIL}{where})",
        "used_mib": f"sum by ({by}) ({FB_USED}{where})",
        "total_mib": f"sum by ({by}) ({FB_USED}{where} + {FB_FREE}{where})",
        "temp": f"max by ({by}) ({TEMP}{where})",
    }
    result: dict[tuple[str, ...], Figures] = {}
    for field, promql in queries.items():
        for sample in prometheus.query(promql):
            key = tuple(sample.labels.get(label, "") for label in group)
            figures = result.setdefault(key, Figures())
            setattr(figures, field, int(sample.value) if field == "gpus" else sample.value)
    return result


def pod_figures(prometheus: Prometheus, namespace: str | None) -> dict[tuple[str, str], Figures]:
    """(namespace, pod) -> figures of the GPUs the pod holds."""
    matchers = {"namespace": namespace} if namespace else {}
    found = figures_by(prometheus, ("namespace", "pod"), matchers)
    return {(key[0], key[1]): value for key, value in found.items() if key[1]}


# ---------------------------------------------------------------------------- top


def figure_cells(figures: Figures | None) -> list[str]:
    if figures is None or not figures.gpus:
        return [MISSING] * 4
    return [
        str(figures.gpus),
        f"{figures.util:.0f}%",
        f"{figures.used_mib / 1024:.1f}/{figures.total_mib / 1024:.1f}Gi",
        f"{figures.temp:.0f}°C",
    ]


SORT_KEYS = ("util", "memory", "temp", "name")


def _order(sort_by: str) -> Any:
    def key(item: tuple[str, Figures | None]) -> Any:
        name, figures = item
        if sort_by == "name" or figures is None:
            return (figures is None, 0.0, name)
        value = {"util": figures.util, "memory": figures.used_mib, "temp": figures.temp}[sort_by]
        return (False, -value, name)

    return key


JOB_HEADERS = ("NAME", "POOL", "GPUS", "GPU-UTIL", "GPU-MEM", "TEMP")


def job_figures(
    cluster: ClusterAPI, prometheus: Prometheus, namespace: str | None, pool: str | None
) -> dict[tuple[str, str], tuple[str, Figures | None]]:
    """(namespace, job) -> (pool, figures over its pods' GPUs, None when none reports)."""
    by_pod = pod_figures(prometheus, namespace)
    result: dict[tuple[str, str], tuple[str, Figures | None]] = {}
    for pod in jobs.list_pods(cluster, namespace, pool):
        labels = pod["metadata"].get("labels") or {}
        job = status.job_name_of(labels)
        ns = pod["metadata"].get("namespace", "")
        pool_name, figures = result.get((ns, job), (labels.get(Labels.POOL, ""), None))
        own = by_pod.get((ns, pod["metadata"]["name"]))
        if own is not None:
            figures = figures or Figures()
            figures.add(own)
        result[(ns, job)] = (pool_name, figures)
    return result


def job_rows(
    found: dict[tuple[str, str], tuple[str, Figures | None]], sort_by: str, all_namespaces: bool
) -> tuple[list[str], list[list[str]]]:
    headers = ["NAMESPACE", *JOB_HEADERS] if all_namespaces else list(JOB_HEADERS)
    items = sorted(
        ((f"{ns}/{job}", figures) for (ns, job), (_, figures) in found.items()),
        key=_order(sort_by),
    )
    rows = []
    for qualified, figures in items:
        ns, job = qualified.split("/", 1)
        row = [job, found[(ns, job)][0] or nodes.NONE, *figure_cells(figures)]
        rows.append([ns, *row] if all_namespaces else row)
    return headers, rows


NODE_HEADERS = ("NAME", "POOL", "GPUS", "GPU-UTIL", "GPU-MEM", "TEMP")


def node_rows(
    cluster: ClusterAPI, prometheus: Prometheus, pool: str | None, sort_by: str
) -> list[list[str]]:
    """Nodes with GPUs (or GPU series): their GPUs' figures now."""
    by_node = {key[0]: value for key, value in figures_by(prometheus, (NODE_LABEL,)).items()}
    listed = nodes.list_nodes(cluster, pool)
    wanted: Iterable[dict[str, Any]] = (
        n for n in listed if nodes.node_gpus(n) or nodes.name_of(n) in by_node
    )
    pools = {nodes.name_of(n): nodes.pool_of(n) for n in listed}
    items = sorted(
        ((nodes.name_of(n), by_node.get(nodes.name_of(n))) for n in wanted), key=_order(sort_by)
    )
    return [[name, pools[name] or nodes.NONE, *figure_cells(figures)] for name, figures in items]


def unread_vendors(cluster: ClusterAPI, pool: str | None) -> list[str]:
    """One line per other vendor with nodes listed: its figures are not read (shown as `-`),
    and the exporter series that would give them."""
    found: dict[str, list[str]] = {}
    for node in nodes.list_nodes(cluster, pool):
        title = nodes.vendor(node)
        if title and title != accelerators.NVIDIA.title:
            found.setdefault(title, []).append(nodes.name_of(node))
    lines = []
    for vendor in accelerators.VENDORS:
        if vendor.title in found and vendor.exporter is not None:
            exporter = vendor.exporter
            series = ", ".join((exporter.utilization, exporter.memory_used, exporter.temperature))
            lines.append(
                f"{vendor.title} nodes ({', '.join(found[vendor.title])}) show - : gpuctl reads "
                f"NVIDIA's DCGM series only, not the {exporter.name}'s ({series})"
            )
    return lines


# ---------------------------------------------------------------------- describe job

HISTORY_POINTS = 60  # samples over the --since window


@dataclass
class PodUsage:
    """One pod's GPUs now, and their mean utilisation over a window."""

    pod: str
    now: Figures | None
    util_history: list[float]  # %, oldest first


def pod_usage(
    prometheus: Prometheus, namespace: str, pods: Sequence[str], since: float, end: float
) -> list[PodUsage]:
    """Now and over [end - since, end] for each of `pods` (5 instant-vector queries and 1
    range query in all, whatever the number of pods)."""
    if not pods:
        return []
    matchers = _pods_matcher(namespace, pods)
    now = pod_figures(prometheus, namespace)
    step = max(since / HISTORY_POINTS, 1.0)
    start = end - since
    util = prometheus.query_range(f"avg by (pod) ({UTIL}{matchers})", start, end, step)
    util_by = {s.labels.get("pod", ""): [v for _, v in s.points] for s in util}
    return [PodUsage(pod, now.get((namespace, pod)), util_by.get(pod, [])) for pod in pods]


def _regex_escape(text: str) -> str:
    """Pod names are DNS names; only `.` needs escaping in a PromQL (RE2) regex."""
    return text.replace(".", "\\.")


def pool_utilisation(prometheus: Prometheus, members: dict[str, list[str]]) -> dict[str, str]:
    """pool -> mean utilisation of the GPUs on its nodes now (`-` when none reports)."""
    by_node = {key[0]: value for key, value in figures_by(prometheus, (NODE_LABEL,)).items()}
    result = {}
    for pool, names in members.items():
        total = Figures()
        for name in names:
            if name in by_node:
                total.add(by_node[name])
        result[pool] = f"{total.util:.0f}%" if total.gpus else MISSING
    return result


# ------------------------------------------------------------ the REST API's job metrics


def _pods_matcher(namespace: str, pods: Sequence[str]) -> str:
    pattern = "|".join(_regex_escape(p) for p in pods)
    return f'{{namespace="{_escape(namespace)}",pod=~"{_escape(pattern)}"}}'


def job_metrics_now(prometheus: Prometheus, namespace: str, pods: Sequence[str]) -> dict[str, Any]:
    """The `metrics` block of a job: mean GPU utilisation (%) and GPU memory used/total over
    its pods' GPUs now; None for each when no GPU of the job reports."""
    figures = Figures()
    found = pod_figures(prometheus, namespace)
    for pod in pods:
        if (namespace, pod) in found:
            figures.add(found[(namespace, pod)])
    if not figures.gpus:
        return {"gpuUtilization": None, "memoryUsage": None}
    return {
        "gpuUtilization": round(figures.util, 1),
        "memoryUsage": f"{figures.used_mib / 1024:.0f}Gi/{figures.total_mib / 1024:.0f}Gi",
    }


# The cheapest query Prometheus answers (no series read): is it there, and is it Prometheus?
REACHABLE = "vector(1)"


def job_metrics_range(
    prometheus: Prometheus,
    namespace: str,
    pods: Sequence[str],
    start: float,
    end: float,
    step: float | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """`GET /jobs/{id}/metrics`: the job's mean GPU utilisation (%) and GPU memory used (GiB)
    over time, as [{"timestamp": RFC 3339 UTC, "value": number}]."""
    from gpuctl.times import rfc3339

    if not pods:  # still asked: an unreachable Prometheus is an outage, pods or none
        prometheus.query(REACHABLE)
        return {"gpuUtilization": [], "memoryUsage": []}
    where = _pods_matcher(namespace, pods)
    step = step or max((end - start) / HISTORY_POINTS, 1.0)
    queries = {
        "gpuUtilization": (f"avg({UTIL}{where})", 1.0),
        "memoryUsage": (f"sum({FB_USED}{where})", 1 / 1024),
    }
    result: dict[str, list[dict[str, Any]]] = {}
    for key, (promql, scale) in queries.items():
        series = prometheus.query_range(promql, start, end, step)
        points = series[0].points if series else []
        result[key] = [
            {
                "timestamp": rfc3339(t),
                "value": round(v * scale, 2),
            }
            for t, v in points
        ]
    return result


def utilisation_by_pod(
    prometheus: Prometheus,
    namespaces: Sequence[str] | None,
    start: float,
    end: float,
    step: float,
) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """(namespace, pod) → the mean GPU utilisation (%) of the pod's GPUs over time, for every
    pod in `namespaces` (None: every namespace) in one range query, however many jobs there
    are: the Jobs list's sparklines. No namespace: nothing asked."""
    if namespaces is not None and not namespaces:
        return {}
    if namespaces is None:
        where = '{pod!=""}'
    else:
        pattern = "|".join(_regex_escape(n) for n in sorted(namespaces))
        where = f'{{namespace=~"{_escape(pattern)}",pod!=""}}'
    found = prometheus.query_range(f"avg by (namespace, pod) ({UTIL}{where})", start, end, step)
    return {
        (series.labels.get("namespace", ""), series.labels.get("pod", "")): series.points
        for series in found
    }
