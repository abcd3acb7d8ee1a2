"""The GPUWorkload CRD on the sandbox (which checks objects against its structural schema), its
defaults, and the install manifests `gpuctl controller manifests` prints."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
import yaml

from gpuctl.cluster.errors import Invalid
from gpuctl.controller import resource
from tests.conftest import GPUCTL, Env
from tests.controller.conftest import workload


def test_the_crd_takes_the_document_example_and_refuses_bad_values(crd_env: Env) -> None:
    example = workload("my-inference-workload", 2, priority="high")
    example["spec"]["retryPolicy"] = {"maxRetries": 3, "backoffSeconds": 30}
    created = crd_env.cluster.create(example)
    assert created["spec"]["schedulingStrategy"] == "leastLoaded"

    with pytest.raises(Invalid, match='supported values: "leastLoaded", "random"'):
        crd_env.cluster.create(workload("bad-strategy", 1, "fastest"))
    with pytest.raises(Invalid, match=r"spec\.gpuCount"):
        crd_env.cluster.create(workload("no-gpus", 0))
    with pytest.raises(Invalid, match=r"spec\.priority"):
        crd_env.cluster.create(workload("bad-priority", 1, priority="urgent"))
    missing = workload("no-model", 1)
    del missing["spec"]["modelName"]
    with pytest.raises(Invalid, match=r"spec\.modelName"):
        crd_env.cluster.create(missing)


def test_the_api_server_fills_in_the_crd_defaults(crd_env: Env) -> None:
    minimal = workload("minimal", 1)
    minimal["spec"] = {"modelName": "llama2", "retryPolicy": {"maxRetries": 1}}
    created = crd_env.cluster.create(minimal)
    assert created["spec"]["schedulingStrategy"] == "leastLoaded"
    assert created["spec"]["retryPolicy"] == {"maxRetries": 1, "backoffSeconds": 30}
    assert created["spec"] == resource.with_defaults(resource.spec_schema(), minimal["spec"])


def test_defaults_come_from_the_crd_schema() -> None:
    spec = resource.with_defaults(resource.spec_schema(), {"modelName": "llama2"})
    assert spec == {
        "modelName": "llama2",
        "gpuCount": 1,
        "priority": "medium",
        "schedulingStrategy": "leastLoaded",
        "retryPolicy": {"maxRetries": 3, "backoffSeconds": 30},
        "image": "busybox:1.36",
        "cpu": "1",
        "memory": "4Gi",
    }
    kept = resource.with_defaults(resource.spec_schema(), {"retryPolicy": {"maxRetries": 0}})
    assert kept["retryPolicy"] == {"maxRetries": 0, "backoffSeconds": 30}


def manifests(*args: str) -> list[dict[str, Any]]:
    result = subprocess.run(
        [str(GPUCTL), "controller", "manifests", *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return list(yaml.safe_load_all(result.stdout))


def test_manifests_install_a_hardened_least_privilege_controller() -> None:
    objects = manifests("--namespace", "gpu-system", "--image", "example.com/gpuctl:1")
    by_kind = {obj["kind"]: obj for obj in objects}
    assert [obj["kind"] for obj in objects] == [
        "CustomResourceDefinition",
        "PriorityClass",
        "PriorityClass",
        "PriorityClass",
        "PriorityClass",
        "Namespace",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "NetworkPolicy",
        "Deployment",
    ]
    version = by_kind["CustomResourceDefinition"]["spec"]["versions"][0]
    assert version["subresources"] == {"status": {}}
    columns = [column["name"] for column in version["additionalPrinterColumns"]]
    assert columns[:6] == ["Model", "GPUs", "Strategy", "Phase", "Node", "Retries"]

    # cluster-wide: the GPUWorkloads of every namespace, their Jobs, reading nodes and pods,
    # and what the create verb reads before it writes a Job; nothing else is written but a
    # LocalQueue (a Job queued in a Kueue pool), and no Secret is read
    cluster_rules = by_kind["ClusterRole"]["rules"]
    assert {(name, tuple(r["verbs"])) for r in cluster_rules for name in r["resources"]} == {
        ("gpuworkloads", ("list", "watch")),  # read from the watch; never deleted by it
        ("gpuworkloads/status", ("patch",)),
        ("jobs", ("get", "list", "create", "delete")),  # delete: placing again
        ("nodes", ("list", "watch")),
        ("pods", ("list", "watch")),
        ("configmaps", ("get", "list")),  # a job's objects; the pool records
        ("services", ("list",)),
        ("deployments", ("list",)),
        ("statefulsets", ("list",)),
        ("horizontalpodautoscalers", ("list",)),
        ("poddisruptionbudgets", ("list",)),
        ("namespaces", ("get",)),  # its Pod Security level
        ("resourcequotas", ("list",)),
        ("priorityclasses", ("list",)),  # installed with the controller, never created by it
        ("localqueues", ("create",)),
    }
    # in its own namespace: only its Lease, read and renewed by name
    namespaced = [
        (r["resources"], set(r["verbs"]), r.get("resourceNames")) for r in by_kind["Role"]["rules"]
    ]
    assert namespaced == [
        (["leases"], {"get", "update"}, ["gpu-orchestrator"]),
        (["leases"], {"create"}, None),  # a name cannot limit create
    ]
    assert by_kind["Role"]["metadata"]["namespace"] == "gpu-system"
    assert by_kind["ClusterRoleBinding"]["subjects"][0]["namespace"] == "gpu-system"

    pod = by_kind["Deployment"]["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] == 10
    assert pod["serviceAccountName"] == "gpu-orchestrator"
    [container] = pod["containers"]
    assert container["image"] == "example.com/gpuctl:1"
    assert "--leader-elect" in container["args"]
    security = container["securityContext"]
    assert security["runAsUser"] == 65532 and security["runAsNonRoot"] is True
    assert security["readOnlyRootFilesystem"] is True
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert security["allowPrivilegeEscalation"] is False
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert {p["containerPort"] for p in container["ports"]} == {8080, 8081}


def test_kubectl_get_prints_the_crd_columns(crd_env: Env) -> None:
    crd_env.cluster.create(workload("llama", 2))
    crd_env.cluster.patch(
        resource.KIND,
        "llama",
        "default",
        {"status": {"phase": "Scheduled", "assignedNode": "big", "retries": 0, "jobName": "j"}},
        subresource="status",
    )
    lines = crd_env.sandbox.kubectl("get", "gpuworkloads").stdout.splitlines()
    assert lines[0].split() == [
        "NAME", "MODEL", "GPUS", "STRATEGY", "PHASE", "NODE", "RETRIES", "AGE"
    ]  # fmt: skip
    assert lines[1].split()[:7] == ["llama", "llama2", "2", "leastLoaded", "Scheduled", "big", "0"]
    assert lines[1].split()[7].endswith("s")
    wide = crd_env.sandbox.kubectl("get", "gw", "-o", "wide").stdout.splitlines()
    assert wide[0].split()[-4:] == ["RETRIES", "JOB", "MESSAGE", "AGE"]
    assert wide[1].split()[7] == "j"  # and an empty MESSAGE
    assert len(wide[1].split()) == 9


def test_manifests_shield_the_controller_and_let_prometheus_scrape_it() -> None:
    objects = manifests("--namespace", "gpu-system")
    by_kind = {obj["kind"]: obj for obj in objects}
    policy = by_kind["NetworkPolicy"]["spec"]
    assert policy["podSelector"] == by_kind["Deployment"]["spec"]["selector"]
    assert policy["policyTypes"] == ["Ingress", "Egress"]
    assert policy["ingress"] == [{"ports": [{"protocol": "TCP", "port": resource.METRICS_PORT}]}]
    allowed_out = {(p["protocol"], p["port"]) for rule in policy["egress"] for p in rule["ports"]}
    assert allowed_out == {("UDP", 53), ("TCP", 53), ("TCP", 443), ("TCP", 6443)}

    template = by_kind["Deployment"]["spec"]["template"]
    assert template["metadata"]["annotations"] == {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": str(resource.METRICS_PORT),
        "prometheus.io/path": "/metrics",
    }
    classes = {o["metadata"]["name"]: o["value"] for o in objects if o["kind"] == "PriorityClass"}
    own = classes.pop(template["spec"]["priorityClassName"])
    assert sorted(classes) == ["gpuctl-high", "gpuctl-low", "gpuctl-medium"]
    assert max(classes.values()) < own < 1_000_000_000  # above the jobs, below system classes
    # one replica: nothing to spread or keep during a drain
    assert "affinity" not in template["spec"]
    assert "PodDisruptionBudget" not in by_kind


def test_two_replicas_are_spread_over_nodes_and_a_drain_keeps_one() -> None:
    objects = manifests("--namespace", "gpu-system", "--replicas", "2")
    by_kind = {obj["kind"]: obj for obj in objects}
    deployment = by_kind["Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    [term] = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert term["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    assert term["podAffinityTerm"]["labelSelector"] == deployment["spec"]["selector"]
    budget = by_kind["PodDisruptionBudget"]
    assert budget["metadata"]["namespace"] == "gpu-system"
    assert budget["spec"] == {
        "minAvailable": 1,
        "unhealthyPodEvictionPolicy": "AlwaysAllow",
        "selector": deployment["spec"]["selector"],
    }
