"""`gpuctl monitoring manifests`: the alert rules and the Grafana dashboard, rendered."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from gpuctl import constants as c
from gpuctl.monitoring.gpu import FB_FREE, FB_USED, NODE_LABEL, TEMP, UTIL
from gpuctl.render import engine

DEFAULT_NAMESPACE = "monitoring"
TEMPERATURE_LIMIT = 85  # °C
IDLE_FOR = "30m"
PENDING_FOR = "15m"
# kube-state-metrics publishes node labels as label_<key, with _ for . / ->; pools appear when
# it is started with --metric-labels-allowlist=nodes=[runwhere.ai/pool].
POOL_LABEL = "label_runwhere_ai_pool"


@dataclass(frozen=True)
class Rule:
    alert: str
    expr: str
    duration: str
    severity: str
    summary: str
    description: str


RULES = (
    Rule(
        "GPUTemperatureHigh",
        f"max by ({NODE_LABEL}, gpu) ({TEMP}) >= {TEMPERATURE_LIMIT}",
        "1m",
        "critical",
        "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} is at {{ $value }} °C",
        f"A GPU at {TEMPERATURE_LIMIT} °C or more throttles and may fail; check its cooling.",
    ),
    Rule(
        "GpuctlJobGPUsIdle",
        f'avg by (namespace, pod) ({UTIL}{{pod!=""}}) < 1',
        IDLE_FOR,
        "warning",
        "The GPUs of pod {{ $labels.namespace }}/{{ $labels.pod }} have been idle for 30 minutes",
        "A pod holds GPUs it has not used for 30 minutes; pause or delete its job to free them "
        "(gpuctl pause NAME, gpuctl delete job NAME).",
    ),
    Rule(
        "GpuctlPodPending",
        'max by (namespace, pod) (kube_pod_status_phase{phase="Pending"}) == 1',
        PENDING_FOR,
        "warning",
        "Pod {{ $labels.namespace }}/{{ $labels.pod }} has been pending for 15 minutes",
        "No node can take the pod; gpuctl describe job NAME says why (GPUs, pool, GPU type).",
    ),
)


def _panel(index: int, title: str, expr: str, legend: str, unit: str) -> dict[str, Any]:
    return {
        "id": index + 1,
        "type": "timeseries",
        "title": title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 12, "x": 12 * (index % 2), "y": 8 * (index // 2)},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "targets": [{"refId": "A", "expr": expr, "legendFormat": legend}],
    }


PANELS = (
    (
        "GPU utilisation by pool",
        f"avg by ({POOL_LABEL}) ({UTIL} * on ({NODE_LABEL}) group_left({POOL_LABEL}) "
        f'label_replace(kube_node_labels, "{NODE_LABEL}", "$1", "node", "(.*)"))',
        "{{" + POOL_LABEL + "}}",
        "percent",
    ),
    ("GPU utilisation by node", f"avg by ({NODE_LABEL}) ({UTIL})", "{{Hostname}}", "percent"),
    (
        "GPU temperature (hottest per node)",
        f"max by ({NODE_LABEL}) ({TEMP})",
        "{{Hostname}}",
        "celsius",
    ),
    (
        "GPU memory used by node",
        f"sum by ({NODE_LABEL}) ({FB_USED}) / sum by ({NODE_LABEL}) ({FB_USED} + {FB_FREE}) * 100",
        "{{Hostname}}",
        "percent",
    ),
    (
        "GPU utilisation by job pod",
        f'avg by (namespace, pod) ({UTIL}{{pod!=""}})',
        "{{namespace}}/{{pod}}",
        "percent",
    ),
    (
        "GPU memory by job pod (MiB)",
        f'sum by (namespace, pod) ({FB_USED}{{pod!=""}})',
        "{{namespace}}/{{pod}}",
        "decmbytes",
    ),
)


def dashboard() -> dict[str, Any]:
    return {
        "title": "gpuctl: GPUs by pool, node and job",
        "uid": "gpuctl-gpus",
        "schemaVersion": 39,
        "refresh": "30s",
        "time": {"from": "now-1h", "to": "now"},
        "templating": {
            "list": [{"name": "datasource", "type": "datasource", "query": "prometheus"}]
        },
        "panels": [_panel(i, *panel) for i, panel in enumerate(PANELS)],
    }


def render(namespace: str = DEFAULT_NAMESPACE) -> list[engine.Manifest]:
    labels = {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE}
    rules = engine.render_template(
        "_monitoring/rules.yaml.j2",
        {
            "rules_name": "gpuctl-gpu-alerts",
            "namespace": namespace,
            "labels": labels,
            "group": "gpuctl.gpu",
            "rules": [asdict(rule) for rule in RULES],
        },
        "<monitoring rules>",
    )
    board = engine.render_template(
        "_monitoring/dashboard.yaml.j2",
        {
            "dashboard_name": "gpuctl-dashboard",
            "namespace": namespace,
            "labels": labels,
            "dashboard_file": "gpuctl.json",
            "dashboard_json": json.dumps(dashboard()),
        },
        "<monitoring dashboard>",
    )
    return board + rules
