"""What no node could ever hold is refused before anything is written, from the installed
command, on the sandbox and the local control plane: exit 1, one line per reason at its spec
field with the fix, nothing created; --allow-pending accepts it; a busy cluster is no reason.
A gpu-share job counts as its share; `default-pool` is the default pool."""

from __future__ import annotations

from tests.conftest import run_gpuctl
from tests.support.sandbox import Cluster

JOB = """kind: training
version: v0.1
job: {{name: {name}, priority: low}}
environment: {{image: python:3.11, command: [python, -c, "print(1)"]}}
resources:
  cpu: 1
  memory: 1Gi
{resources}"""


def job(name: str, resources: str) -> str:
    return JOB.format(name=name, resources=resources)


def jobs_named(cluster: Cluster, name: str) -> list[str]:
    listed = run_gpuctl(cluster, "get", "jobs", "--no-headers")
    return [line for line in listed.stdout.splitlines() if line.split()[:1] == [name]]


def test_a_pod_larger_than_every_node_is_refused_and_nothing_is_created(cluster: Cluster) -> None:
    refused = run_gpuctl(cluster, "create", "-f", "-", stdin=job("huge", "  gpu: 16\n"))
    assert refused.returncode == 1
    lines = refused.stderr.splitlines()
    assert lines[0].startswith("error: <stdin>:8:8: resources.gpu: a pod asks for 16 ")
    assert "more than any node in default-pool (the nodes in no pool) has: the largest" in lines[0]
    assert "(split it over nodes: node_count: " in lines[0]
    assert lines[1] == (
        "nothing was created: no node could ever run this as asked (--allow-pending accepts it "
        "anyway, to wait for nodes that join)"
    )
    assert refused.stdout == ""
    assert jobs_named(cluster, "huge") == []
    validated = run_gpuctl(
        cluster, "create", "--dry-run=server", "-f", "-", stdin=job("huge", "  gpu: 16\n")
    )
    assert validated.returncode == 1 and "resources.gpu: a pod asks for 16" in validated.stderr


def test_a_gpu_type_no_node_carries_is_refused_naming_the_types_there_are(
    cluster: Cluster,
) -> None:
    spec = job("h900", "  gpu: 1\n  gpu-type: H900\n")
    refused = run_gpuctl(cluster, "create", "-f", "-", stdin=spec)
    assert refused.returncode == 1
    assert "resources.gpu-type: no node has GPU type 'H900' (types that exist: " in refused.stderr
    assert jobs_named(cluster, "h900") == []
    accepted = run_gpuctl(cluster, "create", "--allow-pending", "-f", "-", stdin=spec)
    assert accepted.returncode == 0, accepted.stderr
    assert "accepted as pending was allowed: it stays Pending until this changes" in accepted.stderr
    (row,) = jobs_named(cluster, "h900")
    assert row.split()[3] == "Pending"


def test_default_pool_is_the_nodes_in_no_pool(cluster: Cluster) -> None:
    made = run_gpuctl(
        cluster, "create", "-f", "-", stdin=job("in-default", "  pool: default-pool\n  gpu: 1\n")
    )
    assert made.returncode == 0, made.stderr
    assert "does not exist" not in made.stderr
    (row,) = jobs_named(cluster, "in-default")
    assert row.split()[2] == "default"
