"""A job's metrics endpoint on the cluster: its pods carry the scrape annotations and the named
port, on the sandbox and on the local real control plane (real Job and Deployment
controllers), so that Prometheus' pod discovery finds them on either."""

from __future__ import annotations

import json
from typing import Any

from tests.apply.test_cluster_scenarios import wait
from tests.apply.test_scenarios import gpuctl
from tests.support.sandbox import Cluster

SPECS = """kind: training
version: v0.1
job: {name: e2e-own-metrics}
environment: {image: busybox:1.36, command: [sleep, "3600"]}
resources: {cpu: 0.1, memory: 64Mi}
metrics: {port: 9100}
---
kind: inference
version: v0.1
job: {name: e2e-own-web}
environment: {image: nginx:1.27}
service: {replicas: 1, port: 80}
resources: {cpu: 0.1, memory: 64Mi}
metrics: {port: 80, path: /stats}
"""


def _pod(cluster: Cluster, selector: str) -> dict[str, Any] | None:
    out = cluster.kubectl("get", "pods", "-l", selector, "-o", "json").stdout
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items[0] if items else None


def test_the_pods_carry_the_scrape_annotations_and_port(cluster: Cluster) -> None:
    created = gpuctl(cluster, "apply", "-f", "-", stdin=SPECS)
    assert created.returncode == 0, created.stderr
    trainer = wait(lambda: _pod(cluster, "job-name=e2e-own-metrics"), what="the training pod")
    assert {
        key: value
        for key, value in trainer["metadata"]["annotations"].items()
        if key.startswith("prometheus.io/")
    } == {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9100",
        "prometheus.io/path": "/metrics",
    }
    assert trainer["spec"]["containers"][0]["ports"] == [
        {"name": "metrics", "containerPort": 9100, "protocol": "TCP"}
    ]
    web = wait(lambda: _pod(cluster, "app=e2e-own-web"), what="the service's pod")
    assert web["metadata"]["annotations"]["prometheus.io/port"] == "80"
    assert web["metadata"]["annotations"]["prometheus.io/path"] == "/stats"
    assert [p["name"] for p in web["spec"]["containers"][0]["ports"]] == ["http"]
    deleted = gpuctl(cluster, "delete", "-f", "-", stdin=SPECS)
    assert deleted.returncode == 0, deleted.stderr
