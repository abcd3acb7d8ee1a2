"""The real nodes themselves: Ready kubelets with GPUs to schedule and the images pre-loaded,
pods that run, log and take exec, cluster DNS for Services, and the machine held by one set of
real nodes at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.kube import controlplane, host, images, nodes, session
from tests.support.sandbox import Cluster, wait_for

pytestmark = pytest.mark.realpods


def _get(cluster: Cluster, *what: str, namespaced: bool = True) -> Any:
    return json.loads(cluster.kubectl("get", *what, "-o", "json", namespaced=namespaced).stdout)


def test_the_real_nodes_are_ready_with_gpus_and_the_images(real_pods: Cluster) -> None:
    listed = _get(real_pods, "nodes", namespaced=False)["items"]
    assert [n["metadata"]["name"] for n in listed] == nodes.names(session.REAL_NODES)
    for node in listed:
        assert node["metadata"]["labels"][nodes.REAL_LABEL] == "true"
        allocatable = node["status"]["allocatable"]
        assert {key: allocatable[key] for key in nodes.GPUS} == nodes.GPUS
        names = {name for image in node["status"]["images"] for name in image["names"]}
        assert set(images.NAMES) <= names
        kubelet = node["status"]["nodeInfo"]
        assert kubelet["kubeletVersion"] == controlplane.KUBERNETES
        assert kubelet["containerRuntimeVersion"].startswith("containerd://")


POD = """
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  hostname: web
  subdomain: peers
  containers:
  - name: web
    image: IMAGE
    command: ["python3", "-c", "import socket, http.server as web;
      print('hello from', socket.gethostname(), flush=True);
      web.test(web.SimpleHTTPRequestHandler, port=8080, bind='0.0.0.0')"]
    resources: {limits: {nvidia.com/gpu: "1", cpu: 100m, memory: 64Mi}}
---
apiVersion: v1
kind: Service
metadata: {name: peers}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
"""


def test_a_pod_runs_logs_takes_exec_and_its_services_resolve(real_pods: Cluster) -> None:
    real_pods.kubectl("apply", "-f", "-", input=POD.replace("IMAGE", images.PYTHON))
    real_pods.kubectl("wait", "--for=condition=Ready", "pod/web", "--timeout=120s", timeout=150)
    logs = wait_for(lambda: real_pods.kubectl("logs", "web").stdout, 30, 0.5, "the pod's log")
    assert logs.startswith("hello from web\n")
    ns = real_pods.namespace
    lookup = (
        "import socket, urllib.request;"
        f"print(socket.gethostbyname('web.peers.{ns}.svc.cluster.local'));"
        f"print(urllib.request.urlopen('http://web.{ns}.svc', timeout=5).status)"
    )  # plain `web` is the pod's own hostname in its /etc/hosts, as Kubernetes writes it
    answer = real_pods.kubectl("exec", "web", "--", "python3", "-c", lookup).stdout.split()
    pod = _get(real_pods, "pod", "web")
    assert answer == [pod["status"]["podIP"], "200"]
    assert pod["spec"]["nodeName"] in nodes.names(session.REAL_NODES)


def test_a_second_set_of_real_nodes_is_refused_while_one_holds_the_machine(
    real_pods: Cluster, tmp_path: Path
) -> None:
    held = host.current_claim()
    assert held is not None
    with pytest.raises(controlplane.ControlPlaneError) as refused:
        controlplane.up(tmp_path / "second", nodes=[], real_nodes=1)
    assert f"the real nodes of the cluster in {held.directory} still hold this machine" in str(
        refused.value
    )
    assert host.current_claim() == held
