"""What gpuctl renders and scales for services and notebooks, on the `cluster` fixture: the
sandbox and the local real control plane (real API server and controllers, kwok nodes), so the
two must agree."""

from __future__ import annotations

import json
from typing import Any

from gpuctl.sandbox.testing import Cluster

from .test_cluster_scenarios import wait
from .test_scenarios import WEB, gpuctl


def names(cluster: Cluster, kinds: str) -> list[str]:
    out = cluster.kubectl("get", kinds, "-o", "name").stdout
    return sorted(line for line in out.splitlines() if "e2e-web" in line)


def budget(cluster: Cluster) -> dict[str, Any]:
    out = cluster.kubectl("get", "poddisruptionbudget/e2e-web", "-o", "json").stdout
    result: dict[str, Any] = json.loads(out)
    return result


def test_a_disruption_budget_comes_and_goes_with_the_second_replica(cluster: Cluster) -> None:
    created = gpuctl(cluster, "apply", "-f", "-", stdin=WEB)
    assert created.returncode == 0, created.stderr
    assert "poddisruptionbudget.policy/e2e-web created" in created.stdout.splitlines()
    pdb = budget(cluster)
    assert pdb["spec"]["maxUnavailable"] == 1
    assert pdb["spec"]["selector"] == {"matchLabels": {"app": "e2e-web"}}
    pods = json.loads(cluster.kubectl("get", "pods", "-l", "app=e2e-web", "-o", "json").stdout)
    assert pods["items"], "the budget's selector finds the job's pods"

    one = WEB.replace("replicas: 2", "replicas: 1")
    diff = gpuctl(cluster, "diff", "-f", "-", stdin=one)
    assert diff.returncode == 1 and "-kind: PodDisruptionBudget" in diff.stdout
    pruned = gpuctl(cluster, "apply", "-f", "-", stdin=one)
    assert pruned.returncode == 0, pruned.stderr
    assert "poddisruptionbudget.policy/e2e-web pruned" in pruned.stdout.splitlines()
    assert names(cluster, "poddisruptionbudgets") == []

    again = gpuctl(cluster, "apply", "-f", "-", stdin=WEB)
    assert "poddisruptionbudget.policy/e2e-web created" in again.stdout.splitlines()
    deleted = gpuctl(cluster, "delete", "job", "e2e-web", "--wait")
    assert deleted.returncode == 0, deleted.stderr
    assert "poddisruptionbudget.policy/e2e-web deleted" in deleted.stdout.splitlines()
    wait(lambda: names(cluster, "poddisruptionbudgets,deployments") == [], what="all gone")
