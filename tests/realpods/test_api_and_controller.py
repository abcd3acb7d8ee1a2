"""The REST API's log follow (chunked HTTP, and the WebSocket through the Python SDK) and the
GPUWorkload controller, on real pods: the followed stream carries the lines as the container
prints them and ends with it; a GPUWorkload's Job runs on the node the controller picked, and
its pod really finishes."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from gpuctl_client import Client as SdkClient

from gpuctl.cluster.client import Cluster as Client
from gpuctl.controller import resource
from gpuctl.controller.workload import WORKLOAD_LABEL
from tests.conftest import GPUCTL
from tests.controller.scene import ensure_crd, http_get, run_controller
from tests.kube import images, nodes
from tests.realpods.conftest import gpuctl
from tests.realpods.test_training import job_status, training_spec
from tests.support.ports import free_port
from tests.support.sandbox import Cluster, wait_for

pytestmark = pytest.mark.realpods


@pytest.fixture
def serve(real_pods: Cluster) -> Iterator[int]:
    """`gpuctl serve` on a free loopback port, no authentication (loopback only)."""
    port = free_port()
    process = subprocess.Popen(
        [str(GPUCTL), "serve", "--port", str(port), "--kubeconfig", str(real_pods.kubeconfig)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GPUCTL_CACHE_DIR": str(real_pods.workdir / "cache")},
    )
    try:
        wait_for(
            lambda: http_get(port, "/readyz")[0] == 200 or process.poll() is not None,
            60,
            0.2,
            "the API",
        )
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


EPOCHS = """import time
for i in range(1, 7):
    print(f'epoch {i}', flush=True)
    time.sleep(3)
"""


def _printing_job(real_pods: Cluster, name: str) -> str:
    """A job printing six lines 3 s apart, created and started; its id."""
    spec = training_spec(name, ["python3", "-c", EPOCHS])
    created = gpuctl(real_pods, "create", "-f", "-", "--wait", stdin=yaml.safe_dump(spec))
    assert created.returncode == 0, created.stderr
    return f"{real_pods.namespace}.{name}"


def _followed(seen: list[tuple[float, str]]) -> None:
    """Every line in order, and followed as printed, not read at the end (15 s of printing:
    however late the stream starts under load, later lines come later)."""
    lines = [line for _, line in seen if line]
    assert [line.rsplit(" ", 2)[-2:] for line in lines] == [
        ["epoch", str(i)] for i in range(1, 7)
    ], lines
    assert seen[-1][0] - seen[0][0] > 3


def test_the_api_follows_a_real_log_until_the_container_ends(
    real_pods: Cluster, serve: int
) -> None:
    job_id = _printing_job(real_pods, "epochs")
    url = f"http://127.0.0.1:{serve}/api/v1/jobs/{job_id}/logs?follow=true"
    seen: list[tuple[float, str]] = []
    with urllib.request.urlopen(url, timeout=60) as stream:
        for raw in stream:  # the response ends when the container does
            seen.append((time.monotonic(), raw.decode().strip()))
    _followed(seen)


def test_the_python_sdk_follows_a_real_log_over_the_websocket(
    real_pods: Cluster, serve: int
) -> None:
    job_id = _printing_job(real_pods, "epochs-ws")
    with SdkClient(f"http://127.0.0.1:{serve}", None) as client:
        lines = client.jobs.follow(job_id, via="websocket")  # ends when the container does
        seen = [(time.monotonic(), line) for line in lines]
    _followed(seen)


SERVE_A_WHILE = (
    "import os, time; print('serving', os.environ['MODEL_NAME'], flush=True); time.sleep(20)"
)


def test_a_gpuworkload_runs_on_the_node_the_controller_picked(real_pods: Cluster) -> None:
    client = Client.connect(str(real_pods.kubeconfig))
    ensure_crd(client)
    workload: dict[str, Any] = {
        "apiVersion": resource.API_VERSION,
        "kind": "GPUWorkload",
        "metadata": {"name": "llama", "namespace": real_pods.namespace},
        "spec": {
            "modelName": "llama2",
            "gpuCount": 2,
            "schedulingStrategy": "leastLoaded",
            "image": images.PYTHON,
            "command": ["python3", "-c", SERVE_A_WHILE],
            "cpu": "250m",
            "memory": "256Mi",
        },
    }
    options = ("--namespace", real_pods.namespace, "--node-selector", f"{nodes.REAL_LABEL}=true")
    with run_controller(real_pods.kubeconfig, real_pods.workdir, "real", options):
        client.create(workload)
        status = wait_for(lambda: _status(client, real_pods.namespace), 60, 0.5, "the placement")
        assert status["phase"] == "Scheduled" and status["assignedNode"] in nodes.names(2), status
        # gpuctl's status of the workload's Job follows its real pod: Running while the
        # container runs, Succeeded once it exited 0
        wait_for(lambda: job_status(real_pods, "llama") == "Running", 120, 0.5, "Running")
        pods = wait_for(lambda: _finished_pods(real_pods), 180, 1, "the pod to finish")
        wait_for(lambda: job_status(real_pods, "llama") != "Running", 60, 0.5, "the Job's end")
    assert [p["spec"]["nodeName"] for p in pods] == [status["assignedNode"]]
    assert pods[0]["status"]["phase"] == "Succeeded"
    assert job_status(real_pods, "llama") == "Succeeded"
    logs = real_pods.kubectl("logs", pods[0]["metadata"]["name"]).stdout
    assert logs == "serving llama2\n"
    assert _status(client, real_pods.namespace)["phase"] == "Scheduled"


def _status(client: Client, namespace: str) -> dict[str, Any]:
    obj = client.find("GPUWorkload", "llama", namespace) or {}
    found: dict[str, Any] = obj.get("status") or {}
    return found if found.get("phase") else {}


def _finished_pods(cluster: Cluster) -> list[dict[str, Any]]:
    shown = cluster.kubectl("get", "pods", "-l", f"{WORKLOAD_LABEL}=llama", "-o", "json")
    pods: list[dict[str, Any]] = json.loads(shown.stdout)["items"]
    return (
        pods
        if pods and all(p["status"].get("phase") in ("Succeeded", "Failed") for p in pods)
        else []
    )
