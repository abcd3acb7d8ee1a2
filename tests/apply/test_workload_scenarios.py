"""What gpuctl renders and scales for services and notebooks, on the `cluster` fixture: the
sandbox and the local real control plane (real API server and controllers, kwok nodes), so the
two must agree."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from gpuctl import constants as c
from tests.support.nodes import nodes_made, pool_name, pool_node
from tests.support.sandbox import Cluster

from .test_cluster_scenarios import wait
from .test_scenarios import WEB, gpuctl


def names(cluster: Cluster, kinds: str) -> list[str]:
    out = cluster.kubectl("get", kinds, "-o", "name").stdout
    return sorted(line for line in out.splitlines() if "e2e-web" in line)


def budget(cluster: Cluster) -> dict[str, Any]:
    out = cluster.kubectl("get", "poddisruptionbudget/e2e-web", "-o", "json").stdout
    result: dict[str, Any] = json.loads(out)
    return result


def test_a_disruption_budget_comes_and_goes_with_the_second_replica(cluster: Cluster) -> None:
    created = gpuctl(cluster, "apply", "-f", "-", stdin=WEB)
    assert created.returncode == 0, created.stderr
    assert "poddisruptionbudget.policy/e2e-web created" in created.stdout.splitlines()
    pdb = budget(cluster)
    assert pdb["spec"]["maxUnavailable"] == 1
    assert pdb["spec"]["selector"] == {"matchLabels": {"app": "e2e-web"}}
    pods = json.loads(cluster.kubectl("get", "pods", "-l", "app=e2e-web", "-o", "json").stdout)
    assert pods["items"], "the budget's selector finds the job's pods"

    one = WEB.replace("replicas: 2", "replicas: 1")
    diff = gpuctl(cluster, "diff", "-f", "-", stdin=one)
    assert diff.returncode == 1 and "-kind: PodDisruptionBudget" in diff.stdout
    pruned = gpuctl(cluster, "apply", "-f", "-", stdin=one)
    assert pruned.returncode == 0, pruned.stderr
    assert "poddisruptionbudget.policy/e2e-web pruned" in pruned.stdout.splitlines()
    assert names(cluster, "poddisruptionbudgets") == []

    again = gpuctl(cluster, "apply", "-f", "-", stdin=WEB)
    assert "poddisruptionbudget.policy/e2e-web created" in again.stdout.splitlines()
    deleted = gpuctl(cluster, "delete", "job", "e2e-web", "--wait")
    assert deleted.returncode == 0, deleted.stderr
    assert "poddisruptionbudget.policy/e2e-web deleted" in deleted.stdout.splitlines()
    wait(lambda: names(cluster, "poddisruptionbudgets,deployments") == [], what="all gone")


SCALED = """kind: inference
version: v0.1
job:
  name: e2e-chat
  description: first
environment:
  image: nginx:1.27
service:
  replicas: 1
  port: 80
  autoscaling: {min_replicas: 1, max_replicas: 4, gpu_utilization: 70}
resources:
  cpu: 0.1
  memory: 64Mi
"""


def replicas(cluster: Cluster, deployment: str) -> int:
    out = cluster.kubectl("get", f"deployment/{deployment}", "-o", "json").stdout
    count: int = json.loads(out)["spec"]["replicas"]
    return count


def test_apply_leaves_the_replica_count_to_the_autoscaler(cluster: Cluster) -> None:
    created = gpuctl(cluster, "apply", "-f", "-", stdin=SCALED)
    assert created.returncode == 0, created.stderr
    cluster.kubectl("scale", "deployment/e2e-chat", "--replicas=3")

    changed = SCALED.replace("description: first", "description: second")
    diff = gpuctl(cluster, "diff", "-f", "-", stdin=changed)
    assert diff.returncode == 1 and "+    gpuctl.runwhere.ai/description: second" in diff.stdout
    assert "replicas" not in diff.stdout, diff.stdout
    applied = gpuctl(cluster, "apply", "-f", "-", stdin=changed)
    assert applied.returncode == 0, applied.stderr
    assert "deployment.apps/e2e-chat configured" in applied.stdout.splitlines()
    assert replicas(cluster, "e2e-chat") == 3

    # dropping autoscaling prunes the autoscaler: the file's count is the count again
    manual = changed.replace(
        "  autoscaling: {min_replicas: 1, max_replicas: 4, gpu_utilization: 70}\n", ""
    )
    applied = gpuctl(cluster, "apply", "-f", "-", stdin=manual)
    assert "horizontalpodautoscaler.autoscaling/e2e-chat pruned" in applied.stdout.splitlines()
    assert replicas(cluster, "e2e-chat") == 1


HPA = """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: someone-elses
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: e2e-web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
"""


def test_without_an_autoscaler_the_file_wins_and_with_anyones_the_live_count_stays(
    cluster: Cluster,
) -> None:
    one = WEB.replace("replicas: 2", "replicas: 1")
    assert gpuctl(cluster, "apply", "-f", "-", stdin=one).returncode == 0
    cluster.kubectl("scale", "deployment/e2e-web", "--replicas=3")
    diff = gpuctl(cluster, "diff", "-f", "-", stdin=one)
    assert diff.returncode == 1 and "-  replicas: 3\n+  replicas: 1\n" in diff.stdout
    again = gpuctl(cluster, "apply", "-f", "-", stdin=one)
    assert "deployment.apps/e2e-web configured" in again.stdout.splitlines(), again.stderr
    assert replicas(cluster, "e2e-web") == 1  # no autoscaler: the file wins

    # an autoscaler gpuctl did not make (kubectl autoscale, a team's own) owns the count too
    cluster.kubectl("apply", "-f", "-", input=HPA)
    cluster.kubectl("scale", "deployment/e2e-web", "--replicas=4")
    assert gpuctl(cluster, "diff", "-f", "-", stdin=one).returncode == 0
    described = one.replace("  name: e2e-web\n", "  name: e2e-web\n  description: b\n")
    applied = gpuctl(cluster, "apply", "-f", "-", stdin=described)
    assert applied.returncode == 0, applied.stderr
    assert "deployment.apps/e2e-web configured" in applied.stdout.splitlines()
    assert replicas(cluster, "e2e-web") == 4


def notebook_t4(pool: str) -> str:
    return f"""kind: notebook
version: v0.1
job: {{name: e2e-nb}}
environment: {{image: jupyter/base-notebook:latest}}
service: {{port: 8888}}
resources: {{pool: {pool}, gpu: 1, gpu-type: T4-16G, cpu: 1, memory: 1Gi}}
"""


def holder(pool: str) -> str:
    """Three of the T4 node's four GPUs, held until deleted."""
    return f"""kind: inference
version: v0.1
job: {{name: e2e-holder}}
environment: {{image: nginx:1.27}}
service: {{replicas: 1, port: 80}}
resources: {{pool: {pool}, gpu: 3, gpu-type: T4-16G, cpu: 1, memory: 1Gi}}
"""


@pytest.fixture
def t4_pool(cluster: Cluster) -> Iterator[tuple[str, str]]:
    """(pool, node): a 4×T4 node of a pool of its own, so that the GPUs a notebook frees when
    its pod is replaced go to no other test's pod."""
    pool = pool_name(cluster, "nb")
    t4 = pool_node(
        f"{pool}-t4", pool, 4, labels={c.Labels.GPU_TYPE: "T4-16G"}, cpu="16", memory="64Gi"
    )
    with nodes_made(cluster, [t4]) as made:
        yield pool, made[0]


def notebook_pod(cluster: Cluster) -> dict[str, Any] | None:
    done = cluster.kubectl("get", "pod/e2e-nb-0", "-o", "json", check=False)
    if done.returncode != 0:
        return None
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def pod_with(cluster: Cluster, gpus: str, phase: str) -> dict[str, Any] | None:
    pod = notebook_pod(cluster)
    if pod is None or pod["metadata"].get("deletionTimestamp"):
        return None
    limits = pod["spec"]["containers"][0]["resources"]["limits"]
    return pod if limits.get("nvidia.com/gpu") == gpus and pod["status"]["phase"] == phase else None


def notebook_row(cluster: Cluster) -> list[str]:
    done = gpuctl(cluster, "get", "notebook", "e2e-nb", "--no-headers")
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_scaling_a_notebook_whose_pod_cannot_start_replaces_the_pod(
    cluster: Cluster, t4_pool: tuple[str, str]
) -> None:
    pool, t4_node = t4_pool
    started = gpuctl(
        cluster, "create", "-f", "-", "--wait", "--timeout", "90s", stdin=notebook_t4(pool)
    )
    assert started.returncode == 0, started.stderr
    held = gpuctl(cluster, "create", "-f", "-", "--wait", "--timeout", "90s", stdin=holder(pool))
    assert held.returncode == 0, held.stderr

    # 2 GPUs do not fit beside the holder's 3: the new pod stays Pending
    assert gpuctl(cluster, "scale", "notebook", "e2e-nb", "--gpu", "2").returncode == 0
    wait(lambda: pod_with(cluster, "2", "Pending"), 90, "the 2-GPU pod, Pending")
    # get notebook: the live pod's GPUs, and no address while the pod is on no node
    assert notebook_row(cluster)[2:4] == ["2", "<none>"]
    # back to 1: the Pending pod is replaced (OrderedReady alone would wait for it forever)
    back = gpuctl(cluster, "scale", "notebook", "e2e-nb", "--gpu", "1")
    assert back.returncode == 0, back.stderr
    assert "pod/e2e-nb-0 deleted: it could not start, and is re-made" in back.stdout
    running = wait(lambda: pod_with(cluster, "1", "Running"), 90, "the 1-GPU pod, Running")
    node = json.loads(
        cluster.kubectl(
            "get", f"node/{running['spec']['nodeName']}", "-o", "json", namespaced=False
        ).stdout
    )
    ip = next(a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP")
    gpus, address = notebook_row(cluster)[2:4]
    assert gpus == "1" and address.startswith(f"http://{ip}:"), address

    refused = gpuctl(cluster, "scale", "notebook", "e2e-nb", "--gpu", "64")
    assert refused.returncode == 1
    assert (
        f"resources.gpu: a pod asks for 64 nvidia.com/gpu, more than any node in pool {pool} "
        "with GPU type T4-16G"
    ) in refused.stderr
    assert "nothing was changed" in refused.stderr
    assert f"the largest, {t4_node}, has 4" in refused.stderr
    assert pod_with(cluster, "1", "Running"), "a refused scale changes nothing"


def running_notebook_pod(cluster: Cluster, not_uid: str = "") -> dict[str, Any] | None:
    pod = notebook_pod(cluster)
    if pod is None or pod["metadata"].get("deletionTimestamp"):
        return None
    if pod["metadata"]["uid"] == not_uid or pod["status"].get("phase") != "Running":
        return None
    statuses = pod["status"].get("containerStatuses") or []
    return pod if statuses and "running" in statuses[0].get("state", {}) else None


def report_resources_as_a_resizing_kubelet(cluster: Cluster, pod: dict[str, Any]) -> None:
    """A 1.33 kubelet that can resize pods reports each running container's resources (the
    sandbox's does; kwok's nodes do not, and the API server refuses to resize their pods)."""
    statuses = pod["status"]["containerStatuses"]
    for status, container in zip(statuses, pod["spec"]["containers"], strict=True):
        status["resources"] = container["resources"]
    body = json.dumps({"status": {"containerStatuses": statuses}})
    cluster.kubectl(
        "patch", "pod/e2e-nb-0", "--subresource", "status", "--type", "merge", "-p", body
    )


def test_scaling_a_notebooks_cpu_and_memory_resizes_its_running_pod_in_place(
    cluster: Cluster, t4_pool: tuple[str, str]
) -> None:
    pool, _ = t4_pool
    started = gpuctl(
        cluster, "create", "-f", "-", "--wait", "--timeout", "90s", stdin=notebook_t4(pool)
    )
    assert started.returncode == 0, started.stderr
    pod = wait(lambda: running_notebook_pod(cluster), 90, "the notebook's pod running")
    report_resources_as_a_resizing_kubelet(cluster, pod)

    bigger = gpuctl(cluster, "scale", "notebook", "e2e-nb", "--cpu", "2", "--memory", "2Gi")
    assert bigger.returncode == 0, bigger.stderr
    assert bigger.stdout.splitlines()[-1] == (
        "notebook e2e-nb resized in place to cpu 2, memory 2Gi: pod/e2e-nb-0 keeps running, "
        "kernels and all"
    )
    two = {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "1"}
    resized = notebook_pod(cluster)
    assert resized is not None and resized["metadata"]["uid"] == pod["metadata"]["uid"]
    assert resized["spec"]["containers"][0]["resources"] == {"requests": two, "limits": two}
    sts = json.loads(cluster.kubectl("get", "statefulset/e2e-nb", "-o", "json").stdout)
    assert sts["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] == two
    assert sts["spec"]["updateStrategy"]["type"] == "RollingUpdate"  # as it was

    def settled() -> bool:
        # the controller counts the resized pod as of the new template (its revision label),
        # so a RollingUpdate never replaces it; when it also moves currentRevision depends on
        # when it last saw the pod Ready, which is the node's business, not gpuctl's
        live = json.loads(cluster.kubectl("get", "statefulset/e2e-nb", "-o", "json").stdout)
        status = live["status"]
        kept = notebook_pod(cluster) or {"metadata": {}}
        revision = (kept["metadata"].get("labels") or {}).get("controller-revision-hash")
        return bool(
            status.get("observedGeneration") == live["metadata"]["generation"]
            and status.get("updatedReplicas") == 1
            and revision == status.get("updateRevision")
        )

    wait(settled, 180, "the StatefulSet counting the resized pod as up to date")
    kept = notebook_pod(cluster)
    assert kept is not None and kept["metadata"]["uid"] == pod["metadata"]["uid"]
    assert not kept["metadata"].get("deletionTimestamp")

    # a lower memory limit cannot be set in place: the pod is replaced, and the output says why
    smaller = gpuctl(cluster, "scale", "notebook", "e2e-nb", "--memory", "1Gi")
    assert smaller.returncode == 0, smaller.stderr
    assert smaller.stdout.splitlines()[-1].startswith(
        "notebook e2e-nb restarted: the cluster refused to resize the pod in place "
        "(spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be "
        "decreased unless resizePolicy is RestartContainer); its pod is replaced by one with "
        "memory 1Gi"
    )
    replaced = wait(
        lambda: running_notebook_pod(cluster, not_uid=pod["metadata"]["uid"]), 90, "a new pod"
    )
    assert replaced["spec"]["containers"][0]["resources"]["limits"]["memory"] == "1Gi"

    # GPUs always restart the pod
    gpus = gpuctl(cluster, "scale", "notebook", "e2e-nb", "--gpu", "2")
    assert gpus.returncode == 0, gpus.stderr
    assert gpus.stdout.splitlines()[-1] == (
        "notebook e2e-nb restarted: the GPUs change (only CPU and memory change in place); its "
        "pod is replaced by one with 2 GPU(s), running kernels end; files in its workdirs are "
        "kept"
    )
    wait(lambda: pod_with(cluster, "2", "Running"), 90, "the 2-GPU pod, Running")
