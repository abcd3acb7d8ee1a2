"""Which GPUWorkloads `gpuctl controller run` reconciles: those of every namespace by default
(as an installed operator is expected to), those of one with `--namespace`. On the sandbox
(the local real control plane is shared by parallel tests, whose workloads a controller of
every namespace would take)."""

from __future__ import annotations

from typing import Any

from gpuctl.controller import resource
from tests.conftest import REPO, Env
from tests.controller.conftest import workload
from tests.controller.scene import run_controller
from tests.support.sandbox import SandboxCluster, wait_for

EXAMPLE = REPO / "examples" / "controller" / "gpuworkload.yaml"
EXAMPLE_NAME = "my-inference-workload"


def phase(env: Env, name: str, namespace: str) -> Any:
    found = env.cluster.find(resource.KIND, name, namespace) or {}
    return (found.get("status") or {}).get("phase")


def in_namespace(name: str, namespace: str) -> dict[str, Any]:
    obj = workload(name, 1)
    obj["metadata"]["namespace"] = namespace
    return obj


def test_by_default_the_workloads_of_every_namespace_are_placed(
    crd_env: Env, sandbox: SandboxCluster
) -> None:
    crd_env.cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    with run_controller(sandbox.kubeconfig, sandbox.workdir, "all", ("--lease-namespace", "team")):
        sandbox.kubectl("apply", "-f", str(EXAMPLE))  # no namespace
        crd_env.cluster.create(in_namespace("theirs", "team"))
        wanted = [(EXAMPLE_NAME, "default"), ("theirs", "team")]
        wait_for(
            lambda: (
                [phase(crd_env, name, namespace) for name, namespace in wanted]
                == ["Scheduled", "Scheduled"]
            ),
            timeout=20,
            what=f"{wanted} Scheduled",
        )
    assert crd_env.cluster.find("Lease", resource.NAME, "team") is not None


def test_namespace_narrows_it_to_one(crd_env: Env, sandbox: SandboxCluster) -> None:
    crd_env.cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    options = ("--namespace", "team")
    with run_controller(sandbox.kubeconfig, sandbox.workdir, "one", options) as running:
        crd_env.cluster.create(in_namespace("outside", "default"))
        crd_env.cluster.create(in_namespace("inside", "team"))
        wait_for(lambda: phase(crd_env, "inside", "team") == "Scheduled", what="inside placed")
        assert phase(crd_env, "outside", "default") is None
        assert "reconciling the GPUWorkloads of namespace team" in running.output()
    assert crd_env.cluster.find("Lease", resource.NAME, "team") is not None
