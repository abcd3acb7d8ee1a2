"""Pod Security of a quota's namespace, on the `cluster` fixture (the sandbox and the local real
control plane, which must agree): `baseline` refuses a job's hostPath pods, and gpuctl says why
the job never starts."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import run_gpuctl
from tests.support.sandbox import Cluster, wait_for


def gpuctl(
    cluster: Cluster, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The installed command; the spec's namespace decides where (no -n)."""
    return run_gpuctl(cluster, *args, stdin=stdin, namespaced=False)


def quota(user: str, level: str | None) -> str:
    chosen = f"pod_security: {level}\n" if level else ""
    head = "kind: quota\nversion: v0.1\nmetadata: {name: team}\n"
    return f"{head}{chosen}users:\n  {user}: {{gpu: 4}}\n"


def training(name: str, user: str) -> str:
    return f"""kind: training
version: v0.1
job: {{name: {name}, namespace: {user}}}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 30"]
resources: {{gpu: 1, cpu: 1, memory: 1Gi}}
storage:
  workdirs:
    - path: /var/lib/kubelet
"""


@pytest.fixture
def user(cluster: Cluster) -> Iterator[str]:
    """A user (their namespace comes with their quota) of this test alone."""
    name = f"{cluster.namespace}-u"[:63]
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", check=False, namespaced=False)


def _events(cluster: Cluster, namespace: str, job: str) -> list[dict[str, Any]]:
    out = cluster.kubectl("get", "events", "-n", namespace, "-o", "json", namespaced=False).stdout
    return [
        e
        for e in json.loads(out)["items"]
        if e["reason"] == "FailedCreate" and e["involvedObject"]["name"] == job
    ]


def test_baseline_refuses_a_host_path_pod_and_describe_says_why(
    cluster: Cluster, user: str
) -> None:
    made = gpuctl(cluster, "create", "-f", "-", stdin=quota(user, None))
    assert made.returncode == 0, made.stderr
    created = gpuctl(cluster, "create", "-f", "-", stdin=training("rooted", user))
    assert created.returncode == 0, created.stderr  # the Job itself is admitted

    (event, *_) = wait_for(
        lambda: _events(cluster, user, "rooted"), timeout=60, interval=0.5, what="FailedCreate"
    )
    assert (
        'is forbidden: violates PodSecurity "baseline:latest": hostPath volumes (volume '
        in (event["message"])
    )
    assert (
        json.loads(
            cluster.kubectl("get", "pods", "-n", user, "-o", "json", namespaced=False).stdout
        )["items"]
        == []
    )
    described = gpuctl(cluster, "describe", "job", "rooted", "-n", user)
    assert described.returncode == 0, described.stderr
    why = next(line for line in described.stdout.splitlines() if line.startswith("Why"))
    assert (
        f"the cluster refuses its pods: namespace {user} enforces Pod Security baseline:latest, "
        'which forbids hostPath volumes (volume "workdir-0")'
    ) in why


def test_a_privileged_quota_lets_the_cluster_run_host_path_pods(
    cluster: Cluster, user: str
) -> None:
    made = gpuctl(cluster, "create", "-f", "-", stdin=quota(user, "privileged"))
    assert made.returncode == 0, made.stderr
    created = gpuctl(cluster, "create", "-f", "-", stdin=training("trusted", user))
    assert created.returncode == 0, created.stderr

    def pods() -> list[dict[str, Any]]:
        out = cluster.kubectl("get", "pods", "-n", user, "-o", "json", namespaced=False).stdout
        items: list[dict[str, Any]] = json.loads(out)["items"]
        return items

    wait_for(pods, timeout=60, interval=0.5, what="the job's pod")
    assert _events(cluster, user, "trusted") == []
