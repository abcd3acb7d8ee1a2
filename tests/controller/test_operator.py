"""`gpuctl controller run` as installed, on the sandbox: the document's example ends Scheduled
with a Job on the right node, metrics and probes answer, over-capacity fails after its retries,
a restart duplicates nothing, and of two replicas only the Lease holder acts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gpuctl.controller import resource
from gpuctl.sandbox.testing import wait_for
from tests.conftest import GPUCTL, REPO, Env

EXAMPLE = (REPO / "examples" / "controller" / "gpuworkload.yaml").read_text()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def http_get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except OSError:
        return 0, ""


@dataclass
class Running:
    process: subprocess.Popen[str]
    metrics_port: int
    health_port: int
    log: str

    def metric(self, line_start: str) -> float | None:
        _, text = http_get(self.metrics_port, "/metrics")
        for line in text.splitlines():
            if line.startswith(line_start + " "):
                return float(line.rsplit(" ", 1)[1])
        return None

    def output(self) -> str:
        with open(self.log) as handle:
            return handle.read()


@contextmanager
def controller(env: Env, identity: str = "replica-a") -> Iterator[Running]:
    metrics_port, health_port = free_port(), free_port()
    log = str(env.sandbox.workdir / f"controller-{identity}.log")
    with open(log, "w") as out:
        process = subprocess.Popen(
            [
                str(GPUCTL),
                "controller",
                "run",
                "--kubeconfig",
                str(env.kubeconfig),
                "--metrics-port",
                str(metrics_port),
                "--health-port",
                str(health_port),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "POD_NAME": identity},
        )
    running = Running(process, metrics_port, health_port, log)
    try:
        wait_for(
            lambda: http_get(health_port, "/readyz")[0] == 200,
            timeout=30,
            what=f"the controller's readiness\n{running.output()}",
        )
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def phase(env: Env, name: str) -> Any:
    obj = env.cluster.find(resource.KIND, name, "default")
    return ((obj or {}).get("status") or {}).get("phase")


def scheduled(env: Env, name: str, timeout: float = 20) -> dict[str, Any]:
    wait_for(lambda: phase(env, name) == "Scheduled", timeout=timeout, what=f"{name} Scheduled")
    status: dict[str, Any] = env.cluster.get(resource.KIND, name, "default")["status"]
    return status


def test_the_document_example_is_scheduled_with_a_job_on_its_node(crd_env: Env) -> None:
    with controller(crd_env) as running:
        assert http_get(running.health_port, "/healthz") == (200, "ok\n")
        crd_env.sandbox.kubectl("apply", "-f", "-", input=EXAMPLE)
        status = scheduled(crd_env, "my-inference-workload")
        assert status["assignedNode"] == "big"  # the most free GPUs
        assert status["jobName"] == "my-inference-workload"
        job = crd_env.cluster.get("Job", "my-inference-workload", "default")
        assert job["metadata"]["labels"]["runwhere.ai/priority"] == "high"
        pods = wait_for(
            lambda: [
                pod
                for pod in crd_env.cluster.list("Pod", "default")
                if (pod.get("spec") or {}).get("nodeName")
            ],
            what="the Job's pod on a node",
        )
        assert [pod["spec"]["nodeName"] for pod in pods] == ["big"]
        assert running.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') == 1
        assert running.metric("warp_gpuworkload_leader") == 1
        printed = crd_env.sandbox.kubectl("get", "gpuworkloads").stdout
        assert "my-inference-workload" in printed


def test_over_capacity_retries_then_fails(crd_env: Env) -> None:
    with controller(crd_env) as running:
        crd_env.cluster.create(
            {
                "apiVersion": resource.API_VERSION,
                "kind": resource.KIND,
                "metadata": {"name": "huge", "namespace": "default"},
                "spec": {
                    "modelName": "llama2",
                    "gpuCount": 9,
                    "retryPolicy": {"maxRetries": 2, "backoffSeconds": 1},
                },
            }
        )
        # retries after ~1 s and ~2 s (plus up to 10 %), then Failed
        wait_for(lambda: phase(crd_env, "huge") == "Failed", timeout=15, what="huge Failed")
        status = crd_env.cluster.get(resource.KIND, "huge", "default")["status"]
        assert (status["reason"], status["retries"]) == ("RetriesExhausted", 2)
        assert running.metric("warp_gpuworkload_retries_total") == 2
        assert running.metric('warp_gpuworkload_failed_total{reason="NoSuitableNode"}') == 3
        assert crd_env.cluster.list("Job", "default") == []


def test_a_restarted_controller_creates_no_duplicate(crd_env: Env) -> None:
    workload = {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": "first", "namespace": "default"},
        "spec": {"modelName": "llama2", "gpuCount": 2},
    }
    with controller(crd_env) as running:
        crd_env.cluster.create(workload)
        before = scheduled(crd_env, "first")
        running.process.kill()  # no clean shutdown: the Lease is still held
        running.process.wait()
    with controller(crd_env) as running:  # the same replica comes back
        crd_env.cluster.create({**workload, "metadata": {"name": "second", "namespace": "default"}})
        scheduled(crd_env, "second")
        jobs = sorted(job["metadata"]["name"] for job in crd_env.cluster.list("Job", "default"))
        assert jobs == ["first", "second"]
        assert crd_env.cluster.get(resource.KIND, "first", "default")["status"] == before
        assert running.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') == 1


def test_of_two_replicas_only_the_leader_acts_and_a_standby_takes_over(crd_env: Env) -> None:
    def create(name: str) -> None:
        crd_env.cluster.create(
            {
                "apiVersion": resource.API_VERSION,
                "kind": resource.KIND,
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"modelName": "llama2", "gpuCount": 1},
            }
        )

    with controller(crd_env, "replica-a") as first, controller(crd_env, "replica-b") as second:
        lease = crd_env.cluster.get("Lease", resource.NAME, "default")
        assert lease["spec"]["holderIdentity"] == "replica-a"
        assert first.metric("warp_gpuworkload_leader") == 1
        assert second.metric("warp_gpuworkload_leader") == 0
        create("one")
        scheduled(crd_env, "one")
        assert first.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') == 1
        assert second.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') is None

        first.process.send_signal(signal.SIGTERM)  # a clean stop gives the Lease up
        assert first.process.wait(timeout=20) == 0
        wait_for(
            lambda: (
                crd_env.cluster.get("Lease", resource.NAME, "default")["spec"].get("holderIdentity")
                == "replica-b"
            ),
            timeout=15,
            what="replica-b to lead",
        )
        create("two")
        scheduled(crd_env, "two")
        assert second.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') == 1
        lease = crd_env.cluster.get("Lease", resource.NAME, "default")
        assert lease["spec"]["leaseTransitions"] == 1


def test_the_roles_allow_every_call_the_controller_makes_and_no_more(crd_env: Env) -> None:
    """Every API call of a run that places one workload, retries and fails another, checked
    against the Role (in the controller's namespace) and the ClusterRole; every granted verb
    is used. Only the controller talks to the sandbox while the log is recorded."""
    for name, gpus in (("fits", 1), ("too-big", 9)):
        crd_env.cluster.create(
            {
                "apiVersion": resource.API_VERSION,
                "kind": resource.KIND,
                "metadata": {"name": name, "namespace": "default"},
                "spec": {
                    "modelName": "llama2",
                    "gpuCount": gpus,
                    "retryPolicy": {"maxRetries": 1, "backoffSeconds": 1},
                },
            }
        )
    log = crd_env.sandbox.requests
    log.clear()

    def status_writes(name: str) -> int:
        return len([r for r in log.matching("patch", "gpuworkloads/status", name) if r.code == 200])

    with controller(crd_env):
        wait_for(lambda: status_writes("fits") >= 1, timeout=20, what="fits placed")
        wait_for(lambda: status_writes("too-big") >= 2, timeout=20, what="too-big Failed")
        wait_for(lambda: log.matching("update", "leases"), timeout=10, what="a lease renewal")
    calls = log.api_calls()

    def granted(rules: Any, call: Any) -> bool:
        return any(
            call.resource in rule["resources"] and call.verb in rule["verbs"] for rule in rules
        )

    for call in calls:
        in_namespace = call.namespace == "default" and granted(resource.NAMESPACED_RULES, call)
        cluster_wide = granted(resource.CLUSTER_RULES, call)
        assert in_namespace or cluster_wide, f"not granted: {call}"
    used = {(call.resource, call.verb) for call in calls}
    grants = {
        (name, verb)
        for rule in (*resource.NAMESPACED_RULES, *resource.CLUSTER_RULES)
        for name in rule["resources"]
        for verb in rule["verbs"]
    }
    assert used == grants
