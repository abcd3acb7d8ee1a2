"""Kueue, the real one, on the local control plane: its manager (built from the
sigs.k8s.io/kueue Go module) runs beside the control plane for the tests that need it.

The manager runs out of the cluster, so its webhooks are not registered with the API server:
the webhook configurations it keeps its CA in exist with no webhook in them. gpuctl does not
need them: it creates a queued Job suspended and labelled itself, which is what Kueue's Job
webhook would have made of it. Everything else (Workloads, quota, admission, resuming the
Job) is Kueue's own controllers.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.kube import controlplane
from tests.support.ports import free_port

KUEUE = "v0.12.3"
SERVED_VERSION = "v1beta1"  # the only Kueue API version KUEUE serves (v1beta2 came in v0.15)
MODULE = "sigs.k8s.io/kueue"
BINARY = controlplane.CACHE / f"kueue-{KUEUE}" / "kueue"
NAMESPACE = "kueue-system"
START_TIMEOUT = 120.0
PODS_READY_TIMEOUT = 20  # seconds


def build() -> Path:
    """Compile Kueue's manager into BINARY, unless already there. Built inside its own module
    (its go.mod and go.sum), as its release is."""
    with controlplane.build_lock():
        if BINARY.exists():
            return BINARY
        part = BINARY.with_suffix(".part")
        controlplane.run_go(
            ["build", "-trimpath", "-ldflags=-s -w", "-o", str(part), "./cmd/kueue"], _source()
        )
        part.rename(BINARY)
        return BINARY


def _source() -> Path:
    """The module's files (its main package, its CRDs), from the Go module cache."""
    go = controlplane.go_binary()
    if go is None:
        raise controlplane.ControlPlaneError("Kueue is built from its Go module: no `go` here")
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    found = subprocess.run(
        [go, "mod", "download", "-json", f"{MODULE}@{KUEUE}"],
        cwd=BINARY.parent,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GOTOOLCHAIN": "local"},
    )
    if found.returncode != 0:
        raise controlplane.ControlPlaneError(f"downloading {MODULE}@{KUEUE}: {found.stdout}")
    return Path(json.loads(found.stdout)["Dir"])


def _kubectl(kubeconfig: Path, *args: str, stdin: str | None = None) -> None:
    done = subprocess.run(
        ["kubectl", "--kubeconfig", str(kubeconfig), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise controlplane.ControlPlaneError(f"kubectl {' '.join(args)}: {done.stderr.strip()}")


def _empty_webhooks() -> list[dict[str, Any]]:
    """What Kueue's certificate rotator puts its CA into: the webhook configurations, here
    with no webhook (the API server never calls the manager)."""
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind,
            "metadata": {"name": f"kueue-{word}-webhook-configuration"},
            "webhooks": [],
        }
        for kind, word in (
            ("ValidatingWebhookConfiguration", "validating"),
            ("MutatingWebhookConfiguration", "mutating"),
        )
    ]


def install(kubeconfig: Path) -> None:
    """Kueue's CRDs and what its manager expects to find (idempotent)."""
    crds = _source() / "config" / "components" / "crd" / "bases"
    _kubectl(kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", str(crds))
    _kubectl(kubeconfig, "wait", "--for=condition=Established", "-f", str(crds), "--timeout=60s")
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "kueue-webhook-server-cert", "namespace": NAMESPACE},
    }
    objects = {"apiVersion": "v1", "kind": "List", "items": [namespace, *_empty_webhooks()]}
    _kubectl(kubeconfig, "apply", "--server-side", "-f", "-", stdin=json.dumps(objects))
    if not _exists(kubeconfig, "secret", "kueue-webhook-server-cert"):
        # made once: the rotator fills it in, and applying it again would take that away
        _kubectl(kubeconfig, "create", "-f", "-", stdin=json.dumps(secret))


def _exists(kubeconfig: Path, kind: str, name: str) -> bool:
    done = subprocess.run(
        ["kubectl", "--kubeconfig", str(kubeconfig), "-n", NAMESPACE, "get", kind, name],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _configuration(directory: Path, ports: dict[str, int]) -> Path:
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta1",
        "kind": "Configuration",
        "namespace": NAMESPACE,
        "health": {"healthProbeBindAddress": f"127.0.0.1:{ports['health']}"},
        "metrics": {"bindAddress": f"127.0.0.1:{ports['metrics']}"},
        "webhook": {"host": "127.0.0.1", "port": ports["webhook"], "certDir": str(directory)},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": True},
        "integrations": {"frameworks": ["batch/job"]},
        # All-or-nothing start (gpuctl renders no start barrier into a queued job): a Job
        # whose pods are not all ready within the timeout is evicted and queued again. Short
        # here so that a test sees it; no blocking of other admissions meanwhile, since the
        # tests on this plane share it.
        "waitForPodsReady": {
            "enable": True,
            "timeout": f"{PODS_READY_TIMEOUT}s",
            "blockAdmission": False,
            "requeuingStrategy": {"timestamp": "Eviction", "backoffBaseSeconds": 5},
        },
        # its extension API server needs in-cluster delegation, which this set-up lacks
        "featureGates": {"VisibilityOnDemand": False},
    }
    path = directory / "kueue.yaml"
    path.write_text(json.dumps(config))
    return path


def _mount_certificates(kubeconfig: Path, directory: Path) -> None:
    """Do what the kubelet does for the manager's Pod: put the Secret the certificate rotator
    fills in into the webhook's certificate directory (the rotator waits for tls.crt there)."""
    if (directory / "tls.crt").exists():
        return
    done = subprocess.run(
        [
            *("kubectl", "--kubeconfig", str(kubeconfig), "-n", NAMESPACE),
            *("get", "secret", "kueue-webhook-server-cert", "-o", "json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    data = (json.loads(done.stdout).get("data") or {}) if done.returncode == 0 else {}
    if "tls.crt" not in data:
        return
    for key in sorted(data, key=lambda name: name == "tls.crt"):  # tls.crt last: "mounted"
        (directory / key).write_bytes(base64.b64decode(data[key]))


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _wait_ready(
    kubeconfig: Path, directory: Path, log: Path, port: int, exited: Callable[[], bool]
) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not _ready(port):
        _mount_certificates(kubeconfig, directory)
        if exited() or time.monotonic() > deadline:
            lines = log.read_text(errors="replace").splitlines() if log.exists() else []
            tail = "\n".join(lines[-5:])
            raise controlplane.ControlPlaneError(f"Kueue did not become ready:\n{tail}")
        time.sleep(0.5)


def _argv(kubeconfig: Path, directory: Path, ports: dict[str, int]) -> list[str]:
    return [
        str(BINARY),
        f"--config={_configuration(directory, ports)}",
        f"--kubeconfig={kubeconfig}",
        "--zap-log-level=2",
    ]


def serve(state: controlplane.State) -> None:
    """Kueue's manager for the rest of the control plane's life: spawned as one of its
    processes (in its state, so `down`, and the reaper of a killed test session, stop it with
    the plane); its log is logs/kueue.log. For a plane of Kueue's own (tests/kube/session.py):
    once Kueue's CRDs are on a cluster, gpuctl's pools there become ClusterQueues."""
    build()
    install(state.kubeconfig)
    directory = Path(state.directory) / "kueue"
    directory.mkdir(exist_ok=True)
    ports = {name: free_port() for name in ("health", "metrics", "webhook")}
    controlplane._spawn(state, "kueue", _argv(state.kubeconfig, directory, ports))
    log = Path(state.directory) / "logs" / "kueue.log"
    pid = state.pids["kueue"]
    _wait_ready(state.kubeconfig, directory, log, ports["health"], lambda: not _running(pid))


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


@contextmanager
def running(kubeconfig: Path) -> Iterator[Path]:
    """Kueue's manager on the cluster of `kubeconfig` until the block ends; yields its log."""
    build()
    install(kubeconfig)
    directory = Path(tempfile.mkdtemp(prefix="gpuctl-kueue-"))
    ports = {name: free_port() for name in ("health", "metrics", "webhook")}
    log = directory / "kueue.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            _argv(kubeconfig, directory, ports), stdout=out, stderr=subprocess.STDOUT
        )
    try:
        exited = lambda: process.poll() is not None  # noqa: E731
        _wait_ready(kubeconfig, directory, log, ports["health"], exited)
        yield log
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
