"""`top jobs`, `top nodes` and `monitoring manifests` against a real Prometheus scraping DCGM
series for pods the sandbox runs; the figures shown are checked against the series served."""

from __future__ import annotations

import json
import re
import subprocess
import time
from typing import Any

import yaml

from gpuctl.cli.monitoring import sparkline
from gpuctl.monitoring import gpu, manifests
from gpuctl.monitoring.prometheus import Prometheus
from tests.conftest import Env
from tests.core.conftest import run_gpuctl

from ..server.conftest import LOOPBACK
from .conftest import Exporter, GpuSeries, wait_scraped

SPECS = """\
kind: training
version: v0.1
job: {name: tune}
environment: {image: trainer:v1, command: [python, train.py]}
resources: {gpu: 2, gpu-type: A100-80G, cpu: 4, memory: 16Gi}
---
kind: inference
version: v0.1
job: {name: serve}
environment: {image: server:v1}
service: {port: 8000}
resources: {gpu: 1, gpu-type: A100-80G, cpu: 2, memory: 8Gi}
"""


def start_jobs(env: Env, pool: str | None = None) -> dict[str, dict[str, Any]]:
    """The two jobs running (in `pool`, else in default-pool); their pods by job name."""
    specs = SPECS.replace("resources: {", f"resources: {{pool: {pool}, ") if pool else SPECS
    done = env.gpuctl("create", "-f", "-", "--wait", "--timeout", "60s", stdin=specs)
    assert done.returncode == 0, done.stderr
    pods = env.cluster.list("Pod", "default")
    by_job = {}
    for pod in pods:
        labels = pod["metadata"]["labels"]
        by_job[labels.get("app") or labels["job-name"]] = pod
    return by_job


def serve(env: Env, exporter: Exporter, url: str, pool: str | None = None) -> list[GpuSeries]:
    pods = start_jobs(env, pool)
    tune, srv = pods["tune"], pods["serve"]
    gpus = [
        GpuSeries(
            tune["spec"]["nodeName"], 0, 80, 30000, 51920, 70, "default", tune["metadata"]["name"]
        ),
        GpuSeries(
            tune["spec"]["nodeName"], 1, 60, 20000, 61920, 86, "default", tune["metadata"]["name"]
        ),
        GpuSeries(
            srv["spec"]["nodeName"], 2, 35, 12288, 4096, 55, "default", srv["metadata"]["name"]
        ),
        GpuSeries("gpu-t4-0", 0, 0, 0, 15360, 41),  # a GPU no pod holds
    ]
    exporter.publish(gpus)
    wait_scraped(url, gpus)
    return gpus


def table(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_top_jobs_shows_what_the_exporter_served(
    env: Env, exporter: Exporter, prometheus_url: str
) -> None:
    gpus = serve(env, exporter, prometheus_url)
    done = env.gpuctl("top", "jobs", "--prometheus-url", prometheus_url)
    assert done.returncode == 0, done.stderr
    tune = [g for g in gpus if g.pod.startswith("tune")]
    srv = [g for g in gpus if g.pod.startswith("serve")]

    def expected(name: str, own: list[GpuSeries]) -> list[str]:
        util = sum(g.util for g in own) / len(own)
        used = sum(g.used_mib for g in own) / 1024
        total = sum(g.used_mib + g.free_mib for g in own) / 1024
        hottest = max(g.temp for g in own)
        return [
            name,
            "default",
            str(len(own)),
            f"{util:.0f}%",
            f"{used:.1f}/{total:.1f}Gi",
            f"{hottest:.0f}°C",
        ]

    assert table(done.stdout) == [
        ["NAME", "POOL", "GPUS", "GPU-UTIL", "GPU-MEM", "TEMP"],
        expected("tune", tune),  # highest utilisation first
        expected("serve", srv),
    ]
    by_temp = env.gpuctl(
        "top", "jobs", "--sort-by", "name", env={"GPUCTL_PROMETHEUS_URL": prometheus_url}
    )
    assert [row[0] for row in table(by_temp.stdout)[1:]] == ["serve", "tune"]


def test_top_nodes_per_node_figures(env: Env, exporter: Exporter, prometheus_url: str) -> None:
    gpus = serve(env, exporter, prometheus_url)
    done = env.gpuctl("top", "nodes", "--prometheus-url", prometheus_url, "--sort-by", "temp")
    assert done.returncode == 0, done.stderr
    rows = {row[0]: row for row in table(done.stdout)[1:]}
    for node in {g.node for g in gpus}:
        own = [g for g in gpus if g.node == node]
        assert rows[node][2:] == [
            str(len(own)),
            f"{sum(g.util for g in own) / len(own):.0f}%",
            f"{sum(g.used_mib for g in own) / 1024:.1f}/"
            f"{sum(g.used_mib + g.free_mib for g in own) / 1024:.1f}Gi",
            f"{max(g.temp for g in own):.0f}°C",
        ]
    hottest = max(gpus, key=lambda g: g.temp).node
    assert table(done.stdout)[1][0] == hottest
    # a GPU node without series shows dashes, not invented zeros
    silent = [n for n in ("gpu-a100-0", "gpu-a100-1") if n not in {g.node for g in gpus}]
    for node in silent:
        assert rows[node][2:] == ["-", "-", "-", "-"]


def test_without_prometheus_the_commands_say_so(env: Env) -> None:
    done = env.gpuctl("top", "jobs", env={"GPUCTL_PROMETHEUS_URL": ""})
    assert done.returncode == 1
    assert done.stderr.startswith("error: no Prometheus configured: pass --prometheus-url")
    assert len(done.stderr.splitlines()) == 1 and not done.stdout
    gone = env.gpuctl("top", "nodes", "--prometheus-url", "http://127.0.0.1:9")
    assert gone.returncode == 1 and "unreachable" in gone.stderr


def test_alert_rules_pass_promtool_and_match_the_served_series(
    env: Env, exporter: Exporter, prometheus_url: str, tmp_path: Any
) -> None:
    gpus = serve(env, exporter, prometheus_url)
    printed = run_gpuctl("monitoring", "manifests")
    assert printed.returncode == 0, printed.stderr
    objects = list(yaml.safe_load_all(printed.stdout))
    assert objects == [m.obj for m in manifests.render("monitoring")]
    rule = next(o for o in objects if o["kind"] == "PrometheusRule")
    rules_file = tmp_path / "rules.yml"
    rules_file.write_text(yaml.safe_dump(rule["spec"]))
    checked = subprocess.run(
        ["promtool", "check", "rules", str(rules_file)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    alerts = {r["alert"]: r for r in rule["spec"]["groups"][0]["rules"]}
    assert set(alerts) == {"GPUTemperatureHigh", "GpuctlJobGPUsIdle", "GpuctlPodPending"}
    assert (alerts["GpuctlJobGPUsIdle"]["for"], alerts["GpuctlPodPending"]["for"]) == ("30m", "15m")
    prometheus = Prometheus(prometheus_url)
    hot = prometheus.query(alerts["GPUTemperatureHigh"]["expr"])
    assert [(s.labels["Hostname"], s.labels["gpu"]) for s in hot] == [
        (g.node, str(g.index)) for g in gpus if g.temp >= 85
    ]
    board = next(o for o in objects if o["kind"] == "ConfigMap")
    assert board["metadata"]["labels"]["grafana_dashboard"] == "1"
    dashboard = json.loads(board["data"]["gpuctl.json"])
    for panel in dashboard["panels"]:
        prometheus.query(panel["targets"][0]["expr"])  # raises if Prometheus refuses it


def test_describe_job_shows_gpu_usage_now_and_a_curve(
    env: Env, exporter: Exporter, prometheus_url: str
) -> None:
    gpus = serve(env, exporter, prometheus_url)
    tune = [g for g in gpus if g.pod.startswith("tune")]
    done = env.gpuctl(
        "describe", "job", "tune", "--prometheus-url", prometheus_url, "--since", "5m"
    )
    assert done.returncode == 0, done.stderr
    section = done.stdout.split("GPU usage (Prometheus):\n", 1)[1].splitlines()
    assert section[0].split() == [
        "POD",
        "GPUS",
        "GPU-UTIL",
        "GPU-MEM",
        "TEMP",
        "UTIL",
        "LAST",
        "5m",
    ]
    pod, count, util, memory, temp, curve = section[1].split()
    assert (pod, count, util, temp) == (tune[0].pod, "2", "70%", "86°C")
    assert memory == "48.8/160.0Gi"
    # a constant 70% mean: every block of the curve is the 70% one
    assert curve and set(curve) == {sparkline([70.0], 100.0)}


def test_describe_job_without_prometheus_says_so_in_one_line(env: Env) -> None:
    start_jobs(env)
    done = env.gpuctl("describe", "job", "tune", env={"GPUCTL_PROMETHEUS_URL": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(
        "GPU usage:  no Prometheus configured (--prometheus-url, $GPUCTL_PROMETHEUS_URL, or "
        "`gpuctl config set-prometheus URL`)\n"
    )


def test_sparkline_scales_to_the_top_and_buckets_to_the_width() -> None:
    assert sparkline([0.0, 50.0, 100.0], 100.0) == "▁▅█"
    assert sparkline([], 100.0) == "-"
    assert sparkline([0.0, 0.0, 100.0, 100.0], 100.0, width=2) == "▁█"


POOL = """kind: pool
version: v0.1
metadata: {name: training}
nodes: {gpu-a100-0: {}, gpu-a100-1: {}}
"""


def test_query_pools_adds_the_pools_gpu_utilisation(
    env: Env, exporter: Exporter, prometheus_url: str
) -> None:
    assert env.gpuctl("create", "-f", "-", stdin=POOL).returncode == 0
    gpus = serve(env, exporter, prometheus_url, pool="training")  # its nodes take its jobs only
    done = env.gpuctl("query", "pools", "--prometheus-url", prometheus_url)
    assert done.returncode == 0, done.stderr
    header, row, default = table(done.stdout)  # the nodes in no pool come last
    assert header[-1] == "GPU-UTIL" and row[0] == "training" and default[0] == "default"
    own = [g for g in gpus if g.node in ("gpu-a100-0", "gpu-a100-1")]
    assert len(own) == 3  # both jobs ask for A100-80G
    assert row[-1] == f"{sum(g.util for g in own) / len(own):.0f}%"
    plain = env.gpuctl("query", "pools", env={"GPUCTL_PROMETHEUS_URL": ""})
    assert table(plain.stdout)[0][-1] == "GPU-TYPES"


def test_job_metrics_for_the_rest_api(env: Env, exporter: Exporter, prometheus_url: str) -> None:
    gpus = serve(env, exporter, prometheus_url)
    tune = [g for g in gpus if g.pod.startswith("tune")]
    prometheus = Prometheus(prometheus_url)
    now = gpu.job_metrics_now(prometheus, "default", [tune[0].pod])
    used = sum(g.used_mib for g in tune) / 1024
    total = sum(g.used_mib + g.free_mib for g in tune) / 1024
    assert now == {
        "gpuUtilization": sum(g.util for g in tune) / len(tune),
        "memoryUsage": f"{used:.0f}Gi/{total:.0f}Gi",
    }
    assert gpu.job_metrics_now(prometheus, "default", ["nobody-0"]) == {
        "gpuUtilization": None,
        "memoryUsage": None,
    }
    end = time.time()
    history = gpu.job_metrics_range(prometheus, "default", [tune[0].pod], end - 60, end, 1.0)
    assert history["gpuUtilization"], history
    assert {p["value"] for p in history["gpuUtilization"]} == {70.0}
    assert {p["value"] for p in history["memoryUsage"]} == {round(used, 2)}
    stamp = history["gpuUtilization"][-1]["timestamp"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)


def test_rest_api_metrics_come_from_the_same_queries(
    env: Env, exporter: Exporter, prometheus_url: str
) -> None:
    """`gpuctl serve --prometheus-url`: GET /jobs/{id} has the figures of now, and
    /jobs/{id}/metrics the series, both as the exporter served them."""
    from fastapi.testclient import TestClient

    from gpuctl.server.app import create_app

    gpus = serve(env, exporter, prometheus_url)
    tune = [g for g in gpus if g.pod.startswith("tune")]
    with TestClient(create_app(env.cluster, None, prometheus_url), base_url=LOOPBACK) as client:
        detail = client.get("/api/v1/jobs/default.tune").json()
        assert detail["metrics"]["gpuUtilization"] == sum(g.util for g in tune) / len(tune)
        series = client.get("/api/v1/jobs/default.tune/metrics?metric=gpuUtilization").json()
        assert series["source"] == prometheus_url
        assert series["gpuUtilization"] and {p["value"] for p in series["gpuUtilization"]} == {70.0}
        bad = client.get("/api/v1/jobs/default.tune/metrics?startTime=yesterday")
        assert bad.status_code == 400 and bad.json()["error"] == "InvalidRequest"
        assert bad.json()["field"] == "startTime"


class _CountingPrometheus(Prometheus):
    """Answers every query with nothing, and keeps the range queries asked."""

    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:1")
        self.ranges: list[str] = []

    def query(self, promql: str) -> list[Any]:
        return []

    def query_range(self, promql: str, start: float, end: float, step: float) -> list[Any]:
        self.ranges.append(promql)
        return []


def test_describe_job_asks_one_range_query_the_utilisation_curve_it_draws() -> None:
    prometheus = _CountingPrometheus()
    usages = gpu.pod_usage(prometheus, "default", ["tune-0", "tune-1"], 300.0, 1000.0)
    assert [u.pod for u in usages] == ["tune-0", "tune-1"]
    assert len(prometheus.ranges) == 1 and gpu.UTIL in prometheus.ranges[0]


def test_top_nodes_says_which_vendors_are_not_read(
    env: Env, exporter: Exporter, prometheus_url: str
) -> None:
    capacity = {"cpu": "8", "memory": "64Gi", "pods": "20", "amd.com/gpu": "8"}
    env.cluster.create(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "gpu-mi300x-0", "labels": {"runwhere.ai/gpu-type": "MI300X"}},
            "status": {"capacity": capacity, "allocatable": capacity},
        }
    )
    done = env.gpuctl("top", "nodes", "--prometheus-url", prometheus_url)
    assert done.returncode == 0, done.stderr
    rows = {row[0]: row for row in table(done.stdout)[1:]}
    assert rows["gpu-mi300x-0"][2:] == ["-", "-", "-", "-"]
    assert done.stderr == (
        "note: AMD nodes (gpu-mi300x-0) show - : gpuctl reads NVIDIA's DCGM series only, not "
        "the AMD device-metrics-exporter's (gpu_gfx_activity, gpu_used_vram, "
        "gpu_junction_temperature)\n"
    )
