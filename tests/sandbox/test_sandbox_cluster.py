"""The simulated cluster: controllers, scheduler, pod lifecycle, logs, quota, deletion."""

from __future__ import annotations

import itertools
import json
import math
import re
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client import ApiException

from gpuctl.sandbox import SandboxConfig
from gpuctl.sandbox.controllers.backoff import BackOff, go_duration
from tests.sandbox import clients
from tests.support.sandbox import SandboxCluster, running_sandbox, wait_for


def _pod_spec(image: str = "pytorch/pytorch:2.1", gpus: int = 0, **extra: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": image}
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return {"containers": [container], **extra}


def _job(
    name: str, gpus: int = 0, image: str = "pytorch/pytorch:2.1", **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": {"spec": _pod_spec(image, gpus, restartPolicy="Never")}, **spec},
    }


def _events(cluster: SandboxCluster, reason: str) -> list[Any]:
    return [
        e
        for e in clients.core(cluster).list_namespaced_event("default").items
        if e.reason == reason
    ]


def _condition(obj: Any, type_: str) -> str | None:
    for cond in obj.status.conditions or []:
        if cond.type == type_:
            return str(cond.status)
    return None


def test_default_nodes(sandbox: SandboxCluster) -> None:
    nodes = {n.metadata.name: n for n in clients.core(sandbox).list_node().items}
    assert sorted(nodes) == ["cpu-0", "gpu-a100-0", "gpu-a100-1", "gpu-t4-0"]
    a100 = clients.core(sandbox).list_node(label_selector="runwhere.ai/gpu-type=A100-80G").items
    assert [n.status.capacity["nvidia.com/gpu"] for n in a100] == ["8", "8"]
    t4 = nodes["gpu-t4-0"].status.allocatable
    assert t4["nvidia.com/gpu"] == "4" and "aliyun.com/gpu-mem" in t4
    assert "nvidia.com/gpu" not in nodes["cpu-0"].status.capacity


def test_job_runs_to_completion(sandbox: SandboxCluster) -> None:
    batch = clients.batch(sandbox)
    batch.create_namespaced_job("default", _job("train", gpus=8, completions=2, parallelism=2))
    job = wait_for(
        lambda: (j := batch.read_namespaced_job("train", "default")).status.succeeded == 2 and j,
        what="job to succeed",
    )
    assert _condition(job, "Complete") == "True"
    assert _condition(job, "SuccessCriteriaMet") == "True"
    assert job.status.completion_time and job.status.start_time
    pods = (
        clients.core(sandbox)
        .list_namespaced_pod("default", label_selector="batch.kubernetes.io/job-name=train")
        .items
    )
    assert sorted(p.status.phase for p in pods) == ["Succeeded", "Succeeded"]
    # 8 GPUs each: the two A100 nodes
    assert sorted(p.spec.node_name for p in pods) == ["gpu-a100-0", "gpu-a100-1"]
    assert pods[0].metadata.owner_references[0].kind == "Job"


def test_indexed_job_gets_completion_indexes(sandbox: SandboxCluster) -> None:
    batch = clients.batch(sandbox)
    batch.create_namespaced_job(
        "default", _job("idx", completions=3, parallelism=3, completionMode="Indexed")
    )
    job = wait_for(
        lambda: (j := batch.read_namespaced_job("idx", "default")).status.succeeded == 3 and j
    )
    assert job.status.completed_indexes == "0-2"
    pods = clients.core(sandbox).list_namespaced_pod("default").items
    indexes = sorted(
        p.metadata.annotations["batch.kubernetes.io/job-completion-index"] for p in pods
    )
    assert indexes == ["0", "1", "2"]
    assert sorted(p.spec.hostname for p in pods) == ["idx-0", "idx-1", "idx-2"]


def test_suspended_job_creates_no_pods(sandbox: SandboxCluster) -> None:
    batch = clients.batch(sandbox)
    batch.create_namespaced_job("default", _job("later", suspend=True))
    wait_for(
        lambda: _condition(batch.read_namespaced_job("later", "default"), "Suspended") == "True"
    )
    assert clients.core(sandbox).list_namespaced_pod("default").items == []
    batch.patch_namespaced_job("later", "default", {"spec": {"suspend": False}})
    wait_for(
        lambda: _condition(batch.read_namespaced_job("later", "default"), "Complete") == "True"
    )


def test_crashing_job_hits_backoff_limit(sandbox: SandboxCluster) -> None:
    batch = clients.batch(sandbox)
    batch.create_namespaced_job("default", _job("bad", image="example/crash:1", backoffLimit=1))
    wait_for(lambda: _condition(batch.read_namespaced_job("bad", "default"), "Failed") == "True")
    job = batch.read_namespaced_job("bad", "default")
    failed = next(c for c in job.status.conditions if c.type == "Failed")
    assert failed.reason == "BackoffLimitExceeded"
    assert failed.message == "Job has reached the specified backoff limit"


def test_unschedulable_pod_gets_failed_scheduling_event(sandbox: SandboxCluster) -> None:
    clients.batch(sandbox).create_namespaced_job("default", _job("huge", gpus=16))
    event = wait_for(lambda: _events(sandbox, "FailedScheduling"), what="FailedScheduling")[0]
    assert event.type == "Warning"
    assert event.message.startswith("0/4 nodes are available: 4 Insufficient nvidia.com/gpu.")
    assert (
        "preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod."
        in event.message
    )
    pod = clients.core(sandbox).list_namespaced_pod("default").items[0]
    assert pod.status.phase == "Pending"
    scheduled = next(c for c in pod.status.conditions if c.type == "PodScheduled")
    assert (scheduled.status, scheduled.reason) == ("False", "Unschedulable")


def test_scheduler_honours_selector_and_affinity(sandbox: SandboxCluster) -> None:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "runwhere.ai/gpu-type", "operator": "In", "values": ["T4-16G"]}
                        ]
                    },
                    {
                        "matchExpressions": [
                            {"key": "g8s.host/gpu-type", "operator": "In", "values": ["T4-16G"]}
                        ]
                    },
                ]
            }
        }
    }
    job = _job("t4", gpus=1)
    job["spec"]["template"]["spec"]["affinity"] = affinity
    clients.batch(sandbox).create_namespaced_job("default", job)
    pod = wait_for(
        lambda: [
            p
            for p in clients.core(sandbox).list_namespaced_pod("default").items
            if p.spec.node_name
        ]
    )[0]
    assert pod.spec.node_name == "gpu-t4-0"

    pool = _job("pooled", gpus=1)
    pool["spec"]["template"]["spec"]["nodeSelector"] = {"runwhere.ai/pool": "research"}
    clients.batch(sandbox).create_namespaced_job("default", pool)
    event = wait_for(lambda: _events(sandbox, "FailedScheduling"))[0]
    assert event.message.startswith(
        "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector. preemption: "
        "0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
    clients.core(sandbox).patch_node(
        "gpu-a100-1", {"metadata": {"labels": {"runwhere.ai/pool": "research"}}}
    )
    wait_for(
        lambda: (
            clients.batch(sandbox).read_namespaced_job("pooled", "default").status.succeeded == 1
        )
    )


def test_image_pull_errors(sandbox: SandboxCluster) -> None:
    clients.core(sandbox).create_namespaced_pod(
        "default",
        {"metadata": {"name": "p"}, "spec": _pod_spec("registry.example/app:does-not-exist")},
    )

    def reason() -> str | None:
        statuses = (
            clients.core(sandbox).read_namespaced_pod("p", "default").status.container_statuses
            or []
        )
        waiting = statuses[0].state.waiting if statuses else None
        return waiting.reason if waiting else None

    wait_for(lambda: reason() == "ErrImagePull")
    wait_for(lambda: reason() == "ImagePullBackOff")
    assert clients.core(sandbox).read_namespaced_pod("p", "default").status.phase == "Pending"


def test_deployment_rolls_out_replicasets_and_pods(sandbox: SandboxCluster) -> None:
    apps = clients.apps(sandbox)
    apps.create_namespaced_deployment(
        "default",
        {
            "metadata": {"name": "web"},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": _pod_spec("nginx:1.27"),
                },
            },
        },
    )
    dep = wait_for(
        lambda: (
            (d := apps.read_namespaced_deployment("web", "default")).status.ready_replicas == 2
            and d
        )
    )
    assert dep.status.available_replicas == 2 and dep.status.updated_replicas == 2
    assert _condition(dep, "Available") == "True"
    progressing = next(c for c in dep.status.conditions if c.type == "Progressing")
    assert progressing.reason == "NewReplicaSetAvailable"
    rs = apps.list_namespaced_replica_set("default").items
    assert len(rs) == 1 and rs[0].metadata.name.startswith("web-")
    pods = clients.core(sandbox).list_namespaced_pod("default", label_selector="app=web").items
    assert all(p.metadata.name.startswith(rs[0].metadata.name + "-") for p in pods)
    apps.patch_namespaced_deployment(
        "web",
        "default",
        {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]}}}},
    )
    wait_for(lambda: len(apps.list_namespaced_replica_set("default").items) == 2)
    wait_for(
        lambda: (
            sorted(
                p.spec.containers[0].image
                for p in clients.core(sandbox).list_namespaced_pod("default").items
                if not p.metadata.deletion_timestamp
            )
            == ["nginx:1.28", "nginx:1.28"]
        ),
        what="rollout",
    )
    apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 0}})
    wait_for(lambda: clients.core(sandbox).list_namespaced_pod("default").items == [])


def test_statefulset_pods_are_ordinal(sandbox: SandboxCluster) -> None:
    apps = clients.apps(sandbox)
    apps.create_namespaced_stateful_set(
        "default",
        {
            "metadata": {"name": "db"},
            "spec": {
                "replicas": 3,
                "serviceName": "db",
                "selector": {"matchLabels": {"app": "db"}},
                "template": {
                    "metadata": {"labels": {"app": "db"}},
                    "spec": _pod_spec("postgres:16"),
                },
            },
        },
    )
    sts = wait_for(
        lambda: (
            (s := apps.read_namespaced_stateful_set("db", "default")).status.ready_replicas == 3
            and s
        )
    )
    assert sts.status.current_revision == sts.status.update_revision
    names = sorted(
        p.metadata.name for p in clients.core(sandbox).list_namespaced_pod("default").items
    )
    assert names == ["db-0", "db-1", "db-2"]
    apps.patch_namespaced_stateful_set_scale("db", "default", {"spec": {"replicas": 1}})
    wait_for(
        lambda: (
            sorted(
                p.metadata.name for p in clients.core(sandbox).list_namespaced_pod("default").items
            )
            == ["db-0"]
        )
    )


def test_services_get_cluster_ips_and_node_ports(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    svc = core.create_namespaced_service(
        "default",
        {
            "metadata": {"name": "a"},
            "spec": {"type": "NodePort", "selector": {"app": "a"}, "ports": [{"port": 80}]},
        },
    )
    assert (
        svc.spec.cluster_ip.startswith("10.96.") and 30000 <= svc.spec.ports[0].node_port <= 32767
    )
    assert svc.spec.ports[0].target_port == 80
    asked = core.create_namespaced_service(
        "default",
        {
            "metadata": {"name": "b"},
            "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]},
        },
    )
    assert asked.spec.ports[0].node_port == 30080
    with pytest.raises(ApiException) as err:
        core.create_namespaced_service(
            "default",
            {
                "metadata": {"name": "c"},
                "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]},
            },
        )
    assert (
        err.value.status == 422
        and "provided port is already allocated" in json.loads(err.value.body or "{}")["message"]
    )
    headless = core.create_namespaced_service(
        "default",
        {"metadata": {"name": "h"}, "spec": {"clusterIP": "None", "ports": [{"port": 5432}]}},
    )
    assert headless.spec.cluster_ip == "None"
    # a replace that leaves clusterIP and nodePort out keeps them, as the real server does
    body = core.read_namespaced_service("a", "default").to_dict()
    replaced = core.replace_namespaced_service(
        "a",
        "default",
        {
            "metadata": {"name": "a", "resourceVersion": body["metadata"]["resource_version"]},
            "spec": {"type": "NodePort", "ports": [{"port": 80}]},
        },
    )
    assert replaced.spec.cluster_ip == svc.spec.cluster_ip
    assert replaced.spec.ports[0].node_port == svc.spec.ports[0].node_port


def test_quota_admission_and_status(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_resource_quota(
        "default",
        {
            "metadata": {"name": "q"},
            "spec": {"hard": {"requests.nvidia.com/gpu": "4", "pods": "10"}},
        },
    )
    core.create_namespaced_pod("default", {"metadata": {"name": "a"}, "spec": _pod_spec(gpus=2)})
    with pytest.raises(ApiException) as err:
        core.create_namespaced_pod(
            "default", {"metadata": {"name": "b"}, "spec": _pod_spec(gpus=4)}
        )
    status = json.loads(err.value.body or "{}")
    assert err.value.status == 403 and status["reason"] == "Forbidden"
    assert status["message"] == (
        'pods "b" is forbidden: exceeded quota: q, requested: requests.nvidia.com/gpu=4, '
        "used: requests.nvidia.com/gpu=2, limited: requests.nvidia.com/gpu=4"
    )
    expected = {"requests.nvidia.com/gpu": "2", "pods": "1"}

    def used() -> Any:
        status = core.read_namespaced_resource_quota("q", "default").status
        return status.used if status else None

    wait_for(lambda: used() == expected, what="quota status")
    # a job's pods are refused the same way; the job controller reports it in an event
    clients.batch(sandbox).create_namespaced_job("default", _job("big", gpus=4))
    event = wait_for(lambda: _events(sandbox, "FailedCreate"))[0]
    assert event.message.startswith('Error creating: pods "big-')
    assert "exceeded quota: q" in event.message


def test_logs_and_follow(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_pod("default", {"metadata": {"name": "p"}, "spec": _pod_spec()})
    wait_for(lambda: core.read_namespaced_pod("p", "default").status.phase == "Running")
    wait_for(lambda: len(core.read_namespaced_pod_log("p", "default").splitlines()) >= 3)
    text = core.read_namespaced_pod_log("p", "default")
    assert text.splitlines()[:2] == ["p/main: started", "p/main: step 1"]
    assert core.read_namespaced_pod_log("p", "default", tail_lines=1).count("\n") == 1
    stamped = core.read_namespaced_pod_log("p", "default", timestamps=True).splitlines()[0]
    assert stamped.endswith(" p/main: started") and stamped[:4].isdigit()
    # follow streams new lines while the pod runs
    with urllib.request.urlopen(
        f"{sandbox.url}/api/v1/namespaces/default/pods/p/log?follow=true", timeout=5
    ) as r:
        first = [r.readline() for _ in range(5)]
    assert first[0] == b"p/main: started\n" and first[4].startswith(b"p/main: step")


def test_deletion_semantics(sandbox: SandboxCluster) -> None:
    core, batch = clients.core(sandbox), clients.batch(sandbox)
    core.create_namespaced_pod("default", {"metadata": {"name": "p"}, "spec": _pod_spec()})
    wait_for(lambda: core.read_namespaced_pod("p", "default").status.phase == "Running")
    deleted = core.delete_namespaced_pod("p", "default")
    assert deleted.metadata.deletion_timestamp is not None  # graceful: still there for a moment
    assert core.read_namespaced_pod("p", "default").metadata.deletion_grace_period_seconds == 30
    wait_for(lambda: core.list_namespaced_pod("default").items == [])

    # background (kubectl's default): the job goes at once, its pods follow
    batch.create_namespaced_job("default", _job("bg", completions=2))
    wait_for(lambda: len(core.list_namespaced_pod("default").items) == 1)
    batch.delete_namespaced_job("bg", "default", propagation_policy="Background")
    wait_for(lambda: core.list_namespaced_pod("default").items == [])

    # the API's own default for batch/v1 Jobs orphans the pods
    batch.create_namespaced_job("default", _job("orphan"))
    wait_for(lambda: core.list_namespaced_pod("default").items)
    batch.delete_namespaced_job("orphan", "default")
    pod = core.list_namespaced_pod("default").items[0]
    assert pod.metadata.owner_references is None

    # foreground: the job waits with a finalizer until its pods are gone
    core.delete_collection_namespaced_pod("default", grace_period_seconds=0)
    batch.create_namespaced_job("default", _job("fg", completions=1))
    wait_for(lambda: core.list_namespaced_pod("default").items)
    batch.delete_namespaced_job("fg", "default", propagation_policy="Foreground")
    job = batch.read_namespaced_job("fg", "default")
    assert job.metadata.finalizers == ["foregroundDeletion"] and job.metadata.deletion_timestamp
    wait_for(lambda: not batch.list_namespaced_job("default").items, what="job gone")
    assert core.list_namespaced_pod("default").items == []
    # finalizers hold an object until they are removed
    core.create_namespaced_config_map(
        "default", {"metadata": {"name": "f", "finalizers": ["example.com/keep"]}}
    )
    core.delete_namespaced_config_map("f", "default")
    assert core.read_namespaced_config_map("f", "default").metadata.deletion_timestamp
    core.patch_namespaced_config_map("f", "default", {"metadata": {"finalizers": None}})
    with pytest.raises(ApiException):
        core.read_namespaced_config_map("f", "default")


def test_hpa_enforces_bounds_without_metrics(sandbox: SandboxCluster) -> None:
    apps = clients.apps(sandbox)
    apps.create_namespaced_deployment(
        "default",
        {
            "metadata": {"name": "chat"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "chat"}},
                "template": {
                    "metadata": {"labels": {"app": "chat"}},
                    "spec": _pod_spec("vllm/vllm-openai:v0.6.0"),
                },
            },
        },
    )
    autoscaling: Any = client.AutoscalingV2Api(sandbox.api_client())
    autoscaling.create_namespaced_horizontal_pod_autoscaler(
        "default",
        {
            "metadata": {"name": "chat"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "chat"},
                "minReplicas": 2,
                "maxReplicas": 4,
                "metrics": [
                    {
                        "type": "Pods",
                        "pods": {
                            "metric": {"name": "DCGM_FI_DEV_GPU_UTIL"},
                            "target": {"type": "AverageValue", "averageValue": "70"},
                        },
                    }
                ],
            },
        },
    )
    wait_for(lambda: apps.read_namespaced_deployment("chat", "default").spec.replicas == 2)
    event = wait_for(lambda: _events(sandbox, "SuccessfulRescale"))[0]
    assert event.message == "New size: 2; reason: Current number of replicas below Spec.MinReplicas"
    hpa: Any = client.AutoscalingV2Api(
        sandbox.api_client()
    ).read_namespaced_horizontal_pod_autoscaler("chat", "default")
    active = next(c for c in hpa.status.conditions if c.type == "ScalingActive")
    assert (active.status, active.reason) == ("False", "FailedGetPodsMetric")


def test_priority_classes_are_admitted(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    with pytest.raises(ApiException) as err:
        core.create_namespaced_pod(
            "default", {"metadata": {"name": "p"}, "spec": _pod_spec(priorityClassName="urgent")}
        )
    assert err.value.status == 403
    assert json.loads(err.value.body or "{}")["message"] == (
        'pods "p" is forbidden: no PriorityClass with name urgent was found'
    )
    scheduling: Any = client.SchedulingV1Api(sandbox.api_client())
    scheduling.create_priority_class({"metadata": {"name": "urgent"}, "value": 1000})
    pod = core.create_namespaced_pod(
        "default", {"metadata": {"name": "p"}, "spec": _pod_spec(priorityClassName="urgent")}
    )
    assert pod.spec.priority == 1000


def test_abandoned_watches_end_on_the_server(sandbox: SandboxCluster) -> None:
    import socket

    server = sandbox.sandbox
    connections = []
    for _ in range(3):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"GET /api/v1/pods?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(15).startswith(b"HTTP/1.1 200")
        connections.append(sock)
    wait_for(lambda: server.open_streams == 3, what="three watches")
    for sock in connections:
        sock.close()
    wait_for(lambda: server.open_streams == 0, timeout=3, what="the server to notice")


def test_crashing_container_backs_off(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_pod(
        "default", {"metadata": {"name": "c"}, "spec": _pod_spec("example/crash:2")}
    )

    def status() -> Any:
        statuses = core.read_namespaced_pod("c", "default").status.container_statuses or []
        return statuses[0] if statuses else None

    wait_for(lambda: (s := status()) is not None and s.restart_count >= 2, what="restarts")
    current = status()
    assert current.state.waiting is None or current.state.waiting.reason == "CrashLoopBackOff"
    assert current.last_state.terminated.exit_code == 1
    wait_for(lambda: _events(sandbox, "BackOff"))
    assert core.read_namespaced_pod("c", "default").status.phase == "Running"


def test_kubectl_extras_work(sandbox: SandboxCluster) -> None:
    assert sandbox.kubectl("auth", "can-i", "create", "jobs").stdout.strip() == "yes"
    lease = sandbox.kubectl("describe", "node", "gpu-a100-0", namespaced=False).stdout
    assert "HolderIdentity:  gpu-a100-0" in lease and "nvidia.com/gpu" in lease
    refused = sandbox.kubectl("create", "namespace", "x", check=False, namespaced=False)
    # kubectl's generators send protobuf, which the sandbox does not speak (apply -f works)
    assert refused.returncode != 0 and "UnsupportedMediaType" in refused.stderr


def test_server_side_apply_removes_what_it_no_longer_applies(sandbox: SandboxCluster) -> None:
    def manifest(labels: dict[str, str], env: list[dict[str, str]]) -> str:
        import yaml

        job = _job("ssa")
        job["metadata"]["labels"] = labels
        job["spec"]["template"]["spec"]["containers"][0]["env"] = env
        path = sandbox.workdir / "ssa.yaml"
        path.write_text(yaml.safe_dump(job))
        return str(path)

    first = manifest({"a": "1", "b": "2"}, [{"name": "X", "value": "1"}])
    out = sandbox.kubectl("apply", "--server-side", "-f", first).stdout
    assert out.strip() == "job.batch/ssa serverside-applied"
    sandbox.kubectl("label", "job", "ssa", "other=kept")
    second = manifest({"a": "1"}, [{"name": "X", "value": "1"}])
    sandbox.kubectl("apply", "--server-side", "-f", second)
    labels = clients.batch(sandbox).read_namespaced_job("ssa", "default").metadata.labels
    assert labels == {"a": "1", "other": "kept"}


def test_rollout_history_and_undo(sandbox: SandboxCluster) -> None:
    import yaml

    path = sandbox.workdir / "web.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web"},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": _pod_spec("nginx:1.27"),
                    },
                },
            }
        )
    )
    sandbox.kubectl("apply", "-f", str(path))
    sandbox.kubectl("rollout", "status", "deployment/web", "--timeout=20s", timeout=30)
    sandbox.kubectl("set", "image", "deployment/web", "main=nginx:1.28")
    sandbox.kubectl("rollout", "status", "deployment/web", "--timeout=20s", timeout=30)
    first = {
        rs.metadata.name
        for rs in clients.apps(sandbox).list_namespaced_replica_set("default").items
    }
    assert (
        sandbox.kubectl("rollout", "undo", "deployment/web").stdout.strip()
        == "deployment.apps/web rolled back"
    )
    sandbox.kubectl("rollout", "status", "deployment/web", "--timeout=20s", timeout=30)
    sets = clients.apps(sandbox).list_namespaced_replica_set("default").items
    assert {rs.metadata.name for rs in sets} == first  # the old ReplicaSet came back
    live = next(rs for rs in sets if rs.spec.replicas == 2)
    assert live.spec.template.spec.containers[0].image == "nginx:1.27"
    assert live.metadata.annotations["deployment.kubernetes.io/revision"] == "3"
    dep = clients.apps(sandbox).read_namespaced_deployment("web", "default")
    assert dep.metadata.annotations["deployment.kubernetes.io/revision"] == "3"


def test_settle_waits_for_the_controllers(sandbox: SandboxCluster) -> None:
    apps = clients.apps(sandbox)
    apps.create_namespaced_deployment(
        "default",
        {
            "metadata": {"name": "calm"},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "calm"}},
                "template": {
                    "metadata": {"labels": {"app": "calm"}},
                    "spec": _pod_spec("nginx:1.27"),
                },
            },
        },
    )
    assert sandbox.settle()
    dep = apps.read_namespaced_deployment("calm", "default")
    assert dep.status.ready_replicas == 3
    # quiet means quiet: nothing changes the object any more
    rv = dep.metadata.resource_version
    assert sandbox.settle()
    assert apps.read_namespaced_deployment("calm", "default").metadata.resource_version == rv
    clients.core(sandbox).create_namespaced_pod(
        "default", {"metadata": {"name": "loop"}, "spec": _pod_spec("x/crash:1")}
    )
    assert not sandbox.settle(timeout=0.5)  # a crash loop never settles


def _cpu_job(name: str, cpu: str) -> dict[str, Any]:
    job = _job(name, image="python:3.12")
    job["spec"]["template"]["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": cpu},
        "limits": {"cpu": cpu},
    }
    return job


def test_fractional_cpu_quota_refusal_keeps_the_cluster_running(
    make_sandbox: Any,
) -> None:
    # long-running job pods so that the first job's 7.5 CPU stay counted against the quota
    cluster = make_sandbox(SandboxConfig.fast(job_run_seconds=30))
    core, batch = clients.core(cluster), clients.batch(cluster)
    core.create_namespaced_resource_quota(
        "default", {"metadata": {"name": "cpu"}, "spec": {"hard": {"limits.cpu": "10"}}}
    )
    batch.create_namespaced_job("default", _cpu_job("first", "7.5"))
    wait_for(
        lambda: [p.status.phase for p in core.list_namespaced_pod("default").items] == ["Running"],
        what="the first job's pod to run",
    )
    batch.create_namespaced_job("default", _cpu_job("second", "4"))
    event = wait_for(lambda: _events(cluster, "FailedCreate"), what="FailedCreate")[0]
    assert event.message.startswith('Error creating: pods "second-')
    assert event.message.endswith(
        '" is forbidden: exceeded quota: cpu, requested: limits.cpu=4, '
        "used: limits.cpu=7500m, limited: limits.cpu=10"
    )
    quota = wait_for(
        lambda: core.read_namespaced_resource_quota("cpu", "default").status, what="quota status"
    )
    assert quota.used == {"limits.cpu": "7500m"}
    # the refusal froze nothing: a pod elsewhere is still scheduled and started
    core.create_namespace({"metadata": {"name": "other"}})
    core.create_namespaced_pod("other", {"metadata": {"name": "p"}, "spec": _pod_spec()})
    wait_for(lambda: core.read_namespaced_pod("p", "other").status.phase == "Running")
    assert cluster.sandbox.controller_errors() == []


def test_quota_refusal_names_every_exceeded_resource(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_resource_quota(
        "default",
        {"metadata": {"name": "q"}, "spec": {"hard": {"requests.cpu": "10", "limits.cpu": "10"}}},
    )
    spec = _pod_spec()
    spec["containers"][0]["resources"] = {"requests": {"cpu": "7.5"}, "limits": {"cpu": "7.5"}}
    core.create_namespaced_pod("default", {"metadata": {"name": "a"}, "spec": spec})
    spec["containers"][0]["resources"] = {"requests": {"cpu": "4"}, "limits": {"cpu": "4"}}
    with pytest.raises(ApiException) as err:
        core.create_namespaced_pod("default", {"metadata": {"name": "b"}, "spec": spec})
    assert json.loads(err.value.body or "{}")["message"] == (
        'pods "b" is forbidden: exceeded quota: q, requested: limits.cpu=4,requests.cpu=4, '
        "used: limits.cpu=7500m,requests.cpu=7500m, limited: limits.cpu=10,requests.cpu=10"
    )


def _break(cluster: SandboxCluster, controller: str) -> None:
    """Make one simulated controller raise on every pass, as a bug in it would."""

    def broken(now: float) -> None:
        raise RuntimeError(f"{controller} is broken")

    assert controller in cluster.sandbox.controllers.passes
    cluster.sandbox.controllers.passes[controller] = broken


def test_a_raising_controller_is_recorded_and_the_others_keep_running(tmp_path: Path) -> None:
    # the fixture's teardown fails the test
    with pytest.raises(AssertionError) as failure, running_sandbox(tmp_path) as cluster:
        _break(cluster, "resourcequota-controller")
        core = clients.core(cluster)
        core.create_namespaced_pod("default", {"metadata": {"name": "p"}, "spec": _pod_spec()})
        wait_for(lambda: core.read_namespaced_pod("p", "default").status.phase == "Running")
        [error] = cluster.sandbox.controller_errors()
        assert (error.controller, error.error) == (
            "resourcequota-controller",
            "RuntimeError: resourcequota-controller is broken",
        )
        assert error.count >= 1 and "RuntimeError" in error.traceback
        with urllib.request.urlopen(f"{cluster.url}/sandbox/errors", timeout=5) as r:
            [reported] = json.loads(r.read())["controllerErrors"]
        assert reported["controller"] == "resourcequota-controller"
        assert reported["error"] == "RuntimeError: resourcequota-controller is broken"
    assert "resourcequota-controller raised RuntimeError: resourcequota-controller is broken" in (
        str(failure.value)
    )


def test_a_healthy_sandbox_passes_its_teardown(tmp_path: Path) -> None:
    with running_sandbox(tmp_path) as cluster:
        clients.batch(cluster).create_namespaced_job("default", _job("fine"))
        assert cluster.settle()
        assert cluster.sandbox.controller_errors() == []


def _pod_history(cluster: SandboxCluster, name: str) -> list[dict[str, Any]]:
    """Every version of pod `name` the store recorded, oldest first."""
    store = cluster.sandbox.store
    with store.lock:
        events = store.events_after(0)
    return [e.obj for e in events if e.key == ("", "pods") and e.obj["metadata"]["name"] == name]


def test_crash_loop_back_off_doubles_like_the_kubelet(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_pod(
        "default", {"metadata": {"name": "c"}, "spec": _pod_spec("example/crash:2")}
    )

    def restarts() -> int:
        statuses = core.read_namespaced_pod("c", "default").status.container_statuses or []
        return int(statuses[0].restart_count) if statuses else 0

    wait_for(lambda: restarts() >= 4, what="four restarts")
    uid = core.read_namespaced_pod("c", "default").metadata.uid
    statuses = [
        p["status"]["containerStatuses"][0]
        for p in _pod_history(sandbox, "c")
        if p.get("status", {}).get("containerStatuses")
    ]
    # the first exit restarts at once; each later one waits 10 s, 20 s, 40 s, … first
    waiting = [
        (s["restartCount"], s["state"]["waiting"]["message"])
        for s in statuses
        if s["state"].get("waiting", {}).get("reason") == "CrashLoopBackOff"
    ]
    pod = f"c_default({uid})"
    assert waiting[:3] == [
        (1, f"back-off 10s restarting failed container=main pod={pod}"),
        (2, f"back-off 20s restarting failed container=main pod={pod}"),
        (3, f"back-off 40s restarting failed container=main pod={pod}"),
    ]
    # restartCount goes up by one per restart, each time the container runs again
    running = [s["restartCount"] for s in statuses if "running" in s["state"]]
    assert sorted(set(running))[:5] == [0, 1, 2, 3, 4]
    assert all(b - a in (0, 1) for a, b in itertools.pairwise(running))
    restarted = next(s for s in statuses if s["restartCount"] == 1)
    assert restarted["lastState"]["terminated"]["exitCode"] == 1
    assert restarted["lastState"]["terminated"]["reason"] == "Error"
    messages = {e.message for e in _events(sandbox, "BackOff")}
    assert f"Back-off restarting failed container main in pod {pod}" in messages


def test_back_off_durations_and_reset() -> None:
    back_off = BackOff()  # real seconds
    seen = []
    now = 0.0
    back_off.next("c", now, now)  # the first restart: at once
    for _ in range(7):
        seen.append(go_duration(back_off.seconds("c")))
        now += 30  # exits again after 30 s: still within the back-off window since then?
        assert back_off.in_back_off_since("c", now, now)
        now += back_off.wait("c")
        assert not back_off.in_back_off_since("c", now - back_off.wait("c"), now)
        back_off.next("c", now - back_off.wait("c"), now)
    assert seen == ["10s", "20s", "40s", "1m20s", "2m40s", "5m0s", "5m0s"]
    # ten minutes of running fine since the last restart: the back-off starts over
    exited = now + 601
    assert not back_off.in_back_off_since("c", exited, exited)
    back_off.next("c", exited, exited)
    assert go_duration(back_off.seconds("c")) == "10s"


def test_sandbox_up_uses_the_kubelets_real_back_off() -> None:
    assert SandboxConfig().backoff_time_scale == 1.0
    assert 0 < SandboxConfig.fast().backoff_time_scale < 0.01


def test_deleting_a_running_pod_of_a_job_without_retries_fails_the_job(
    make_sandbox: Any,
) -> None:
    cluster = make_sandbox(SandboxConfig.fast(job_run_seconds=30))
    core, batch = clients.core(cluster), clients.batch(cluster)
    batch.create_namespaced_job("default", _job("once", backoffLimit=0))
    pod = wait_for(
        lambda: [
            p for p in core.list_namespaced_pod("default").items if p.status.phase == "Running"
        ],
        what="the job's pod to run",
    )[0]
    core.delete_namespaced_pod(pod.metadata.name, "default")
    job = wait_for(
        lambda: (j := batch.read_namespaced_job("once", "default")).status.failed and j,
        what="the job to count the deleted pod",
    )
    failed = next(c for c in job.status.conditions if c.type == "Failed")
    assert (failed.status, failed.reason) == ("True", "BackoffLimitExceeded")
    assert failed.message == "Job has reached the specified backoff limit"
    assert job.status.failed == 1 and not job.status.active
    wait_for(lambda: not core.list_namespaced_pod("default").items, what="the pod to go")
    assert cluster.settle()
    job = batch.read_namespaced_job("once", "default")
    assert job.status.failed == 1  # still counted once the pod is gone


def test_a_deleted_running_job_pod_counts_as_failed_and_is_replaced(make_sandbox: Any) -> None:
    cluster = make_sandbox(SandboxConfig.fast(job_run_seconds=30))
    core, batch = clients.core(cluster), clients.batch(cluster)
    batch.create_namespaced_job("default", _job("retry", backoffLimit=2))
    first = wait_for(
        lambda: [
            p for p in core.list_namespaced_pod("default").items if p.status.phase == "Running"
        ],
        what="the job's pod to run",
    )[0]
    core.delete_namespaced_pod(first.metadata.name, "default")
    replacement = wait_for(
        lambda: [
            p
            for p in core.list_namespaced_pod("default").items
            if p.metadata.name != first.metadata.name and p.status.phase == "Running"
        ],
        what="a replacement pod",
    )[0]
    assert replacement.metadata.name != first.metadata.name
    wait_for(lambda: len(core.list_namespaced_pod("default").items) == 1, what="the old pod to go")
    job = batch.read_namespaced_job("retry", "default")
    assert job.status.failed == 1 and job.status.active == 1
    assert not any(c.type == "Failed" for c in job.status.conditions or [])


_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$")


def test_logs_since_seconds_since_time_and_limits(make_sandbox: Any) -> None:
    cluster = make_sandbox(SandboxConfig.fast(log_interval_seconds=0.2))
    core = clients.core(cluster)
    core.create_namespaced_pod("default", {"metadata": {"name": "p"}, "spec": _pod_spec()})
    wait_for(lambda: core.read_namespaced_pod("p", "default").status.phase == "Running")
    wait_for(lambda: len(core.read_namespaced_pod_log("p", "default").splitlines()) >= 16)
    url = f"{cluster.url}/api/v1/namespaces/default/pods/p/log?timestamps=true"

    def stamped(query: str = "") -> list[tuple[float, str]]:
        with urllib.request.urlopen(f"{url}&{query}", timeout=5) as r:
            text = r.read().decode()
        out = []
        for line in text.splitlines():
            stamp, _, words = line.partition(" ")
            assert _STAMP.match(stamp), stamp  # RFC3339Nano, trailing zeros trimmed
            out.append((datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp(), words))
        return out

    everything = stamped()
    assert everything[0][1] == "p/main: started"
    asked = time.time()
    recent = stamped("sinceSeconds=1")
    assert 0 < len(recent) < len(everything)
    assert all(ts >= asked - 1.01 for ts, _ in recent)
    assert "p/main: started" not in [words for _, words in recent]
    cutoff = math.floor(everything[0][0]) + 2
    since_time = datetime.fromtimestamp(cutoff, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    since = stamped(f"sinceTime={since_time}")
    assert since[0] == next(line for line in everything if line[0] >= cutoff)
    assert all(ts >= cutoff for ts, _ in since)
    # tailLines counts from the end of what `since` left
    assert stamped("sinceSeconds=1&tailLines=2") == stamped("sinceSeconds=1")[-2:]
    # the official client's since_seconds
    text = core.read_namespaced_pod_log("p", "default", since_seconds=1)
    assert text and "p/main: started" not in text
    with urllib.request.urlopen(f"{url}&limitBytes=10", timeout=5) as r:
        assert len(r.read()) == 10
    with urllib.request.urlopen(f"{url}&follow=true&sinceSeconds=1", timeout=5) as r:
        first = r.readline().decode()
    assert "p/main: started" not in first and "p/main: step" in first


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "sinceSeconds=0",
            'PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
        ),
        (
            "sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z",
            'PodLogOptions "p" is invalid: : Forbidden: at most one of `sinceTime` or '
            "`sinceSeconds` may be specified",
        ),
        (
            "limitBytes=0",
            'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0',
        ),
    ],
)
def test_bad_log_options_are_refused(sandbox: SandboxCluster, query: str, message: str) -> None:
    core = clients.core(sandbox)
    core.create_namespaced_pod("default", {"metadata": {"name": "p"}, "spec": _pod_spec()})
    wait_for(lambda: core.read_namespaced_pod("p", "default").status.phase == "Running")
    url = f"{sandbox.url}/api/v1/namespaces/default/pods/p/log?{query}"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url, timeout=5)
    assert refused.value.code == 422
    assert json.loads(refused.value.read())["message"] == message


def test_pod_spec_defaults_match_the_api_server(sandbox: SandboxCluster) -> None:
    probe = {"httpGet": {"port": 8080}}
    container = {
        "name": "main",
        "image": "nginx",
        "livenessProbe": dict(probe),
        "readinessProbe": {"tcpSocket": {"port": 8080}},
        "startupProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5},
        "lifecycle": {"preStop": {"httpGet": {"port": 8080, "path": "/stop"}}},
    }
    images = {
        "a": "nginx:latest@sha256:" + "0" * 64,
        "b": "nginx@sha256:" + "0" * 64,
        "c": "registry.local:5000/nginx",
        "d": "nginx:1.27",
    }
    spec = {
        "containers": [container]
        + [{"name": n, "image": image} for n, image in sorted(images.items())],
        "volumes": [
            {
                "name": "info",
                "downwardAPI": {
                    "items": [{"path": "name", "fieldRef": {"fieldPath": "metadata.name"}}]
                },
            },
            {
                "name": "all",
                "projected": {
                    "sources": [
                        {
                            "downwardAPI": {
                                "items": [
                                    {"path": "ns", "fieldRef": {"fieldPath": "metadata.namespace"}}
                                ]
                            }
                        }
                    ]
                },
            },
        ],
    }
    core = clients.core(sandbox)
    created = core.api_client.sanitize_for_serialization(
        core.create_namespaced_pod("default", {"metadata": {"name": "p"}, "spec": spec})
    )
    main, *others = created["spec"]["containers"]
    thresholds = {"timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3}
    assert main["livenessProbe"] == {
        "httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"},
        "periodSeconds": 10,
        **thresholds,
    }
    assert main["readinessProbe"] == {
        "tcpSocket": {"port": 8080},
        "periodSeconds": 10,
        **thresholds,
    }
    assert main["startupProbe"] == {"exec": {"command": ["true"]}, "periodSeconds": 5, **thresholds}
    assert main["lifecycle"]["preStop"]["httpGet"] == {
        "port": 8080,
        "path": "/stop",
        "scheme": "HTTP",
    }
    assert (main["terminationMessagePath"], main["terminationMessagePolicy"]) == (
        "/dev/termination-log",
        "File",
    )
    # the tag decides: "latest" (also when none is given, even with a digest) pulls Always
    policies = {c["name"]: c["imagePullPolicy"] for c in [main, *others]}
    assert policies == {
        "main": "Always",
        "a": "Always",
        "b": "IfNotPresent",
        "c": "Always",
        "d": "IfNotPresent",
    }
    modes = {v["name"]: v for v in created["spec"]["volumes"]}
    assert modes["info"]["downwardAPI"]["defaultMode"] == 420
    assert modes["all"]["projected"]["defaultMode"] == 420
    # every fieldRef names its API version
    assert modes["info"]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"] == "v1"
    projected = modes["all"]["projected"]["sources"][0]["downwardAPI"]["items"][0]
    assert projected["fieldRef"]["apiVersion"] == "v1"


def test_service_defaults_match_the_api_server(sandbox: SandboxCluster) -> None:
    core = clients.core(sandbox)
    sticky = core.create_namespaced_service(
        "default",
        {
            "metadata": {"name": "sticky"},
            "spec": {"sessionAffinity": "ClientIP", "ports": [{"port": 80}]},
        },
    )
    assert sticky.spec.session_affinity_config.client_ip.timeout_seconds == 10800
    balanced = core.create_namespaced_service(
        "default",
        {"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}},
    )
    assert balanced.spec.allocate_load_balancer_node_ports is True
    plain = core.create_namespaced_service(
        "default", {"metadata": {"name": "plain"}, "spec": {"ports": [{"port": 80}]}}
    )
    assert plain.spec.session_affinity_config is None
    assert plain.spec.allocate_load_balancer_node_ports is None


def test_job_with_a_pod_failure_policy_replaces_failed_pods_only(sandbox: SandboxCluster) -> None:
    job = _job("policy")
    job["spec"]["podFailurePolicy"] = {
        "rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]
    }
    created = clients.batch(sandbox).create_namespaced_job("default", job)
    assert created.spec.pod_replacement_policy == "Failed"
    plain = clients.batch(sandbox).create_namespaced_job("default", _job("plain"))
    assert plain.spec.pod_replacement_policy == "TerminatingOrFailed"
