"""`gpuctl render -f examples/ | kubectl apply -f -`, the pipe the README shows, on a cluster
where gpuctl never ran: what it makes runs as what `gpuctl create` makes.

On the sandbox (nodes shaped as examples/sandbox/cluster.yaml) the cluster is the test's own and
fresh: gpuctl's PriorityClasses are deleted first, so every pod's class comes from render's
output; the pools' nodes are labelled and tainted with the commands render prints on stderr,
and every example's pods run. The local control plane is shared by the whole session (its
classes installed, its nodes used by every test): there only the classes and the objects in
the test's namespace are applied (no pool records, quotas or node labels other tests would
see), every workload gets its pods, and those of the jobs in no pool run on kwok's nodes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuctl import constants as c
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.verbs.priorities import class_names
from tests.conftest import EXAMPLES, GPUCTL
from tests.kube import controlplane
from tests.kube import session as kube_session
from tests.support.sandbox import Cluster, running_sandbox, wait_for

EXAMPLE_NODES = SandboxConfig.load(EXAMPLES / "sandbox" / "cluster.yaml").nodes
WORKLOAD_KINDS = ("Job", "Deployment", "StatefulSet")


@pytest.fixture(params=["sandbox", pytest.param("kube", marks=pytest.mark.kube)])
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Cluster]:
    if request.param == "kube":
        reason = controlplane.unavailable_reason()
        if reason:
            pytest.skip(reason)
        with kube_session.local_cluster(tmp_path) as local:
            yield local
        return
    config = SandboxConfig.fast(nodes=EXAMPLE_NODES)
    with running_sandbox(tmp_path, config, namespace="render-pipe") as sandbox:
        # as a cluster gpuctl never ran on: none of its PriorityClasses
        sandbox.kubectl("delete", "priorityclass", *class_names(), namespaced=False)
        yield sandbox


def _render(cluster: Cluster) -> subprocess.CompletedProcess[str]:
    """`gpuctl render -f examples/ -n NAMESPACE`: it never contacts the cluster."""
    return subprocess.run(
        [str(GPUCTL), "render", "-f", str(EXAMPLES), "-n", cluster.namespace],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "GPUCTL_CACHE_DIR": str(cluster.workdir / "cache")},
    )


def _pods(cluster: Cluster) -> dict[str, list[dict[str, Any]]]:
    """The test namespace's pods by the job they belong to."""
    listed = cluster.kubectl("get", "pods", "-o", "json").stdout
    by_job: dict[str, list[dict[str, Any]]] = {}
    for pod in json.loads(listed)["items"]:
        by_job.setdefault(pod["metadata"]["labels"][c.Labels.INSTANCE], []).append(pod)
    return by_job


def _failed_creates(cluster: Cluster) -> list[str]:
    listed = cluster.kubectl(
        "get", "events", "--field-selector", "reason=FailedCreate", "-o", "json"
    ).stdout
    return [event["message"] for event in json.loads(listed)["items"]]


def test_the_render_pipe_makes_pods_that_run(fresh: Cluster) -> None:
    done = _render(fresh)
    assert done.returncode == 0, done.stderr
    objects = list(yaml.safe_load_all(done.stdout))
    workloads = {
        obj["metadata"]["name"]: obj["metadata"]["labels"][c.Labels.POOL]
        for obj in objects
        if obj["kind"] in WORKLOAD_KINDS and obj["metadata"]["namespace"] == fresh.namespace
    }
    assert len(workloads) == len(list(EXAMPLES.glob("*.yaml"))) - 4  # all but pools, quota
    commands = [line for line in done.stderr.splitlines() if line.startswith("kubectl ")]
    assert commands
    if fresh.is_sandbox:
        # first what no object carries, as `create` writes it before the workloads: the
        # pools' node labels and taints, and the token Secret of the notebook
        for command in commands:
            _run(fresh, shlex.split(command)[1:])
        text = done.stdout
        must_run = set(workloads)  # gpuctl refuses what no example node could hold
    else:
        kept = [
            obj
            for obj in objects
            if obj["kind"] == "PriorityClass" or obj["metadata"].get("namespace") == fresh.namespace
        ]
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": kept})
        must_run = {name for name, pool in workloads.items() if pool == c.DEFAULT_POOL}
    applied = fresh.kubectl("apply", "-f", "-", input=text, namespaced=False, timeout=120)
    lines = applied.stdout.splitlines()
    for name in ("gpuctl-high", "gpuctl-medium"):
        assert any(line.startswith(f"priorityclass.scheduling.k8s.io/{name} ") for line in lines)

    def not_running() -> list[str]:
        pods = _pods(fresh)
        return sorted(
            name
            for name in workloads
            if not pods.get(name) or (name in must_run and not any(_ran(pod) for pod in pods[name]))
        )

    try:
        wait_for(lambda: not not_running(), timeout=90, interval=0.5, what="the pods")
    except AssertionError:
        pytest.fail(f"no pod (or none that ran) of {not_running()}")
    assert _failed_creates(fresh) == []


def _run(cluster: Cluster, args: list[str]) -> None:
    """One kubectl command of render's stderr. `create secret generic` sends a protobuf body,
    which the sandbox does not read: the same Secret goes as JSON through `kubectl create`."""
    if args[:3] != ["create", "secret", "generic"]:
        cluster.kubectl(*args, namespaced=False)
        return
    name, _, namespace, literal = args[3:]
    key, value = literal.removeprefix("--from-literal=").split("=", 1)
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace},
        "stringData": {key: value},
    }
    cluster.kubectl("create", "-f", "-", input=json.dumps(secret), namespaced=False)


def _ran(pod: dict[str, Any]) -> bool:
    """Running, or run to completion (the sandbox's and kwok's training pods end)."""
    return pod["status"].get("phase") in ("Running", "Succeeded")
