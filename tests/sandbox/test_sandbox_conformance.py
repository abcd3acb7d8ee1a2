"""Conformance scenarios: the real `kubectl` and the official client against a cluster.

Each test runs against the sandbox; with GPUCTL_E2E=1 (`make e2e`) also against the cluster in
KUBECONFIG, so a behaviour the sandbox gets wrong shows up as a scenario that fails on one only.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, dynamic, watch

from tests.kube.session import LocalCluster
from tests.support.sandbox import Cluster, SandboxCluster

REPO = Path(__file__).resolve().parents[2]


def _job(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "labels": {"app.kubernetes.io/managed-by": "gpuctl", **(labels or {})},
        },
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "main",
                            "image": "busybox:1.36",
                            "command": [
                                "sh",
                                "-c",
                                "for i in 1 2 3; do echo step $i; sleep 0.2; done",
                            ],
                        }
                    ],
                }
            },
        },
    }


def _deployment(name: str, replicas: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "gpuctl"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }


def _write(cluster: Cluster, name: str, *docs: dict[str, Any]) -> str:
    path = cluster.workdir / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return str(path)


def test_get_nodes_and_all(cluster: Cluster) -> None:
    nodes = cluster.kubectl("get", "nodes", "-o", "name", namespaced=False).stdout.split()
    assert nodes and all(n.startswith("node/") for n in nodes)
    out = cluster.kubectl("get", "all").stdout + cluster.kubectl("get", "all").stderr
    assert "No resources found" in out or "NAME" in out
    if isinstance(cluster, SandboxCluster | LocalCluster):  # both have the sandbox's nodes
        gpu = cluster.kubectl(
            "get", "nodes", "-l", "runwhere.ai/gpu-type=A100-80G", "-o", "name", namespaced=False
        )
        assert gpu.stdout.split() == ["node/gpu-a100-0", "node/gpu-a100-1"]
        table = cluster.kubectl("get", "nodes", namespaced=False).stdout.splitlines()
        assert table[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]


def test_apply_validates_reapplies_and_labels(cluster: Cluster) -> None:
    bad = _job("conf-apply")
    bad["spec"]["foo"] = 1
    result = cluster.kubectl("apply", "-f", _write(cluster, "bad.yaml", bad), check=False)
    assert result.returncode != 0
    assert 'strict decoding error: unknown field "spec.foo"' in result.stderr
    assert "BadRequest" in result.stderr

    path = _write(cluster, "job.yaml", _job("conf-apply"))
    assert cluster.kubectl("apply", "-f", path).stdout.strip() == "job.batch/conf-apply created"
    assert cluster.kubectl("apply", "-f", path).stdout.strip() == "job.batch/conf-apply unchanged"
    changed = _write(cluster, "job2.yaml", _job("conf-apply", {"team": "a"}))
    assert (
        cluster.kubectl("apply", "-f", changed).stdout.strip() == "job.batch/conf-apply configured"
    )

    out = cluster.kubectl("label", "job", "conf-apply", "team=b", "--overwrite").stdout
    assert out.strip() == "job.batch/conf-apply labeled"
    refused = cluster.kubectl("label", "job", "conf-apply", "team=c", check=False)
    assert refused.returncode != 0 and "already has a value (b)" in refused.stderr
    assert cluster.kubectl("get", "jobs", "-l", "team=b", "-o", "name").stdout.split() == [
        "job.batch/conf-apply"
    ]
    assert cluster.kubectl("get", "jobs", "-l", "team in (x,y)", "-o", "name").stdout.split() == []
    assert cluster.kubectl("get", "jobs", "-l", "!team", "-o", "name").stdout.split() == []
    assert "job.batch/conf-apply" in cluster.kubectl("get", "all", "-o", "name").stdout.split()

    dry = cluster.kubectl(
        "apply", "--dry-run=server", "-f", _write(cluster, "d.yaml", _deployment("conf-dry"))
    )
    assert dry.stdout.strip() == "deployment.apps/conf-dry created (server dry run)"
    assert cluster.kubectl("get", "deployment", "conf-dry", check=False).returncode != 0


def test_job_wait_logs_and_foreground_delete(cluster: Cluster) -> None:
    cluster.kubectl("apply", "-f", _write(cluster, "job.yaml", _job("conf-job")))
    # kwok's stand-in kubelet follows a log until the client leaves (no container ever ends)
    f = [] if isinstance(cluster, LocalCluster) else ["-f"]
    follow = cluster.kubectl(
        "logs", *f, "job/conf-job", "--pod-running-timeout=60s", timeout=90, check=False
    )
    if follow.returncode != 0:  # the pod had not started yet: kubectl logs does not wait for that
        time.sleep(1)
        follow = cluster.kubectl("logs", *f, "job/conf-job", timeout=90)
    assert follow.stdout.strip()
    cluster.kubectl(
        "wait", "--for=condition=complete", "job/conf-job", "--timeout=90s", timeout=120
    )
    assert cluster.kubectl("logs", "job/conf-job").stdout.strip()
    assert (
        cluster.kubectl("get", "job", "conf-job", "-o", "jsonpath={.status.succeeded}").stdout
        == "1"
    )
    out = cluster.kubectl("delete", "job", "conf-job", "--cascade=foreground", timeout=120).stdout
    assert out.strip() == 'job.batch "conf-job" deleted'
    # kubectl returned only once the job was gone, and its pods with it
    gone = cluster.kubectl("get", "job", "conf-job", check=False)
    assert gone.returncode != 0 and "NotFound" in gone.stderr
    assert (
        cluster.kubectl(
            "get", "pods", "-l", "batch.kubernetes.io/job-name=conf-job", "-o", "name"
        ).stdout
        == ""
    )


def test_scale_deployment(cluster: Cluster) -> None:
    cluster.kubectl("apply", "-f", _write(cluster, "d.yaml", _deployment("conf-web")))
    out = cluster.kubectl("scale", "deployment/conf-web", "--replicas=3").stdout
    assert out.strip() == "deployment.apps/conf-web scaled"
    cluster.kubectl(
        "wait",
        "--for=jsonpath={.status.readyReplicas}=3",
        "deployment/conf-web",
        "--timeout=120s",
        timeout=150,
    )
    cluster.kubectl("rollout", "status", "deployment/conf-web", "--timeout=60s", timeout=90)
    assert (
        len(cluster.kubectl("get", "pods", "-l", "app=conf-web", "-o", "name").stdout.split()) == 3
    )
    cluster.kubectl("scale", "deployment/conf-web", "--replicas=0")
    cluster.kubectl("delete", "deployment", "conf-web", "--cascade=foreground", timeout=120)


def test_official_client_typed_dynamic_and_watch(cluster: Cluster) -> None:
    api = cluster.api_client()
    core: Any = client.CoreV1Api(api)
    dyn: Any = dynamic.DynamicClient(api)  # type: ignore[no-untyped-call]
    configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
    start = core.list_namespaced_config_map(cluster.namespace).metadata.resource_version

    def writes() -> None:
        time.sleep(0.1)
        configmaps.create(
            body={
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "conf-cm", "labels": {"w": "1"}},
            },
            namespace=cluster.namespace,
        )
        core.patch_namespaced_config_map("conf-cm", cluster.namespace, {"data": {"a": "b"}})
        core.delete_namespaced_config_map("conf-cm", cluster.namespace)

    threading.Thread(target=writes).start()
    seen = []
    w: Any = watch.Watch()  # type: ignore[no-untyped-call]
    for event in w.stream(
        core.list_namespaced_config_map,
        cluster.namespace,
        label_selector="w=1",
        resource_version=start,
        timeout_seconds=20,
    ):
        seen.append(event["type"])
        if event["type"] == "DELETED":
            w.stop()
    assert seen == ["ADDED", "MODIFIED", "DELETED"]


def test_rendered_manifests_apply_cleanly(sandbox: SandboxCluster) -> None:
    """What `gpuctl render` produces goes onto the sandbox, and a second apply changes nothing."""
    rendered = subprocess.run(
        [sys.executable, "-m", "gpuctl", "render", "-f", str(REPO / "examples")],
        capture_output=True,
        text=True,
        check=False,
    )
    if rendered.returncode != 0 or not rendered.stdout.strip():
        pytest.skip(f"gpuctl render is not available here: {rendered.stderr.strip()[:200]}")
    # kubectl apply always reports a PodDisruptionBudget `configured` (the patch strategy of its
    # selector is replace, so the selector is sent again), on the real API server as well: the
    # budgets are left out of the "changes nothing" check.
    documents = rendered.stdout.split("\n---\n")
    kept = [doc for doc in documents if "\nkind: PodDisruptionBudget\n" not in doc]
    assert len(kept) < len(documents)  # the examples do render budgets
    path = sandbox.workdir / "rendered.yaml"
    path.write_text("\n---\n".join(kept))
    first = sandbox.kubectl("apply", "-f", str(path), namespaced=False).stdout.splitlines()
    # the PriorityClasses render prints first were installed as an administrator installs
    # them (`gpuctl priority-classes install`): the same objects, to which apply adds its
    # last-applied annotation
    classes = [line for line in first if line.startswith("priorityclass.scheduling.k8s.io/")]
    assert classes and all(line.endswith(" configured") for line in classes)
    assert all(line.endswith(" created") for line in first if line not in classes)
    second = sandbox.kubectl("apply", "-f", str(path), namespaced=False)
    assert second.stdout.count(" unchanged") == second.stdout.count("\n")
    sandbox.requests.clear()
    sandbox.kubectl("apply", "-f", str(path), namespaced=False)
    assert sandbox.requests.only_reads()


def test_an_annotation_moves_a_deployments_generation_but_not_a_jobs(cluster: Cluster) -> None:
    """A Deployment's ReplicaSets copy its annotations, so the API server counts a change to
    them as a new generation; a Job's annotations are only metadata."""
    cluster.kubectl("apply", "-f", _write(cluster, "d.yaml", _deployment("conf-gen")))

    def generation(what: str) -> int:
        return int(cluster.kubectl("get", what, "-o", "jsonpath={.metadata.generation}").stdout)

    before = generation("deployment/conf-gen")
    cluster.kubectl("annotate", "deployment/conf-gen", "example.com/note=one")
    assert generation("deployment/conf-gen") == before + 1
    cluster.kubectl("label", "deployment/conf-gen", "example.com/team=a")
    assert generation("deployment/conf-gen") == before + 1  # labels are not copied: no move
    cluster.kubectl("apply", "-f", _write(cluster, "j.yaml", _job("conf-gen-job")))
    job_before = generation("job/conf-gen-job")
    cluster.kubectl("annotate", "job/conf-gen-job", "example.com/note=one")
    assert generation("job/conf-gen-job") == job_before


def test_pod_disruption_budgets_are_served_printed_and_checked(cluster: Cluster) -> None:
    budget: dict[str, Any] = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "conf-pdb"},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "conf-pdb"}}},
    }
    path = _write(cluster, "pdb.yaml", budget)
    created = cluster.kubectl("apply", "-f", path).stdout.strip()
    assert created == "poddisruptionbudget.policy/conf-pdb created"
    header, row = cluster.kubectl("get", "pdb").stdout.splitlines()
    columns = ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"]
    assert header.split() == columns
    assert row.split()[:4] == ["conf-pdb", "N/A", "1", "0"]  # no pod matches: none allowed
    live = yaml.safe_load(cluster.kubectl("get", "pdb/conf-pdb", "-o", "yaml").stdout)
    assert live["metadata"]["generation"] == 1
    assert live["status"]["disruptionsAllowed"] == 0

    both = {**budget, "metadata": {"name": "conf-pdb-both"}}
    both["spec"] = {**budget["spec"], "minAvailable": 1}
    refused = cluster.kubectl("apply", "-f", _write(cluster, "both.yaml", both), check=False)
    assert refused.returncode != 0
    assert "minAvailable and maxUnavailable cannot be both set" in refused.stderr


def test_a_resource_version_the_cluster_has_not_reached(cluster: Cluster) -> None:
    """What a client that remembers another cluster's (higher) resourceVersion gets: a list
    at it (NotOlderThan) waits a while, then 504 Timeout with the cause
    ResourceVersionTooLarge; a watch from it is accepted and hears nothing, not even the
    bookmarks it asked for, until its time-out. (Neither is a 410 Gone.)"""
    core: Any = client.CoreV1Api(cluster.api_client())
    current = core.list_namespaced_config_map(cluster.namespace).metadata.resource_version
    ahead = str(int(current) + 100_000)
    with pytest.raises(client.ApiException) as refused:
        core.list_namespaced_config_map(
            cluster.namespace, resource_version=ahead, resource_version_match="NotOlderThan"
        )
    assert refused.value.status == 504
    status = yaml.safe_load(str(refused.value.body))
    assert status["reason"] == "Timeout"
    assert status["message"].startswith(f"Timeout: Too large resource version: {ahead}, current: ")
    assert [c["reason"] for c in status["details"]["causes"]] == ["ResourceVersionTooLarge"]

    watched = core.list_namespaced_config_map(
        cluster.namespace,
        watch=True,
        resource_version=ahead,
        allow_watch_bookmarks=True,
        timeout_seconds=4,
        _preload_content=False,
    )
    assert watched.status == 200
    assert watched.data.strip() == b""  # the whole watch: no event, no bookmark


def test_a_custom_resource_status_is_written_only_through_its_subresource_and_checked(
    cluster: Cluster,
) -> None:
    """With a CRD's status subresource, a create or an update of the main resource drops or
    keeps `.status` (whatever the body says), and a status write that breaks the CRD's schema
    is refused with 422 Invalid naming the field."""
    from gpuctl.cluster.client import Cluster as Client
    from gpuctl.cluster.errors import Invalid
    from gpuctl.controller import resource
    from tests.controller.scene import ensure_crd

    api = Client.connect(str(cluster.kubeconfig))
    ensure_crd(api)
    body = {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": "conf-status", "namespace": cluster.namespace},
        "spec": {"modelName": "llama2", "gpuCount": 2},
        "status": {"phase": "Scheduled", "assignedNode": "node1", "replacements": 3},
    }
    made = api.create(body)
    assert "status" not in made
    assert "status" not in api.get(resource.KIND, "conf-status", cluster.namespace)

    written = {"phase": "Pending", "retries": 1}
    api.patch(
        resource.KIND, "conf-status", cluster.namespace, {"status": written}, subresource="status"
    )
    changed = {"spec": {"gpuCount": 3}, "status": {"phase": "Failed", "retries": 9}}
    patched = api.patch(resource.KIND, "conf-status", cluster.namespace, changed)
    assert (patched["spec"]["gpuCount"], patched["status"]) == (3, written)
    # kubectl apply of a file with a status block: the same
    path = _write(cluster, "gw.yaml", {**body, "metadata": {"name": "conf-status"}})
    cluster.kubectl("apply", "-f", path)
    assert api.get(resource.KIND, "conf-status", cluster.namespace)["status"] == written

    with pytest.raises(Invalid) as refused:
        api.patch(
            resource.KIND,
            "conf-status",
            cluster.namespace,
            {"status": {"retries": "x"}},
            subresource="status",
        )
    assert refused.value.status == 422
    # the CRD has CEL rules: the API server says it did not check them on an invalid object
    assert [cause.get("field") for cause in refused.value.causes] == ["status.retries", "<nil>"]
    assert refused.value.causes[1]["message"] == (
        'Invalid value: "null": some validation rules were not checked because the object was '
        "invalid; correct the existing errors to complete validation"
    )
    # the status subresource is checked against the status schema: the field named from there
    wording = 'retries: Invalid value: "string": retries in body must be of type integer'
    assert wording in str(refused.value)
    assert api.get(resource.KIND, "conf-status", cluster.namespace)["status"] == written


def _resize_pod(name: str) -> dict[str, Any]:
    amounts = {"cpu": "1", "memory": "1Gi"}  # requests == limits: QoS class Guaranteed
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "nginx:1.27",
                    "resources": {"requests": dict(amounts), "limits": dict(amounts)},
                }
            ],
        },
    }


def test_a_pods_resize_subresource_takes_only_cpu_and_memory_and_keeps_the_qos_class(
    cluster: Cluster,
) -> None:
    """In-place pod resize (`pods/NAME/resize`, 1.33): only the containers' resources are
    taken from the body; the spec changes (and the generation moves), never the status, which
    is the kubelet's; refusals are 422 Invalid naming the rule. A pod whose running containers
    report no resources (a kubelet that cannot resize, as kwok's) is refused."""
    from gpuctl.cluster.client import Cluster as Client
    from gpuctl.cluster.errors import Invalid, NotFound
    from tests.support.sandbox import wait_for

    api = Client.connect(str(cluster.kubeconfig))
    namespace = cluster.namespace
    listed = cluster.kubectl("get", "--raw", "/api/v1", namespaced=False).stdout
    served = next(r for r in yaml.safe_load(listed)["resources"] if r["name"] == "pods/resize")
    assert (served["kind"], sorted(served["verbs"])) == ("Pod", ["get", "patch", "update"])

    api.create(
        {**_resize_pod("conf-resize"), "metadata": {"name": "conf-resize", "namespace": namespace}}
    )

    def running() -> dict[str, Any] | None:
        pod = api.get("Pod", "conf-resize", namespace)
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        return pod if statuses and "running" in statuses[0].get("state", {}) else None

    found = wait_for(running, 60, 0.2, "the pod running")
    assert found is not None
    pod = found

    def report(resources: dict[str, Any] | None) -> None:
        """The container's status as a kubelet reports it: with or without resources."""
        statuses = api.get("Pod", "conf-resize", namespace)["status"]["containerStatuses"]
        statuses[0]["resources"] = resources
        if resources is None:
            del statuses[0]["resources"]
        body = {"status": {"containerStatuses": statuses}}
        api.patch("Pod", "conf-resize", namespace, body, subresource="status")

    def resize(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
        container = {"name": "main", "resources": resources, **extra}
        body = {"metadata": {"labels": {"x": "y"}}, "spec": {"containers": [container]}}
        return api.patch(
            "Pod", "conf-resize", namespace, body, patch_type="strategic", subresource="resize"
        )

    def refusal(resources: dict[str, Any]) -> list[tuple[str, str]]:
        with pytest.raises(Invalid) as refused:
            resize(resources)
        assert refused.value.status == 422
        return [(c.get("field", ""), c.get("message", "")) for c in refused.value.causes]

    two_cpus = {"requests": {"cpu": "2"}, "limits": {"cpu": "2"}}
    report(None)
    assert refusal(two_cpus) == [
        ("spec", "Forbidden: Pod running on node without support for resize")
    ]

    before = pod["spec"]["containers"][0]["resources"]
    report(before)
    done = resize(two_cpus, image="busybox:1.36")
    assert done["metadata"]["uid"] == pod["metadata"]["uid"]
    assert done["metadata"]["generation"] == pod["metadata"]["generation"] + 1
    container = done["spec"]["containers"][0]
    assert container["resources"] == {
        "requests": {"cpu": "2", "memory": "1Gi"},
        "limits": {"cpu": "2", "memory": "1Gi"},
    }
    assert container["image"] == "nginx:1.27"  # only resources are taken
    assert "x" not in (done["metadata"].get("labels") or {})
    assert done["status"]["containerStatuses"][0]["resources"] == before  # the kubelet's
    assert done["status"]["qosClass"] == "Guaranteed"

    assert refusal({"requests": {"cpu": "1500m"}}) == [
        (
            "spec",
            'Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing',
        )
    ]
    assert refusal({"requests": {"memory": "512Mi"}, "limits": {"memory": "512Mi"}}) == [
        (
            "spec.containers[0].resources.limits[memory]",
            "Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer",
        )
    ]
    gpu = {"requests": {"example.com/widget": "1"}, "limits": {"example.com/widget": "1"}}
    assert refusal(gpu) == [("spec", "Forbidden: only cpu and memory resources are mutable")]
    with pytest.raises(NotFound) as missing:
        api.patch("Pod", "conf-resize-none", namespace, {}, subresource="resize")
    assert 'pods "conf-resize-none" not found' in str(missing.value)
    assert (
        api.get("Pod", "conf-resize", namespace)["spec"]["containers"][0]["resources"]
        == (container["resources"])
    )


def test_a_pods_qos_class_counts_cpu_and_memory_only(cluster: Cluster) -> None:
    """GPUs (an extended resource) alone leave a pod BestEffort: the class that a resize may
    not change."""
    api_pod = _resize_pod("conf-qos")
    api_pod["metadata"]["namespace"] = cluster.namespace
    gpus = {"nvidia.com/gpu": "1"}
    api_pod["spec"]["containers"][0]["resources"] = {"requests": gpus, "limits": gpus}
    from gpuctl.cluster.client import Cluster as Client

    made = Client.connect(str(cluster.kubeconfig)).create(api_pod)
    assert made["status"]["qosClass"] == "BestEffort"


def test_events_are_selected_by_the_fields_the_api_server_supports(cluster: Cluster) -> None:
    """involvedObject.kind, .name, .namespace and .uid, reason and type, as `describe job`
    reads a job's events (one list per object, never the namespace's every event)."""
    core: Any = client.CoreV1Api(cluster.api_client())
    where = cluster.namespace

    def event(name: str, kind: str, about: str, uid: str, reason: str, kind_of: str) -> None:
        core.create_namespaced_event(
            where,
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": name},
                "involvedObject": {"kind": kind, "name": about, "namespace": where, "uid": uid},
                "reason": reason,
                "message": name,
                "type": kind_of,
            },
        )

    event("e1", "Pod", "web-0", "u-1", "Unhealthy", "Warning")
    event("e2", "Pod", "web-0", "u-2", "Started", "Normal")  # a pod of the same name, before
    event("e3", "Pod", "web-1", "u-3", "Unhealthy", "Warning")
    event("e4", "Deployment", "web-0", "u-4", "ScalingReplicaSet", "Normal")

    def names(selector: str) -> list[str]:
        found = core.list_namespaced_event(where, field_selector=selector).items
        return sorted(e.metadata.name for e in found)

    assert names("involvedObject.kind=Pod,involvedObject.name=web-0") == ["e1", "e2"]
    assert names("involvedObject.name=web-0,involvedObject.uid=u-1") == ["e1"]
    assert names(f"involvedObject.namespace={where},involvedObject.kind=Deployment") == ["e4"]
    assert names("reason=Unhealthy,type=Warning") == ["e1", "e3"]
    assert names("type!=Warning,involvedObject.kind=Pod") == ["e2"]


def test_a_count_beyond_its_go_type_is_a_bad_request(cluster: Cluster) -> None:
    """Deployment.spec.replicas is an int32, Job.spec.completions too: the API server's decoder
    refuses 2^31 (400 BadRequest: the object "cannot be handled"), and nothing is created."""
    too_many = _deployment("conf-int32", replicas=2**31)
    result = cluster.kubectl("create", "-f", _write(cluster, "d.yaml", too_many), check=False)
    assert result.returncode != 0
    assert "BadRequest" in result.stderr
    assert "cannot unmarshal number 2147483648" in result.stderr
    assert "of type int32" in result.stderr
    job = _job("conf-int32-job")
    job["spec"]["completions"] = 99999999999
    result = cluster.kubectl("create", "-f", _write(cluster, "j.yaml", job), check=False)
    assert "cannot unmarshal number 99999999999" in result.stderr
    gone = cluster.kubectl("get", "deployment/conf-int32", "job/conf-int32-job", check=False)
    assert gone.stderr.count("NotFound") == 2


def test_a_number_no_go_type_can_hold_is_a_bad_request(sandbox: SandboxCluster) -> None:
    """A JSON number beyond float64 (a 4,001-digit integer, 1.0e400) or NaN is refused by the
    decoder, whatever field it is in; Python's json would take them, and the sandbox would
    then serve lists no client can read."""
    written = json.dumps(_deployment("conf-huge"))
    for number in ("1" + "0" * 4000, "1.0e400", "NaN"):
        text = written.replace('"replicas": 1', f'"replicas": {number}')
        request = urllib.request.Request(
            f"{sandbox.url}/apis/apps/v1/namespaces/{sandbox.namespace}/deployments",
            data=text.encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 400, number[:10]
        assert "cannot be handled as a Deployment" in json.loads(refused.value.read())["message"]
    assert sandbox.kubectl("get", "deployment/conf-huge", check=False).returncode != 0
