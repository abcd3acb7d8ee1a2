"""A controller scenario on any cluster of the `cluster` fixture (the sandbox, the local real
control plane): nodes of the test's own, the installed `gpuctl controller run` limited to them
by a node selector, GPUWorkloads in the test's namespace, and waits on their status.

The real control plane is shared by the whole session, so a scenario's nodes carry a label of
their own (the controller places only there) and a PreferNoSchedule taint (the scheduler keeps
other tests' pods off them while other nodes fit; the controller's pinned Jobs go there all
the same).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuctl.cluster.client import Cluster as Client
from gpuctl.cluster.errors import AlreadyExists, NotFound
from gpuctl.controller import resource
from gpuctl.controller.install import wait_established
from gpuctl.controller.workload import workload_selector
from tests.conftest import GPUCTL
from tests.support.ports import free_port
from tests.support.sandbox import Cluster, wait_for

SCENE_LABEL = "gpuctl.test/scene"
# kwok leaves the conditions of a node with this label as written (tests/kube/stages)
MANUAL_CONDITIONS = {"gpuctl.test/conditions": "manual"}
CHEAP = {"gpu-orchestrator/cheap-node": "true"}


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
    """A `gpuctl controller run` process, its ports and its log file."""

    process: subprocess.Popen[str]
    metrics_port: int
    health_port: int
    log: Path

    def metric(self, series: str) -> float | None:
        _, text = http_get(self.metrics_port, "/metrics")
        for line in text.splitlines():
            if line.startswith(series + " "):
                return float(line.rsplit(" ", 1)[1])
        return None

    def output(self) -> str:
        return self.log.read_text()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()


@dataclass
class Scene:
    cluster: Cluster
    client: Client
    nodes: list[str] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        return self.cluster.namespace

    @property
    def selector(self) -> str:
        return f"{SCENE_LABEL}={self.namespace}"

    # ------------------------------------------------------------------ nodes

    def add_node(
        self,
        name: str,
        gpus: int,
        cpu: str = "64",
        labels: dict[str, str] | None = None,
    ) -> str:
        """A Ready node of this scene, named `<namespace>-<name>`; its full name."""
        full = f"{self.namespace}-{name}"
        capacity = {"cpu": cpu, "memory": "512Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
        self.client.create(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": full,
                    "labels": {
                        "kubernetes.io/hostname": full,
                        "kubernetes.io/os": "linux",
                        SCENE_LABEL: self.namespace,
                        **(labels or {}),
                    },
                },
                "spec": {
                    "taints": [{"key": SCENE_LABEL, "value": "own", "effect": "PreferNoSchedule"}]
                },
                "status": {
                    "capacity": capacity,
                    "allocatable": capacity,
                    "conditions": [ready_condition("True")],
                },
            }
        )
        self.nodes.append(full)
        return full

    def make_not_ready(self, node: str) -> None:
        """The node's kubelet stops reporting Ready (the node must have MANUAL_CONDITIONS)."""
        patch = {"status": {"conditions": [ready_condition("False")]}}
        self.client.patch("Node", node, None, patch, subresource="status")

    def remove_nodes(self) -> None:
        for node in self.nodes:
            with contextlib.suppress(NotFound):
                self.client.delete("Node", node, propagation="Background")

    # ------------------------------------------------------------------ workloads

    def create(self, name: str, gpus: int, strategy: str = "leastLoaded", **spec: Any) -> None:
        self.client.create(
            {
                "apiVersion": resource.API_VERSION,
                "kind": resource.KIND,
                "metadata": {"name": name, "namespace": self.namespace},
                "spec": {
                    "modelName": "llama2",
                    "gpuCount": gpus,
                    "schedulingStrategy": strategy,
                    **spec,
                },
            }
        )

    def status(self, name: str) -> dict[str, Any]:
        obj = self.client.find(resource.KIND, name, self.namespace) or {}
        return dict(obj.get("status") or {})

    def wait_phase(self, name: str, phase: str, timeout: float = 30) -> dict[str, Any]:
        wait_for(
            lambda: self.status(name).get("phase") == phase,
            timeout=timeout,
            interval=0.1,
            what=f"{name} {phase} (status now {self.status(name)})",
        )
        return self.status(name)

    def jobs(self) -> list[str]:
        return sorted(job["metadata"]["name"] for job in self.client.list("Job", self.namespace))

    def pod_node(self, workload: str, timeout: float = 30) -> str:
        """The node the scheduler bound the workload's pod to."""

        def bound() -> str:
            pods = self.client.list(
                "Pod", self.namespace, label_selector=workload_selector(workload)
            )
            nodes = [
                (pod.get("spec") or {}).get("nodeName")
                for pod in pods
                if not pod["metadata"].get("deletionTimestamp")
            ]
            return str(nodes[0]) if len(nodes) == 1 and nodes[0] else ""

        return wait_for(bound, timeout=timeout, interval=0.1, what=f"{workload}'s pod bound")

    # ------------------------------------------------------------------ the controller

    @contextmanager
    def controller(
        self,
        identity: str = "replica-a",
        kubeconfig: Path | None = None,
        extra: tuple[str, ...] = (),
    ) -> Iterator[Running]:
        """`gpuctl controller run` on this scene's nodes, ready when this is entered."""
        with run_controller(
            kubeconfig or self.cluster.kubeconfig,
            self.cluster.workdir,
            identity,
            (
                "--namespace",
                self.namespace,
                "--node-selector",
                self.selector,
                "--node-check-interval",
                "0.5",
                "--not-ready-grace",
                "1",
                *extra,
            ),
        ) as running:
            yield running


@contextmanager
def run_controller(
    kubeconfig: Path, workdir: Path, identity: str, options: tuple[str, ...] = ()
) -> Iterator[Running]:
    """`gpuctl controller run` with `options`, as replica `identity`, ready when this is entered;
    stopped (SIGTERM) on leaving. Its log is `controller-<identity>.log` in `workdir`."""
    metrics_port, health_port = free_port(), free_port()
    log = workdir / f"controller-{identity}.log"
    command = [
        str(GPUCTL),
        "controller",
        "run",
        "--kubeconfig",
        str(kubeconfig),
        "--metrics-port",
        str(metrics_port),
        "--health-port",
        str(health_port),
        *options,
    ]
    with log.open("w") as out:
        process = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "POD_NAME": identity},
        )
    running = Running(process, metrics_port, health_port, log)
    try:
        wait_for(
            lambda: http_get(health_port, "/readyz")[0] == 200 or process.poll() is not None,
            timeout=30,
            what="the controller's readiness",
        )
        assert process.poll() is None, f"the controller exited:\n{running.output()}"
        yield running
    finally:
        running.stop()


def ready_condition(status: str) -> dict[str, Any]:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {
        "type": "Ready",
        "status": status,
        "reason": "KubeletReady" if status == "True" else "KubeletNotReady",
        "message": "kubelet is posting ready status" if status == "True" else "PLEG unhealthy",
        "lastHeartbeatTime": now,
        "lastTransitionTime": now,
    }


def ensure_crd(client: Client) -> None:
    """The GPUWorkload CRD, Established (on a shared cluster another test may have made it)."""
    with contextlib.suppress(AlreadyExists):
        client.create(resource.crd())
    wait_established(client)


@contextmanager
def scene_on(cluster: Cluster) -> Iterator[Scene]:
    client = Client.connect(str(cluster.kubeconfig))
    ensure_crd(client)
    scene = Scene(cluster, client)
    try:
        yield scene
    finally:
        scene.remove_nodes()
