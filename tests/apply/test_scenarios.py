"""The apply engine's user-visible scenarios on the `cluster` fixture: the sandbox in every run,
and the real cluster in KUBECONFIG too under `make e2e`, so the two must agree.

CPU-only specs, so that any cluster can run them."""

from __future__ import annotations

import subprocess
import time
from typing import Any

import yaml

from tests.conftest import GPUCTL, run_gpuctl
from tests.support.sandbox import Cluster

WEB = """kind: compute
version: v0.1
job:
  name: e2e-web
environment:
  image: nginx:1.27
service:
  replicas: 2
  port: 80
resources:
  cpu: 0.1
  memory: 64Mi
"""
TRAIN = """kind: training
version: v0.1
job:
  name: e2e-train
environment:
  image: busybox:1.36
  command: ["sh", "-c", "echo step 1; sleep 30"]
resources:
  cpu: 0.1
  memory: 64Mi
"""


def gpuctl(
    cluster: Cluster, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return run_gpuctl(cluster, *args, stdin=stdin)


def live(cluster: Cluster, what: str) -> dict[str, Any]:
    done = cluster.kubectl("get", what, "-o", "yaml")
    result: dict[str, Any] = yaml.safe_load(done.stdout)
    return result


def test_apply_create_keep_update_replace_and_delete(cluster: Cluster) -> None:
    specs = WEB + "---\n" + TRAIN
    created = gpuctl(cluster, "apply", "-f", "-", stdin=specs)
    assert created.returncode == 0, created.stderr
    assert created.stdout.splitlines() == [
        "service/svc-e2e-web created",
        "deployment.apps/e2e-web created",
        "job.batch/e2e-train created",
        "poddisruptionbudget.policy/e2e-web created",
    ]
    again = gpuctl(cluster, "apply", "-f", "-", stdin=specs)
    assert again.stdout.splitlines() == [
        "service/svc-e2e-web unchanged",
        "deployment.apps/e2e-web unchanged",
        "job.batch/e2e-train unchanged",
        "poddisruptionbudget.policy/e2e-web unchanged",
    ]
    assert gpuctl(cluster, "diff", "-f", "-", stdin=specs).returncode == 0

    node_port = live(cluster, "service/svc-e2e-web")["spec"]["ports"][0]["nodePort"]
    job_uid = live(cluster, "job/e2e-train")["metadata"]["uid"]
    changed = (
        (WEB + "---\n" + TRAIN).replace("replicas: 2", "replicas: 1").replace("step 1", "step 2")
    )
    diff = gpuctl(cluster, "diff", "-f", "-", stdin=changed)
    assert diff.returncode == 1 and "step 2" in diff.stdout
    applied = gpuctl(cluster, "apply", "-f", "-", stdin=changed)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.splitlines() == [
        "service/svc-e2e-web unchanged",
        "deployment.apps/e2e-web configured",
        "job.batch/e2e-train replaced",
        "poddisruptionbudget.policy/e2e-web pruned",  # one replica needs no budget
    ]
    assert live(cluster, "service/svc-e2e-web")["spec"]["ports"][0]["nodePort"] == node_port
    assert live(cluster, "job/e2e-train")["metadata"]["uid"] != job_uid
    assert live(cluster, "deployment/e2e-web")["spec"]["replicas"] == 1

    # a comment only: the Deployment keeps its spec and its ReplicaSets (no rollout), only
    # the text it keeps with it changes; the Job is left alone
    replica_sets = cluster.kubectl("get", "replicasets", "-o", "name").stdout
    train_uid = live(cluster, "job/e2e-train")["metadata"]["uid"]
    commented = changed.replace("replicas: 1", "replicas: 1  # one is enough", 1)
    annotated = gpuctl(cluster, "apply", "-f", "-", stdin=commented)
    assert annotated.stdout.splitlines() == [
        "service/svc-e2e-web unchanged",
        "deployment.apps/e2e-web configured",
        "job.batch/e2e-train unchanged",
    ], annotated.stderr
    web = live(cluster, "deployment/e2e-web")["metadata"]
    assert "replicas: 1  # one is enough" in web["annotations"]["gpuctl.runwhere.ai/spec"]
    assert cluster.kubectl("get", "replicasets", "-o", "name").stdout == replica_sets
    assert live(cluster, "job/e2e-train")["metadata"]["uid"] == train_uid

    deleted = gpuctl(cluster, "delete", "-f", "-", "--wait", stdin=changed)
    assert deleted.returncode == 0, deleted.stderr
    left = cluster.kubectl("get", "deployments,jobs,services", "-o", "name").stdout
    assert "e2e-" not in left


def test_create_refuses_an_existing_object_and_leaves_nothing_half_made(cluster: Cluster) -> None:
    rendered = subprocess.run(
        [str(GPUCTL), "render", "-f", "-", "-n", cluster.namespace],
        input=WEB,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    deployment = next(d for d in yaml.safe_load_all(rendered) if d["kind"] == "Deployment")
    del deployment["metadata"]["labels"]  # not gpuctl's job (that is refused before any write)
    cluster.kubectl("create", "-f", "-", input=yaml.safe_dump(deployment))
    done = gpuctl(cluster, "create", "-f", "-", stdin=WEB)
    assert done.returncode == 1
    assert "deployment.apps/e2e-web: already exists" in done.stderr
    deadline = time.monotonic() + 60
    while "svc-e2e-web" in cluster.kubectl("get", "services", "-o", "name").stdout:
        assert time.monotonic() < deadline, "the document's Service was left behind"
        time.sleep(0.5)
