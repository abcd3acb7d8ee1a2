"""Pod Security of a quota's namespace, on the `cluster` fixture (the sandbox and the local real
control plane, which must agree): `baseline` refuses a job's hostPath pods, so `create` and
`apply` refuse such a job before writing anything (in the API server's words, at the spec
field at fault, --allow-pending or not), and for a job written another way gpuctl says why it
never starts."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import GPUCTL, run_gpuctl
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


WORKDIR = """storage:
  workdirs:
    - path: /var/lib/kubelet
"""


def training(name: str, user: str, tail: str = WORKDIR) -> str:
    return f"""kind: training
version: v0.1
job: {{name: {name}, namespace: {user}}}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 30"]
resources: {{gpu: 1, cpu: 1, memory: 1Gi}}
{tail}"""


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


def _jobs(cluster: Cluster, namespace: str) -> list[dict[str, Any]]:
    out = cluster.kubectl("get", "jobs", "-n", namespace, "-o", "json", namespaced=False).stdout
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items


@pytest.mark.parametrize("verb", ["create", "apply"])
def test_baseline_refuses_a_host_path_job_before_writing_anything(
    cluster: Cluster, user: str, verb: str
) -> None:
    made = gpuctl(cluster, "create", "-f", "-", stdin=quota(user, None))
    assert made.returncode == 0, made.stderr
    for allow in ([], ["--allow-pending"]):  # waiting would not help: never accepted
        refused = gpuctl(cluster, verb, *allow, "-f", "-", stdin=training("rooted", user))
        assert refused.returncode == 1
        first, second = refused.stderr.splitlines()
        assert first == (
            f"error: <stdin>:10:5: storage.workdirs: namespace {user} refuses the pods of "
            'job.batch/rooted: violates PodSecurity "baseline:latest": hostPath volumes '
            '(volume "workdir-0") (remove storage.workdirs, or ask an admin for a quota with '
            "pod_security: privileged)"
        )
        verbed = "created" if verb == "create" else "changed"
        assert second == (
            f"nothing was {verbed}: the namespace's Pod Security level forbids its pods"
        )
        assert _jobs(cluster, user) == []


def test_restricted_refuses_a_job_that_is_not_security_restricted(
    cluster: Cluster, user: str
) -> None:
    made = gpuctl(cluster, "create", "-f", "-", stdin=quota(user, "restricted"))
    assert made.returncode == 0, made.stderr
    refused = gpuctl(cluster, "create", "-f", "-", stdin=training("plain", user, ""))
    assert refused.returncode == 1
    assert f"error: <stdin>:1:1: security: namespace {user} refuses the pods of" in refused.stderr
    assert 'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false' in (
        refused.stderr
    )
    assert (
        "(set security: restricted, or ask an admin for a quota with pod_security: baseline)"
        in (refused.stderr)
    )
    assert _jobs(cluster, user) == []
    hardened = training("hardened", user, "security: restricted\n")
    created = gpuctl(cluster, "create", "-f", "-", stdin=hardened)
    assert created.returncode == 0, created.stderr
    assert [job["metadata"]["name"] for job in _jobs(cluster, user)] == ["hardened"]


def test_baseline_refuses_a_host_path_pod_and_describe_says_why(
    cluster: Cluster, user: str
) -> None:
    """A Job written without gpuctl's checks (rendered, then kubectl): the Job is admitted,
    its pods are not, and describe says why."""
    made = gpuctl(cluster, "create", "-f", "-", stdin=quota(user, None))
    assert made.returncode == 0, made.stderr
    rendered = subprocess.run(
        [str(GPUCTL), "render", "--no-priority-classes", "-f", "-"],
        input=training("rooted", user),
        capture_output=True,
        text=True,
        check=True,
    )
    cluster.kubectl("create", "-f", "-", input=rendered.stdout, namespaced=False)

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
