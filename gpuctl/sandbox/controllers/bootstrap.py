"""What a fresh cluster already holds: the system namespaces, the configured nodes and their
leases, the `kubernetes` service and the system priority classes."""

from __future__ import annotations

import hashlib
import time

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import NodeSpec, SandboxConfig
from gpuctl.sandbox.store import Obj
from gpuctl.sandbox.timestamps import now_rfc3339
from gpuctl.times import micro_rfc3339

_NODE_PRESSURE_CONDITIONS = (
    ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
)


def bootstrap(api: Api, config: SandboxConfig) -> None:
    namespaces = api.registry.get("", "namespaces")
    for name in ("default", "kube-system", "kube-public", "kube-node-lease"):
        api.create(namespaces, "", {"metadata": {"name": name}}, internal=True)
    nodes = api.registry.get("", "nodes")
    leases = api.registry.get("coordination.k8s.io", "leases")
    for i, node in enumerate(config.nodes):
        api.create(nodes, "", node_object(node, i, config.kubernetes_version), internal=True)
    for node in config.nodes:
        api.create(leases, "kube-node-lease", _lease(node.name), internal=True)
    api.create(
        api.registry.get("", "services"),
        "default",
        {
            "metadata": {
                "name": "kubernetes",
                "labels": {"component": "apiserver", "provider": "kubernetes"},
            },
            "spec": {
                "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]
            },
        },
        internal=True,
    )
    pcs = api.registry.get("scheduling.k8s.io", "priorityclasses")
    for name, value in (
        ("system-cluster-critical", 2000000000),
        ("system-node-critical", 2000001000),
    ):
        api.create(
            pcs,
            "",
            {
                "metadata": {"name": name},
                "value": value,
                "description": "Used for system critical pods that must run in the cluster, "
                "but can be moved to another node if necessary.",
            },
            internal=True,
        )


def node_object(node: NodeSpec, index: int, kubernetes_version: str) -> Obj:
    """The Node a kubelet registers for `node`: the configured labels, taints and capacity."""
    labels = {
        "kubernetes.io/hostname": node.name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": "amd64",
        **node.labels,
    }
    spec: Obj = {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"]}
    if node.taints:
        spec["taints"] = node.taints
    return {
        "metadata": {
            "name": node.name,
            "labels": labels,
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": spec,
        "status": {
            "capacity": dict(node.capacity),
            "allocatable": dict(node.capacity),
            "conditions": _node_conditions(),
            "addresses": [
                {"type": "InternalIP", "address": f"10.0.0.{10 + index}"},
                {"type": "Hostname", "address": node.name},
            ],
            "nodeInfo": _node_info(node.name, kubernetes_version),
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        },
    }


def _node_conditions() -> list[Obj]:
    now = now_rfc3339()
    conditions: list[Obj] = [
        {
            "type": type_,
            "status": "False",
            "reason": reason,
            "message": message,
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
        }
        for type_, reason, message in _NODE_PRESSURE_CONDITIONS
    ]
    conditions.append(
        {
            "type": "Ready",
            "status": "True",
            "reason": "KubeletReady",
            "message": "kubelet is posting ready status",
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
        }
    )
    return conditions


def _node_info(name: str, kubernetes_version: str) -> Obj:
    machine = hashlib.md5(name.encode()).hexdigest()
    return {
        "machineID": machine,
        "systemUUID": machine,
        "bootID": machine,
        "kernelVersion": "5.15.0-gpuctl-sandbox",
        "osImage": "Ubuntu 22.04.4 LTS",
        "containerRuntimeVersion": "containerd://1.7.22",
        "kubeletVersion": f"v{kubernetes_version}.0",
        "kubeProxyVersion": f"v{kubernetes_version}.0",
        "operatingSystem": "linux",
        "architecture": "amd64",
    }


def _lease(node_name: str) -> Obj:
    return {
        "metadata": {"name": node_name},
        "spec": {
            "holderIdentity": node_name,
            "leaseDurationSeconds": 40,
            "renewTime": micro_rfc3339(time.time()),
        },
    }
