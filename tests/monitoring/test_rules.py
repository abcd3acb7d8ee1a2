"""The alert rules of `gpuctl monitoring manifests` under promtool's rule unit tests (series in,
alerts out, as Prometheus evaluates them), and what kube-prometheus-stack and Grafana need of
the manifests: the PrometheusRule's `release` label, the dashboard's units."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from gpuctl.monitoring import manifests
from gpuctl.render import engine
from tests.core.conftest import run_gpuctl

REPO = Path(__file__).resolve().parents[2]
PENDING_DESCRIPTION = next(r.description for r in manifests.RULES if r.alert == "GpuctlPodPending")


def rule_object(release: str = manifests.DEFAULT_RELEASE) -> dict[str, Any]:
    return next(
        m.obj for m in manifests.render("monitoring", release) if m.kind == "PrometheusRule"
    )


def pod_series(namespace: str, pod: str, managed: bool, waiting_for_peers: bool) -> list[Any]:
    """A pod Pending for the whole test, as kube-state-metrics exports it (its labels only
    with --metric-labels-allowlist=pods=[app.kubernetes.io/managed-by])."""
    ids = f'namespace="{namespace}",pod="{pod}",uid="{pod}-uid"'
    label = f',{manifests.MANAGED_BY_LABEL}="gpuctl"' if managed else ""
    series = [
        {"series": f'kube_pod_status_phase{{{ids},phase="Pending"}}', "values": "1x30"},
        {"series": f'kube_pod_status_phase{{{ids},phase="Running"}}', "values": "0x30"},
        {"series": f"kube_pod_labels{{{ids}{label}}}", "values": "1x30"},
    ]
    if waiting_for_peers:
        container = f'{ids},container="wait-for-peers"'
        series.append(
            {"series": f"kube_pod_init_container_status_running{{{container}}}", "values": "1x30"}
        )
    return series


def pending_alert(namespace: str, pod: str) -> dict[str, Any]:
    return {
        "exp_labels": {"severity": "warning", "namespace": namespace, "pod": pod},
        "exp_annotations": {
            "summary": f"Pod {namespace}/{pod} has been pending for 15 minutes",
            "description": PENDING_DESCRIPTION,
        },
    }


def test_pod_pending_fires_for_a_gpuctl_pod_only_not_a_foreign_one_nor_a_waiting_gang_member(
    tmp_path: Path,
) -> None:
    promtool = shutil.which("promtool")
    assert promtool, "the monitoring tests need promtool: apt-get install -y prometheus"
    (tmp_path / "rules.yml").write_text(yaml.safe_dump(rule_object()["spec"]))
    series = [
        *pod_series("team-a", "tune-worker-0", managed=True, waiting_for_peers=False),
        *pod_series("team-a", "web-7f9c", managed=False, waiting_for_peers=False),
        *pod_series("team-a", "ddp-1-x2k", managed=True, waiting_for_peers=True),
        *pod_series("kube-system", "coredns-1", managed=False, waiting_for_peers=False),
    ]
    tests = {
        "rule_files": ["rules.yml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": series,
                "alert_rule_test": [
                    {"eval_time": "10m", "alertname": "GpuctlPodPending", "exp_alerts": []},
                    {
                        "eval_time": "20m",
                        "alertname": "GpuctlPodPending",
                        "exp_alerts": [pending_alert("team-a", "tune-worker-0")],
                    },
                ],
            }
        ],
    }
    (tmp_path / "tests.yml").write_text(yaml.safe_dump(tests, sort_keys=False))
    done = subprocess.run(
        [promtool, "test", "rules", "tests.yml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_excluded_init_container_is_the_start_barrier_gpuctl_renders() -> None:
    (job,) = [
        m.obj
        for m in engine.render([str(REPO / "examples" / "training-distributed.yaml")])
        if m.kind == "Job"
    ]
    (barrier,) = job["spec"]["template"]["spec"]["initContainers"]
    assert f'container="{barrier["name"]}"' in manifests.WAITING_FOR_PEERS
    assert job["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/managed-by"] == (
        "gpuctl"
    )


def test_the_prometheus_rule_carries_the_release_label_kube_prometheus_stack_selects() -> None:
    assert rule_object()["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    printed = run_gpuctl("monitoring", "manifests", "--release", "prom")
    assert printed.returncode == 0, printed.stderr
    (rule,) = [o for o in yaml.safe_load_all(printed.stdout) if o["kind"] == "PrometheusRule"]
    assert rule["metadata"]["labels"]["release"] == "prom"
    refused = run_gpuctl("monitoring", "manifests", "--release", "not a label!")
    assert refused.returncode == 2 and not refused.stdout
    assert "'not a label!' is not a label value" in refused.stderr


def test_the_gpu_memory_panel_shows_mib_as_mib() -> None:
    board = next(m.obj for m in manifests.render() if m.kind == "ConfigMap")
    panels = {p["title"]: p for p in json.loads(board["data"]["gpuctl.json"])["panels"]}
    memory = panels["GPU memory by job pod (MiB)"]
    assert "DCGM_FI_DEV_FB_USED" in memory["targets"][0]["expr"]  # MiB
    assert memory["fieldConfig"]["defaults"]["unit"] == "mbytes"  # Grafana's MiB
