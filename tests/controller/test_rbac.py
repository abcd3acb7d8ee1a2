"""`gpuctl controller install`, then the controller under the installed ServiceAccount's own
credentials, on the sandbox and on the real control plane (RBAC on): the document's example
ends Scheduled with its Job on the right node, no request is refused, and every grant of the
installed roles is used (the real API server's audit log, the sandbox's request log, list
what the controller asked).

On the real control plane the credentials are a TokenRequest token of the ServiceAccount; the
sandbox authorizes everything, so there the token only marks the controller's requests."""

from __future__ import annotations

import contextlib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpuctl import constants as c
from gpuctl.cluster.errors import NotFound
from gpuctl.controller import resource
from gpuctl.inventory.kueue import served_kueue_version
from tests.conftest import GPUCTL, REPO
from tests.controller.scene import MANUAL_CONDITIONS, Scene
from tests.kube.session import LocalCluster
from tests.support.sandbox import SandboxCluster, wait_for

EXAMPLE = REPO / "examples" / "controller" / "gpuworkload.yaml"
SANDBOX_TOKEN = "gpu-orchestrator-token"


@dataclass(frozen=True)
class Call:
    """One API request the controller made."""

    resource: str  # plural, with /subresource
    verb: str
    namespace: str
    code: int


def install(scene: Scene) -> str:
    done = subprocess.run(
        [
            str(GPUCTL),
            "controller",
            "install",
            "--kubeconfig",
            str(scene.cluster.kubeconfig),
            "--namespace",
            scene.namespace,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def kubeconfig_with_token(admin: Path, token: str, path: Path) -> Path:
    config: dict[str, Any] = yaml.safe_load(admin.read_text())
    for user in config["users"]:
        user["user"] = {"token": token}
    path.write_text(yaml.safe_dump(config))
    return path


def service_account_token(scene: Scene) -> str:
    if isinstance(scene.cluster, SandboxCluster):
        return SANDBOX_TOKEN
    created = scene.cluster.kubectl("create", "token", resource.NAME, "--duration", "1h")
    return created.stdout.strip()


def controller_calls(scene: Scene) -> list[Call]:
    cluster = scene.cluster
    if isinstance(cluster, SandboxCluster):
        return [
            Call(r.resource, r.verb, r.namespace, r.code)
            for r in cluster.requests.api_calls()
            if r.token == SANDBOX_TOKEN
        ]
    assert isinstance(cluster, LocalCluster)
    user = f"system:serviceaccount:{scene.namespace}:{resource.NAME}"
    calls = []
    for line in cluster.audit_log.read_text().splitlines():
        event = yaml.safe_load(line)
        ref = event.get("objectRef")
        if (event.get("user") or {}).get("username") != user or not ref:
            continue
        plural = ref["resource"] + (f"/{ref['subresource']}" if ref.get("subresource") else "")
        code = (event.get("responseStatus") or {}).get("code", 0)
        calls.append(Call(plural, event["verb"], ref.get("namespace", ""), code))
    return calls


def granted(rules: Any, call: Call) -> bool:
    return any(call.resource in rule["resources"] and call.verb in rule["verbs"] for rule in rules)


def remove_cluster_wide_objects(scene: Scene) -> None:
    """The installed ClusterRole and ClusterRoleBinding (the shared CRD stays)."""
    for kind in ("ClusterRoleBinding", "ClusterRole"):
        with contextlib.suppress(NotFound):
            scene.client.delete(kind, resource.NAME, propagation="Background")


def test_the_installed_controller_places_the_example_with_exactly_the_granted_calls(
    scene: Scene,
) -> None:
    # in a pool: the create verb reads its record (a GPU cap, whether Kueue queues it)
    big = scene.add_node("big", 8, labels={c.Labels.POOL: f"{scene.namespace}-team"})
    flaky = scene.add_node("flaky", 5, cpu="1", labels=MANUAL_CONDITIONS)
    scene.add_node("small", 2)
    try:
        printed = install(scene)
        assert f"customresourcedefinition.apiextensions.k8s.io/{resource.CRD_NAME}" in printed
        assert f"clusterrole.rbac.authorization.k8s.io/{resource.NAME} created" in printed
        assert f"deployment.apps/{resource.NAME} created" in printed
        assert "namespace/" not in printed  # the test's namespace is used, not taken over
        assert scene.cluster.kubectl("get", "gpuworkloads").returncode == 0
        again = install(scene).splitlines()  # through the apply verb: nothing to change
        established = f"{resource.CRD_NAME} established: kubectl get {resource.PLURAL}"
        assert [line for line in again if not line.endswith(" unchanged")] == [established]
        token = service_account_token(scene)
        config = kubeconfig_with_token(
            scene.cluster.kubeconfig, token, scene.cluster.workdir / "controller.kubeconfig"
        )
        if isinstance(scene.cluster, SandboxCluster):
            scene.cluster.requests.clear()
        with scene.controller(kubeconfig=config) as running:
            exercise(scene, big, flaky)
            wait_for(
                lambda: any(c.resource == "leases" and c.verb == "update" for c in
                            controller_calls(scene)),
                timeout=15,
                what="a lease renewal",
            )  # fmt: skip
            log = running.output()
        assert "403" not in log and "Forbidden" not in log, log
        check_calls(scene, controller_calls(scene))
    finally:
        remove_cluster_wide_objects(scene)


def exercise(scene: Scene, big: str, flaky: str) -> None:
    """Every kind of call: a placement (the example), a placement whose node goes NotReady
    before its pod can start (placed again), and one that retries and fails."""
    scene.cluster.kubectl("apply", "-f", str(EXAMPLE))
    status = scene.wait_phase("my-inference-workload", "Scheduled")
    assert (status["assignedNode"], status["jobName"]) == (big, "my-inference-workload")
    assert scene.pod_node("my-inference-workload") == big

    scene.create("moved", 5, "binpack", cpu="4")  # flaky: 5 free, but its CPU is too small
    assert scene.wait_phase("moved", "Scheduled")["assignedNode"] == flaky
    scene.make_not_ready(flaky)
    wait_for(
        lambda: (
            scene.status("moved").get("replacements") == 1
            and scene.status("moved").get("phase") == "Scheduled"
        ),
        timeout=30,
        what=f"moved placed again (status now {scene.status('moved')})",
    )
    assert scene.status("moved")["assignedNode"] == big

    scene.create("too-big", 9, retryPolicy={"maxRetries": 1, "backoffSeconds": 1})
    assert scene.wait_phase("too-big", "Failed", timeout=20)["reason"] == "RetriesExhausted"
    assert scene.jobs() == ["moved", "my-inference-workload"]


def check_calls(scene: Scene, calls: list[Call]) -> None:
    """Every call granted, and every grant used; the Kueue grants (a LocalQueue made for a Job
    queued in a pool that is a ClusterQueue) are used only on a cluster with Kueue, which
    these two are not (the kube tests with Kueue run the controller as an administrator)."""
    assert calls, "no request of the controller was recorded"
    assert served_kueue_version(scene.client) is None
    refused = [call for call in calls if call.code in (401, 403)]
    assert not refused, f"refused: {refused}"
    cluster_rules = (*resource.CLUSTER_RULES, *resource.KUEUE_RULES)
    for call in calls:
        in_namespace = call.namespace == scene.namespace and granted(
            resource.NAMESPACED_RULES, call
        )
        assert in_namespace or granted(cluster_rules, call), f"not granted: {call}"
    used = {(call.resource, call.verb) for call in calls}
    grants = {
        (name, verb)
        for rule in (*resource.NAMESPACED_RULES, *resource.CLUSTER_RULES)
        for name in rule["resources"]
        for verb in rule["verbs"]
    }
    assert grants - used == set(), "granted but never used"
    assert used - grants == set(), "used but not granted"
