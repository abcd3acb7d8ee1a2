"""The sandbox's kubelet fails pods the way a real kubelet (1.33) and containerd do, with their
fields, event reasons and messages: a script's exit code and lines (and `previous` logs after a
restart), a container killed for its memory, a hostPath that is not on the node, a readiness
probe answered with HTTP 500, and env from a missing Secret key."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes.client import ApiException

from tests.sandbox import clients
from tests.support.sandbox import SandboxCluster, wait_for


def _pod(name: str, command: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "main",
        "image": "python:3.12",
        "resources": {"limits": {"memory": "64Mi"}},
        **({"command": command} if command else {}),
        **extra.pop("container", {}),
    }
    return {"metadata": {"name": name}, "spec": {"containers": [container], **extra}}


def _status(sandbox: SandboxCluster, name: str) -> dict[str, Any]:
    pod = clients.core(sandbox).read_namespaced_pod(name, "default")
    status: dict[str, Any] = pod.status.to_dict()
    return status


def _container(sandbox: SandboxCluster, name: str) -> dict[str, Any]:
    statuses = _status(sandbox, name).get("container_statuses") or [{}]
    return dict(statuses[0])


def _events(sandbox: SandboxCluster, name: str, reason: str) -> list[Any]:
    events = clients.core(sandbox).list_namespaced_event("default").items
    return [e for e in events if e.involved_object.name == name and e.reason == reason]


def _logs(sandbox: SandboxCluster, name: str, previous: bool = False) -> str:
    text: str = clients.core(sandbox).read_namespaced_pod_log(name, "default", previous=previous)
    return text


def test_a_script_exits_with_its_code_and_prints_its_lines(sandbox: SandboxCluster) -> None:
    script = "echo loading shards; echo shard 7 is corrupt; exit 3"
    core = clients.core(sandbox)
    core.create_namespaced_pod("default", _pod("once", ["sh", "-c", script], restartPolicy="Never"))
    wait_for(lambda: _status(sandbox, "once")["phase"] == "Failed")
    terminated = _container(sandbox, "once")["state"]["terminated"]
    assert (terminated["exit_code"], terminated["reason"]) == (3, "Error")
    assert _logs(sandbox, "once") == "loading shards\nshard 7 is corrupt\n"
    with pytest.raises(ApiException) as never_restarted:
        _logs(sandbox, "once", previous=True)
    assert never_restarted.value.status == 400
    refusal = json.loads(str(never_restarted.value.body))
    assert refusal["message"] == 'previous terminated container "main" in pod "once" not found'

    core.create_namespaced_pod("default", _pod("loop", ["sh", "-c", script]))
    wait_for(lambda: _container(sandbox, "loop").get("restart_count", 0) >= 1)
    last = _container(sandbox, "loop")["last_state"]["terminated"]
    assert (last["exit_code"], last["reason"]) == (3, "Error")
    assert _logs(sandbox, "loop", previous=True) == "loading shards\nshard 7 is corrupt\n"
    wait_for(lambda: (_container(sandbox, "loop")["state"].get("waiting") or {}).get("reason"))
    assert _events(sandbox, "loop", "BackOff")[0].message.startswith(
        "Back-off restarting failed container main in pod loop_default("
    )


def test_a_memory_hog_is_oom_killed(sandbox: SandboxCluster) -> None:
    hog = "blocks = []\nwhile True: blocks.append(bytearray(16 * 2**20))\n"
    pod = _pod("hog", ["python3", "-c", hog], restartPolicy="Never")
    clients.core(sandbox).create_namespaced_pod("default", pod)
    wait_for(lambda: _status(sandbox, "hog")["phase"] == "Failed")
    terminated = _container(sandbox, "hog")["state"]["terminated"]
    assert (terminated["exit_code"], terminated["reason"]) == (137, "OOMKilled")
    assert _logs(sandbox, "hog") == ""  # it printed nothing before it was killed


def test_a_hostpath_of_type_file_missing_on_the_node_fails_to_mount(
    sandbox: SandboxCluster,
) -> None:
    volume = {"name": "data", "hostPath": {"path": "/datasets/missing.json", "type": "File"}}
    made = {
        "name": "made",
        "hostPath": {"path": "/datasets/missing-dir", "type": "DirectoryOrCreate"},
    }
    pod = _pod("mount", volumes=[volume, made])
    clients.core(sandbox).create_namespaced_pod("default", pod)
    events = wait_for(lambda: _events(sandbox, "mount", "FailedMount"))
    assert [(e.type, e.message) for e in events] == [
        (
            "Warning",
            'MountVolume.SetUp failed for volume "data" : hostPath type check failed: '
            "/datasets/missing.json is not a file",
        )
    ]
    # the kubelet retries and says it again: one event, counted
    wait_for(lambda: (_events(sandbox, "mount", "FailedMount")[0].count or 1) > 1)
    status = _status(sandbox, "mount")
    assert status["phase"] == "Pending"
    assert _container(sandbox, "mount")["state"]["waiting"]["reason"] == "ContainerCreating"


def test_a_readiness_probe_answered_with_500_keeps_the_pod_unready(
    sandbox: SandboxCluster,
) -> None:
    probe = {"httpGet": {"path": "/unhealthy", "port": 8000}, "periodSeconds": 10}
    pod = _pod("sick", container={"readinessProbe": probe})
    clients.core(sandbox).create_namespaced_pod("default", pod)
    wait_for(lambda: sum((e.count or 1) for e in _events(sandbox, "sick", "Unhealthy")) >= 2)
    events = _events(sandbox, "sick", "Unhealthy")
    assert {(e.type, e.message) for e in events} == {
        ("Warning", "Readiness probe failed: HTTP probe failed with statuscode: 500")
    }
    container = _container(sandbox, "sick")
    assert container["ready"] is False and container["state"]["running"] is not None
    ready = next(c for c in _status(sandbox, "sick")["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "False"


def test_a_failing_startup_probe_is_the_one_the_kubelet_names_and_the_container_not_started(
    sandbox: SandboxCluster,
) -> None:
    probe = {"httpGet": {"path": "/unhealthy", "port": 8000}, "periodSeconds": 10}
    container = {"startupProbe": probe, "readinessProbe": probe}
    clients.core(sandbox).create_namespaced_pod("default", _pod("slow", container=container))
    wait_for(lambda: sum((e.count or 1) for e in _events(sandbox, "slow", "Unhealthy")) >= 2)
    assert {(e.type, e.message) for e in _events(sandbox, "slow", "Unhealthy")} == {
        ("Warning", "Startup probe failed: HTTP probe failed with statuscode: 500")
    }
    status = _container(sandbox, "slow")
    assert status["ready"] is False and status["started"] is False


def test_env_from_a_missing_secret_key_is_a_config_error(sandbox: SandboxCluster) -> None:
    ref = {"secretKeyRef": {"name": "db", "key": "password"}}
    pod = _pod("conf", container={"env": [{"name": "PASSWORD", "valueFrom": ref}]})
    core = clients.core(sandbox)
    core.create_namespaced_pod("default", pod)

    def waiting() -> dict[str, Any]:
        return dict((_container(sandbox, "conf").get("state") or {}).get("waiting") or {})

    wait_for(lambda: waiting().get("reason") == "CreateContainerConfigError")
    assert waiting()["message"] == 'secret "db" not found'
    assert _events(sandbox, "conf", "Failed")[0].message == 'Error: secret "db" not found'
    core.create_namespaced_secret("default", {"metadata": {"name": "db"}, "data": {}})
    wait_for(lambda: "couldn't find key" in waiting().get("message", ""))
    assert waiting()["message"] == "couldn't find key password in Secret default/db"
    core.patch_namespaced_secret("db", "default", {"stringData": {"password": "x"}})
    wait_for(lambda: _status(sandbox, "conf")["phase"] == "Running")
