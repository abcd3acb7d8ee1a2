"""`gpuctl controller run` as installed, on the sandbox: the document's example ends Scheduled
with a Job on the right node, and metrics and probes answer. The other scenarios run on the
sandbox and the real control plane alike: test_scenarios.py, test_rbac.py."""

from __future__ import annotations

from typing import Any

from gpuctl.controller import resource
from tests.conftest import REPO, Env
from tests.controller.scene import http_get, run_controller
from tests.support.sandbox import wait_for

EXAMPLE = (REPO / "examples" / "controller" / "gpuworkload.yaml").read_text()


def phase(env: Env, name: str) -> Any:
    obj = env.cluster.find(resource.KIND, name, "default")
    return ((obj or {}).get("status") or {}).get("phase")


def scheduled(env: Env, name: str, timeout: float = 20) -> dict[str, Any]:
    wait_for(lambda: phase(env, name) == "Scheduled", timeout=timeout, what=f"{name} Scheduled")
    status: dict[str, Any] = env.cluster.get(resource.KIND, name, "default")["status"]
    return status


def test_the_document_example_is_scheduled_with_a_job_on_its_node(crd_env: Env) -> None:
    with run_controller(crd_env.kubeconfig, crd_env.sandbox.workdir, "replica-a") as running:
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
