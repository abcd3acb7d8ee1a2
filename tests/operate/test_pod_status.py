"""A pod's STATUS: what the API server prints in its Table (kubectl get pods), worked out the
same way by gpuctl for whole objects and by the sandbox's server, and gpuctl's words for it."""

from __future__ import annotations

from typing import Any

import pytest

from gpuctl.inventory import status
from gpuctl.sandbox import tables


def pod(
    phase: str,
    *containers: dict[str, Any],
    init: tuple[dict[str, Any], ...] = (),
    reason: str = "",
    deleting: bool = False,
    conditions: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "p", "namespace": "default"}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    pod_status: dict[str, Any] = {
        "phase": phase,
        "containerStatuses": list(containers),
        "initContainerStatuses": list(init),
        "conditions": [{"type": kind, "status": value} for kind, value in conditions],
    }
    if reason:
        pod_status["reason"] = reason
    spec = {
        "containers": [{"name": c["name"]} for c in containers],
        "initContainers": [{"name": c["name"]} for c in init],
    }
    return {"metadata": metadata, "spec": spec, "status": pod_status}


def waiting(name: str, why: str) -> dict[str, Any]:
    return {"name": name, "ready": False, "state": {"waiting": {"reason": why}}}


def running(name: str, ready: bool = True) -> dict[str, Any]:
    return {"name": name, "ready": ready, "state": {"running": {}}}


def ended(name: str, why: str = "", code: int = 0) -> dict[str, Any]:
    terminated: dict[str, Any] = {"exitCode": code}
    if why:
        terminated["reason"] = why
    return {"name": name, "ready": False, "state": {"terminated": terminated}}


CASES = [
    # (pod, what the server prints, what gpuctl shows)
    (pod("Running", running("a")), "Running", "Running"),
    (pod("Pending"), "Pending", "Pending"),
    (pod("Pending", waiting("a", "ContainerCreating")), "ContainerCreating", "Starting"),
    (pod("Pending", waiting("a", "ImagePullBackOff")), "ImagePullBackOff", "Image pull failed"),
    (pod("Running", waiting("a", "CrashLoopBackOff")), "CrashLoopBackOff", "Crashing (restarting)"),
    (pod("Succeeded", ended("a", "Completed")), "Completed", "Succeeded"),
    (pod("Failed", ended("a", "Error", 1)), "Error", "Error"),
    (pod("Failed", ended("a", "OOMKilled", 137)), "OOMKilled", "OOMKilled"),
    (pod("Failed", ended("a", code=3)), "ExitCode:3", "ExitCode:3"),
    # the first container's reason wins
    (
        pod("Pending", waiting("a", "ErrImagePull"), waiting("b", "ContainerCreating")),
        "ErrImagePull",
        "Image pull failed",
    ),
    # one container done, another still running and ready
    (
        pod("Running", ended("a", "Completed"), running("b"), conditions=(("Ready", "True"),)),
        "Running",
        "Running",
    ),
    (pod("Running", ended("a", "Completed"), running("b")), "NotReady", "NotReady"),
    (pod("Failed", reason="Evicted"), "Evicted", "Evicted"),
    (pod("Pending", waiting("a", "PodInitializing"), init=(running("i"),)), "Init:0/1", "Init:0/1"),
    (
        pod("Pending", init=(ended("i", code=0), waiting("j", "ImagePullBackOff"))),
        "Init:ImagePullBackOff",
        "Init:ImagePullBackOff",
    ),
    (pod("Running", running("a"), deleting=True), "Terminating", "Terminating"),
    (pod("Succeeded", ended("a", "Completed"), deleting=True), "Completed", "Succeeded"),
    (pod("Running", running("a"), reason="NodeLost", deleting=True), "Unknown", "Unknown"),
]


@pytest.mark.parametrize(("obj", "printed", "shown"), CASES)
def test_pod_status_is_kubectls_in_plain_words(obj: dict[str, Any], printed: str, shown: str):
    assert status.printed_pod_status(obj) == printed
    assert tables.pod_status(obj) == printed  # the sandbox's server prints the same
    assert status.pod_status_words(printed) == shown
    assert status.pod_status(obj) == shown
