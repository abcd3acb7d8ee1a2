"""A job spec's `metrics` (its own Prometheus endpoint): the pod annotations and container port
it renders, the refusals, and the PodMonitor of `gpuctl monitoring manifests` that reads those
annotations (its relabelling checked by promtool and run on sample addresses)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuctl import constants as c
from gpuctl.errors import SpecError
from gpuctl.monitoring import manifests
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options

TRAINING = """kind: training
version: v0.1
job: {name: tune}
environment: {image: trainer:v1}
resources: {gpu: 1, cpu: 4, memory: 16Gi%s}
"""
SERVICE = """kind: inference
version: v0.1
job: {name: chat}
environment: {image: vllm:v1}
service: {port: 8000}
resources: {gpu: 1, cpu: 4, memory: 16Gi}
"""


def pod_template(text: str) -> dict[str, Any]:
    objects = engine.render_documents(load_text("spec.yaml", text), Options())
    workload = next(m.obj for m in objects if m.kind in ("Job", "Deployment"))
    template: dict[str, Any] = workload["spec"]["template"]
    return template


def test_metrics_become_the_scrape_annotations_and_a_named_port() -> None:
    template = pod_template(TRAINING % "" + "metrics: {port: 9100}\n")
    assert template["metadata"]["annotations"] == {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9100",
        "prometheus.io/path": "/metrics",  # the default path
    }
    container = template["spec"]["containers"][0]
    assert container["ports"] == [{"name": "metrics", "containerPort": 9100, "protocol": "TCP"}]


def test_metrics_on_the_service_port_declare_no_second_port() -> None:
    template = pod_template(SERVICE + "metrics: {port: 8000, path: /stats}\n")
    assert template["metadata"]["annotations"]["prometheus.io/port"] == "8000"
    assert template["metadata"]["annotations"]["prometheus.io/path"] == "/stats"
    ports = template["spec"]["containers"][0]["ports"]
    assert ports == [{"name": "http", "containerPort": 8000, "protocol": "TCP"}]


def test_without_metrics_no_annotation() -> None:
    assert "annotations" not in pod_template(TRAINING % "")["metadata"]


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ("metrics: {port: 0}\n", "metrics.port", "at least 1"),
        ("metrics: {port: 9100, path: metrics}\n", "metrics.path", "/metrics"),
        ("metrics: {path: /metrics}\n", "metrics", "port"),
        ("metrics: {port: 9100, scheme: https}\n", "metrics.scheme", "unknown"),
    ],
)
def test_bad_metrics_are_one_line_with_the_field(extra: str, field: str, words: str) -> None:
    with pytest.raises(SpecError) as raised:
        pod_template(TRAINING % "" + extra)
    line = str(raised.value.problems[0])
    assert field in line and words in line, line


def test_the_rendezvous_port_of_a_multi_node_job_is_refused() -> None:
    text = TRAINING % ", node_count: 2" + f"metrics: {{port: {c.MASTER_PORT}}}\n"
    with pytest.raises(SpecError) as raised:
        pod_template(text)
    problem = raised.value.problems[0]
    assert problem.path == "metrics.port" and "rendezvous port" in str(problem)


def _pod_monitor() -> dict[str, Any]:
    objects = [m.obj for m in manifests.render("monitoring", "prom")]
    return next(o for o in objects if o["kind"] == "PodMonitor")


def test_the_pod_monitor_selects_gpuctl_pods_and_reads_their_annotations(tmp_path: Path) -> None:
    monitor = _pod_monitor()
    assert monitor["metadata"]["labels"]["release"] == "prom"
    assert monitor["spec"]["namespaceSelector"] == {"any": True}
    assert monitor["spec"]["selector"]["matchLabels"] == {c.Labels.MANAGED_BY: "gpuctl"}
    relabelings = monitor["spec"]["podMetricsEndpoints"][0]["relabelings"]
    template = pod_template(TRAINING % "" + "metrics: {port: 9100}\n")
    # every annotation a relabelling reads is one the rendered pod carries, as Prometheus'
    # Kubernetes discovery names it
    named = {
        "__meta_kubernetes_pod_annotation_" + re.sub(r"[^a-zA-Z0-9_]", "_", key)
        for key in template["metadata"]["annotations"]
    }
    read = {s for r in relabelings for s in r["sourceLabels"] if s != "__address__"}
    assert read == named
    # the same relabelling in a plain Prometheus config, which promtool accepts
    config = {
        "scrape_configs": [
            {
                "job_name": "gpuctl-jobs",
                # Debian's promtool has no Kubernetes discovery: the relabelling is checked
                "static_configs": [{"targets": ["127.0.0.1:9100"]}],
                "relabel_configs": [_snake(r) for r in relabelings],
            }
        ]
    }
    path = tmp_path / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    checked = subprocess.run(
        ["promtool", "check", "config", str(path)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _snake(relabeling: dict[str, Any]) -> dict[str, Any]:
    return {re.sub(r"([A-Z])", r"_\1", key).lower(): value for key, value in relabeling.items()}


@pytest.mark.parametrize(
    ("address", "port", "target"),
    [
        ("10.1.2.3:8000", "9100", "10.1.2.3:9100"),
        ("10.1.2.3", "9100", "10.1.2.3:9100"),
        ("[fd00::5]:8000", "9100", "[fd00::5]:9100"),
    ],
)
def test_the_pod_monitor_scrapes_the_annotated_port(address: str, port: str, target: str) -> None:
    rewrite = next(
        r
        for r in _pod_monitor()["spec"]["podMetricsEndpoints"][0]["relabelings"]
        if r.get("targetLabel") == "__address__"
    )
    # Prometheus anchors the regex at both ends and joins the source labels with `;`
    found = re.fullmatch(rewrite["regex"], f"{address};{port}")
    assert found is not None
    replacement = re.sub(r"\$(\d)", r"\\\1", rewrite["replacement"])
    assert found.expand(replacement) == target
