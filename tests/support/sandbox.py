"""Helpers behind the pytest fixtures in tests/conftest.py: a sandbox per test, and the same
`Cluster` interface over a real cluster for `make e2e`."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from gpuctl.render.engine import render_priority_classes
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.faults import Faults, RequestLog
from gpuctl.sandbox.runner import Sandbox

T = TypeVar("T")
KUBECTL = os.environ.get("KUBECTL", "kubectl")


class Cluster:
    """What a conformance scenario needs: a kubeconfig, a namespace of its own, clients, kubectl."""

    __test__ = False  # a fixture value that test modules import: never collected as tests
    is_sandbox = False

    def __init__(self, kubeconfig: Path, namespace: str, workdir: Path) -> None:
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.workdir = workdir

    def api_client(self) -> Any:
        """A fresh `kubernetes.client.ApiClient` for this cluster (close it, or let GC)."""
        from kubernetes import config

        return config.new_client_from_config(config_file=str(self.kubeconfig))  # type: ignore[no-untyped-call]

    def kubectl(
        self,
        *args: str,
        check: bool = True,
        input: str | None = None,
        timeout: float = 60,
        namespaced: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        command = [
            KUBECTL,
            "--kubeconfig",
            str(self.kubeconfig),
            "--cache-dir",
            str(self.workdir / "kube-cache"),
        ]
        if namespaced:
            command += ["-n", self.namespace]
        result = subprocess.run(
            [*command, *args],
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} failed ({result.returncode}):\n{result.stderr}"
            )
        return result

    def popen_kubectl(self, *args: str) -> subprocess.Popen[str]:
        command = [
            KUBECTL,
            "--kubeconfig",
            str(self.kubeconfig),
            "--cache-dir",
            str(self.workdir / "kube-cache"),
            "-n",
            self.namespace,
        ]
        return subprocess.Popen(
            [*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )


class SandboxCluster(Cluster):
    """A running sandbox with the fault-injection API and request log at hand."""

    is_sandbox = True

    def __init__(self, sandbox: Sandbox, kubeconfig: Path, namespace: str, workdir: Path) -> None:
        super().__init__(kubeconfig, namespace, workdir)
        self.sandbox = sandbox
        self.url = sandbox.url
        self.faults: Faults = sandbox.faults
        self.requests: RequestLog = sandbox.requests
        self.config = sandbox.config

    def settle(self, timeout: float = 5.0) -> bool:
        """Wait until the simulated controllers are quiet (see `Sandbox.settle`)."""
        return self.sandbox.settle(timeout)

    def api_client(self) -> Any:
        from kubernetes import client

        configuration = client.Configuration()
        configuration.host = self.url
        return client.ApiClient(configuration)


@contextmanager
def running_sandbox(
    workdir: Path, config: SandboxConfig | None = None, namespace: str = "default"
) -> Iterator[SandboxCluster]:
    """Start a sandbox on a free port (fast timings unless `config` says otherwise), with
    gpuctl's PriorityClasses installed (`gpuctl priority-classes install`).

    Leaving the block fails with AssertionError if a simulated controller raised meanwhile: a
    controller bug must fail the test that ran into it, not just slow the cluster down."""
    sandbox = Sandbox(config or SandboxConfig.fast()).start()
    try:
        kubeconfig = sandbox.write_kubeconfig(workdir / "kubeconfig")
        if namespace != "default":
            namespaces = sandbox.registry.get("", "namespaces")
            sandbox.api.create(namespaces, "", {"metadata": {"name": namespace}})
        classes = sandbox.registry.get("scheduling.k8s.io", "priorityclasses")
        for manifest in render_priority_classes():  # set up as an administrator would
            sandbox.api.create(classes, "", manifest.obj)
        yield SandboxCluster(sandbox, kubeconfig, namespace, workdir)
    finally:
        sandbox.stop()
    errors = sandbox.controller_errors()
    if errors:
        raise AssertionError(
            "the sandbox's controllers raised:\n"
            + "\n".join(f"{e.describe()}\n{e.traceback}" for e in errors)
        )


@contextmanager
def real_cluster(workdir: Path, kubeconfig: Path | None = None) -> Iterator[Cluster]:
    """The cluster in `kubeconfig` (default: $KUBECONFIG), with a throwaway namespace for the
    test, returned once its default service account exists (pods cannot be created before)."""
    if kubeconfig is None:
        kubeconfig = Path(os.environ.get("KUBECONFIG") or Path.home() / ".kube" / "config")
    namespace = f"gpuctl-e2e-{uuid.uuid4().hex[:8]}"
    cluster = Cluster(kubeconfig, namespace, workdir)
    cluster.kubectl("create", "namespace", namespace, namespaced=False)
    try:
        wait_for(
            lambda: (
                cluster.kubectl("get", "serviceaccount", "default", check=False).returncode == 0
            ),
            timeout=60,
            interval=0.2,
            what="the namespace's default service account",
        )
        yield cluster
    finally:
        cluster.kubectl(
            "delete", "namespace", namespace, "--wait=false", check=False, namespaced=False
        )


def wait_for(
    predicate: Callable[[], T],
    timeout: float = 10.0,
    interval: float = 0.02,
    what: str = "condition",
) -> T:
    """Poll until `predicate()` is truthy and return it, or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)
