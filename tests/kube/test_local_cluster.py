"""What only a real control plane does: kubectl commands the sandbox does not serve, the users'
own examples on nodes shaped like theirs, and kwok playing the kubelets."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apply.test_scenarios import gpuctl
from tests.conftest import EXAMPLES
from tests.operate.test_notebooks import NAME as NB_NAME
from tests.operate.test_notebooks import NOTEBOOK
from tests.support.sandbox import Cluster

pytestmark = pytest.mark.kube


def _wait(predicate: Any, timeout: float = 60, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
    return value


def test_kubectl_commands_the_sandbox_lacks(local: Cluster) -> None:
    explain = local.kubectl("explain", "job.spec.backoffLimit", namespaced=False).stdout
    assert "FIELD: backoffLimit <integer>" in explain
    made = local.kubectl("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
    assert made.stdout.strip() == "deployment.apps/web created"
    local.kubectl("rollout", "status", "deployment/web", "--timeout=60s", timeout=90)
    local.kubectl("expose", "deployment", "web", "--port=80")
    endpoints = _wait(
        lambda: local.kubectl("get", "endpoints", "web", "-o", "json").stdout.count('"ip"') == 2,
        what="two endpoint addresses",
    )
    assert endpoints
    whoami = local.kubectl("auth", "whoami", "-o", "json", namespaced=False).stdout
    assert json.loads(whoami)["status"]["userInfo"]["username"] == "admin"


def test_drain_evicts_the_pods_of_a_node(local: Cluster) -> None:
    node = f"drain-{local.namespace[-8:]}"
    manifest = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node}},
        # tainted: the other tests' pods (running meanwhile) stay off it
        "spec": {"taints": [{"key": "gpuctl.test/drain", "effect": "NoSchedule"}]},
        "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
    }
    local.kubectl("create", "-f", "-", input=json.dumps(manifest), namespaced=False)
    try:
        local.kubectl("wait", "--for=condition=Ready", f"node/{node}", "--timeout=60s")
        local.kubectl("create", "deployment", "pinned", "--image=nginx:1.27")
        toleration = {"key": "gpuctl.test/drain", "operator": "Exists"}
        pod = {"nodeSelector": {"kubernetes.io/hostname": node}, "tolerations": [toleration]}
        patch = {"spec": {"template": {"spec": pod}}}
        local.kubectl("patch", "deployment", "pinned", "-p", json.dumps(patch))
        local.kubectl("rollout", "status", "deployment/pinned", "--timeout=60s", timeout=90)
        drained = local.kubectl("drain", node, "--timeout=60s", timeout=90, namespaced=False)
        assert f"node/{node} drained" in drained.stdout
        shown = local.kubectl("get", "node", node, "-o", "json", namespaced=False).stdout
        assert json.loads(shown)["spec"]["unschedulable"] is True
    finally:
        local.kubectl("delete", "node", node, "--wait=false", namespaced=False, check=False)


def test_the_users_training_example_runs_on_its_pool_node(local: Cluster) -> None:
    """examples/pool.yaml labels node1 and node2; examples/training.yaml wants an A100-100G of
    training-pool, which node1 is."""
    pool = gpuctl(local, "apply", "-f", str(EXAMPLES / "pool.yaml"))
    assert pool.returncode == 0, pool.stderr
    spec = yaml.safe_load((EXAMPLES / "training.yaml").read_text())
    spec["job"].pop("namespace", None)
    done = gpuctl(local, "create", "-f", "-", stdin=yaml.safe_dump(spec, allow_unicode=True))
    assert done.returncode == 0, done.stderr
    name = spec["job"]["name"]

    def running() -> dict[str, Any] | None:
        out = local.kubectl("get", "pods", "-l", f"job-name={name}", "-o", "json").stdout
        items = json.loads(out)["items"]
        return next((p for p in items if p["status"].get("phase") == "Running"), None)

    pod = _wait(running, what="the training pod to run")
    assert pod["spec"]["nodeName"] == "node1"
    listed = gpuctl(local, "get", "jobs")
    assert name in listed.stdout and "training" in listed.stdout


def test_logs_come_from_kwok(local: Cluster) -> None:
    local.kubectl("run", "talker", "--image=busybox:1.36", "--restart=Never")
    local.kubectl("wait", "--for=condition=Ready", "pod/talker", "--timeout=60s")
    logs = local.kubectl("logs", "talker").stdout
    assert "step 1" in logs


def test_exec_runs_through_kwok(local: Cluster) -> None:
    """kwok runs an exec'd command on this machine (tests/kube/controlplane.py)."""
    local.kubectl("run", "shell", "--image=busybox:1.36", "--restart=Never")
    local.kubectl("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")
    said = local.kubectl("exec", "shell", "--", "sh", "-c", "echo hello; echo oops >&2")
    assert said.stdout == "hello\n"


def test_cp_goes_through_the_real_exec_stream(local: Cluster, tmp_path: Path) -> None:
    """`gpuctl cp` both ways over the official client's exec WebSocket, through the API server
    to kwok, whose exec runs tar on this machine: the notebook's path is a local directory."""
    made = gpuctl(local, "create", "-f", "-", "--wait", "--timeout", "90s", stdin=NOTEBOOK)
    assert made.returncode == 0, made.stderr
    source = tmp_path / "project"
    (source / "data").mkdir(parents=True)
    (source / "train.py").write_text("print('hi')\n")
    payload = bytes(range(256)) * 4096  # 1 MiB: several WebSocket frames each way
    (source / "data" / "x.bin").write_bytes(payload)
    pod_root = tmp_path / "pod"
    pod_root.mkdir()

    sent = gpuctl(local, "cp", str(source), f"{NB_NAME}:{pod_root}/code")
    assert sent.returncode == 0, sent.stderr
    assert (pod_root / "code" / "train.py").read_text() == "print('hi')\n"
    assert (pod_root / "code" / "data" / "x.bin").read_bytes() == payload

    back = tmp_path / "back"
    fetched = gpuctl(local, "cp", f"{NB_NAME}:{pod_root}/code", str(back))
    assert fetched.returncode == 0, fetched.stderr
    assert (back / "data" / "x.bin").read_bytes() == payload

    missing = gpuctl(local, "cp", f"{NB_NAME}:{pod_root}/missing", str(tmp_path / "x"))
    assert missing.returncode == 1
    assert "No such file" in missing.stderr and len(missing.stderr.splitlines()) == 1
    assert not (tmp_path / "x").exists()
