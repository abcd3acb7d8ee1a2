"""`gpuctl monitoring manifests`: the alert rules, the Grafana dashboard and the PodMonitor of the
jobs' own metrics endpoints, rendered."""

from __future__ import annotations

import json
import re
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
# kube-prometheus-stack's Prometheus selects PrometheusRules labelled release=<its Helm release
# name> (ruleSelector from ruleSelectorNilUsesHelmValues); the chart's usual release name.
DEFAULT_RELEASE = "kube-prometheus-stack"


def _prometheus_label(key: str) -> str:
    """A Kubernetes label key as kube-state-metrics names it: label_ and every character that
    is not a letter, digit or _ turned into _."""
    return "label_" + re.sub(r"[^a-zA-Z0-9_]", "_", key)


# kube-state-metrics exports a pod's labels in kube_pod_labels only when started with
# --metric-labels-allowlist=pods=[app.kubernetes.io/managed-by,...].
MANAGED_BY_LABEL = _prometheus_label(c.Labels.MANAGED_BY)
GPUCTL_POD = f'kube_pod_labels{{{MANAGED_BY_LABEL}="{c.MANAGED_BY_VALUE}"}}'
# A pod of a multi-node job whose start barrier runs waits for its peers on purpose.
WAITING_FOR_PEERS = (
    f'kube_pod_init_container_status_running{{container="{c.START_BARRIER_CONTAINER}"}} == 1'
)


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
        'max by (namespace, pod) (kube_pod_status_phase{phase="Pending"}) == 1'
        f" and on (namespace, pod) {GPUCTL_POD}"
        f" unless on (namespace, pod) {WAITING_FOR_PEERS}",
        PENDING_FOR,
        "warning",
        "Pod {{ $labels.namespace }}/{{ $labels.pod }} has been pending for 15 minutes",
        "No node can take the pod; gpuctl describe job NAME says why (GPUs, pool, GPU type). "
        "Only gpuctl's pods, not those of a multi-node job waiting for their peers.",
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
        "mbytes",  # DCGM's framebuffer series are in MiB
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


def render(
    namespace: str = DEFAULT_NAMESPACE, release: str = DEFAULT_RELEASE
) -> list[engine.Manifest]:
    """The dashboard's ConfigMap and the PrometheusRule, labelled release=`release` so that
    the kube-prometheus-stack of that Helm release loads it."""
    labels = {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE}
    rules = engine.render_template(
        "_monitoring/rules.yaml.j2",
        {
            "rules_name": "gpuctl-gpu-alerts",
            "namespace": namespace,
            "labels": {**labels, "release": release},
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
    return board + rules + pod_monitor(namespace, release)


def _sd_annotation(key: str) -> str:
    """A pod annotation as Prometheus' Kubernetes service discovery names it:
    __meta_kubernetes_pod_annotation_ and every character not a letter or digit turned to _."""
    return "__meta_kubernetes_pod_annotation_" + re.sub(r"[^a-zA-Z0-9_]", "_", key)


def pod_monitor(namespace: str, release: str) -> list[engine.Manifest]:
    """The PodMonitor that scrapes the jobs' own metrics endpoints (spec `metrics`): gpuctl's
    pods annotated prometheus.io/scrape "true", on the port and path their annotations name."""
    labels = {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE}
    return engine.render_template(
        "_monitoring/podmonitor.yaml.j2",
        {
            "monitor_name": "gpuctl-job-metrics",
            "namespace": namespace,
            "labels": {**labels, "release": release},
            "pod_labels": labels,
            "scrape_label": _sd_annotation(c.PROMETHEUS_SCRAPE_ANNOTATION),
            "path_label": _sd_annotation(c.PROMETHEUS_PATH_ANNOTATION),
            "port_label": _sd_annotation(c.PROMETHEUS_PORT_ANNOTATION),
            # the pod's address (IPv4 or [IPv6], with or without a port) and the annotated port
            "address_regex": r"(.+?)(?::\d+)?;(\d+)",
            "address_replacement": "$1:$2",
        },
        "<monitoring pod monitor>",
    )
