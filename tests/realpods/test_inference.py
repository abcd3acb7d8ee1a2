"""Inference on real pods: readiness gates `create --wait`, a changed spec rolls out with no
moment where the service does not answer, and a probe that really fails is explained."""

from __future__ import annotations

import re
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
import yaml

from tests.kube import images, nodes
from tests.realpods.conftest import gpuctl
from tests.support.sandbox import Cluster, wait_for

pytestmark = pytest.mark.realpods


def inference_spec(name: str, env: dict[str, str], replicas: int = 1) -> dict[str, Any]:
    return {
        "kind": "inference",
        "version": "v0.1",
        "job": {"name": name, "priority": "medium"},
        "environment": {
            "image": images.INFERENCE,
            "command": ["python3", "/srv/inference/server.py", "--port", "8000"],
            "env": [{"name": k, "value": v} for k, v in env.items()],
        },
        "service": {"replicas": replicas, "port": 8000, "health_check": "/health"},
        "resources": {"pool": nodes.POOL, "gpu": 1, "cpu": "250m", "memory": "256Mi"},
    }


def access_url(cluster: Cluster, name: str) -> str:
    described = gpuctl(cluster, "describe", "job", name).stdout
    found = re.search(r"^Access:\s+(\S+)$", described, re.M)
    assert found, described
    return found.group(1)


def answer(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.read().decode().strip()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode().strip()
    except OSError as error:
        return 0, str(error)


def test_readiness_gates_wait_and_a_new_spec_rolls_out_without_a_gap(real_pods: Cluster) -> None:
    spec = inference_spec("web", {"READY_AFTER": "12", "VERSION": "1"})
    started = time.monotonic()
    created = gpuctl(real_pods, "create", "-f", "-", "--wait", stdin=yaml.safe_dump(spec))
    assert created.returncode == 0, created.stderr
    assert time.monotonic() - started > 12  # not before the model "loaded"
    url = access_url(real_pods, "web")
    assert answer(url + "/health") == (200, "ok")
    assert '"version": "1"' in answer(url + "/")[1]

    failures: list[tuple[int, str]] = []
    versions: set[str] = set()
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            code, text = answer(url + "/")
            if code == 200:
                versions.add(re.sub(r'.*"version": "(\w*)".*', r"\1", text))
            else:
                failures.append((code, text))
            time.sleep(0.1)

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        spec["environment"]["env"][1]["value"] = "2"
        applied = gpuctl(real_pods, "apply", "-f", "-", "--wait", stdin=yaml.safe_dump(spec))
        assert applied.returncode == 0, applied.stderr
        wait_for(lambda: answer(url + "/")[1].count('"version": "2"'), 120, 0.5, "version 2")
        time.sleep(5)  # the old pod is gone by now: every answer comes from the new one
    finally:
        done.set()
        poller.join()
    assert failures == []
    assert versions == {"1", "2"}


def test_a_failing_probe_is_explained(real_pods: Cluster) -> None:
    spec = inference_spec("sick", {"HEALTH": "fail"})
    created = gpuctl(
        real_pods, "create", "-f", "-", "--wait", "--timeout", "40", stdin=yaml.safe_dump(spec)
    )
    assert created.returncode != 0
    assert "Startup probe failed: HTTP probe failed with statuscode: 500" in created.stderr
    described = gpuctl(real_pods, "describe", "job", "sick").stdout
    why = re.search(r"^Why:\s+(.*)$", described, re.M)
    assert why, described
    assert "not ready: Startup probe failed: HTTP probe failed with statuscode: 500" in why.group(1)
