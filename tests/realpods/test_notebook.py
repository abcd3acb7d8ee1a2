"""A notebook on a real pod: JupyterLab answers at the address `get notebook` prints, `cp` goes
both ways over the real exec stream, `scale notebook` resizes CPU and memory in place and
restarts the pod for a GPU change."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kube import images, nodes
from tests.realpods.conftest import gpuctl
from tests.support.sandbox import Cluster, wait_for

pytestmark = pytest.mark.realpods

TOKEN = "real-pods-token"


def notebook_spec(name: str) -> dict[str, Any]:
    return {
        "kind": "notebook",
        "version": "v0.1",
        "job": {"name": name, "priority": "medium"},
        "environment": {
            "image": images.NOTEBOOK,
            "command": [
                "jupyter-lab",
                "--ip=0.0.0.0",
                "--port=8888",
                "--no-browser",
                "--allow-root",
                f"--NotebookApp.token={TOKEN}",
                "--NotebookApp.password=",
            ],
        },
        # no health check: the notebook's TCP readiness probe holds `create --wait` until
        # Jupyter listens on its port
        "service": {"port": 8888},
        "resources": {"pool": nodes.POOL, "gpu": 1, "cpu": "500m", "memory": "1Gi"},
    }


@pytest.fixture
def notebook(real_pods: Cluster) -> str:
    created = gpuctl(
        real_pods, "create", "-f", "-", "--wait", stdin=yaml.safe_dump(notebook_spec("lab"))
    )
    assert created.returncode == 0, created.stderr
    return "lab"


def _pod(cluster: Cluster) -> dict[str, Any]:
    pod: dict[str, Any] = json.loads(cluster.kubectl("get", "pod", "lab-0", "-o", "json").stdout)
    return pod


def test_the_notebook_answers_at_the_address_get_notebook_prints(
    real_pods: Cluster, notebook: str
) -> None:
    listed = gpuctl(real_pods, "get", "notebook", notebook).stdout
    found = re.search(r"(http://\S+/\?token=\S+)", listed)
    assert found, listed
    url = found.group(1)
    assert url.endswith(f"/?token={TOKEN}")
    node_ip = _pod(real_pods)["status"]["hostIP"]
    assert url.startswith(f"http://{node_ip}:")
    with urllib.request.urlopen(url, timeout=30) as page:
        assert page.status == 200
        assert "JupyterLab" in page.read().decode()


def test_cp_goes_both_ways_over_the_exec_stream(
    real_pods: Cluster, notebook: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    (data / "nested").mkdir(parents=True)
    (data / "nested" / "weights.bin").write_bytes(bytes(range(256)) * 4096)  # 1 MiB
    (data / "notes.txt").write_text("hello notebook\n")
    sent = gpuctl(real_pods, "cp", str(data), f"{notebook}:/tmp/")
    assert sent.returncode == 0, sent.stderr
    listed = real_pods.kubectl(
        "exec",
        "lab-0",
        "--",
        "sh",
        "-c",
        "cd /tmp/data && cat notes.txt && wc -c nested/weights.bin",
    )
    assert listed.stdout.split() == ["hello", "notebook", "1048576", "nested/weights.bin"]
    back = tmp_path / "back"
    fetched = gpuctl(real_pods, "cp", f"{notebook}:/tmp/data", str(back))
    assert fetched.returncode == 0, fetched.stderr
    assert (back / "nested" / "weights.bin").read_bytes() == (
        data / "nested" / "weights.bin"
    ).read_bytes()
    assert (back / "notes.txt").read_text() == "hello notebook\n"
    missing = gpuctl(real_pods, "cp", f"{notebook}:/tmp/no-such-file", str(tmp_path / "x"))
    assert missing.returncode == 1
    assert "no-such-file" in missing.stderr


def test_scale_resizes_cpu_and_memory_in_place_and_restarts_for_gpus(
    real_pods: Cluster, notebook: str
) -> None:
    before = _pod(real_pods)
    resized = gpuctl(real_pods, "scale", "notebook", notebook, "--cpu", "1", "--memory", "2Gi")
    assert resized.returncode == 0, resized.stderr

    def resources() -> dict[str, Any]:
        pod = _pod(real_pods)
        status = pod["status"]["containerStatuses"][0]
        return {"uid": pod["metadata"]["uid"], "restarts": status["restartCount"],
                "limits": (status.get("resources") or {}).get("limits")}  # fmt: skip

    wait_for(
        lambda: resources()["limits"] == {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"},
        120,
        1,
        "the resize",
    )
    after = resources()
    assert after["uid"] == before["metadata"]["uid"]
    assert after["restarts"] == 0
    regpu = gpuctl(real_pods, "scale", "notebook", notebook, "--gpu", "2")
    assert regpu.returncode == 0, regpu.stderr
    wait_for(lambda: resources()["uid"] != before["metadata"]["uid"], 180, 1, "a new pod")
    wait_for(lambda: _pod(real_pods)["status"].get("phase") == "Running", 180, 1, "it to run")
    limits = _pod(real_pods)["spec"]["containers"][0]["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == "2"
