"""The RBAC the real-cluster guide gives a user covers what gpuctl calls: a user's session on the
sandbox (create, apply, diff, get, describe, logs, pause, resume, delete of every job kind in
their namespace, and the cluster-wide reads of get nodes, get pools, describe node), each call
in the sandbox's request log allowed by the guide's Role in the namespace, its ClusterRole for
what is cluster-wide, or its Role in gpuctl-system for the pools' records. On the local real
control plane (RBAC on), a service account bound to those roles does the same with gpuctl,
and no check is left out for want of a right."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuctl import constants as c
from gpuctl.sandbox import SandboxConfig
from gpuctl.sandbox.faults import Request
from tests.conftest import EXAMPLES, GPUCTL, REPO
from tests.kube import controlplane, session
from tests.support.sandbox import Cluster as TestCluster
from tests.support.sandbox import SandboxCluster

GUIDE = (REPO / "docs" / "guides" / "real-cluster.md").read_text(encoding="utf-8")
USER_NAMESPACE = "team-a"  # the guide's


def documented_roles() -> dict[str, dict[str, Any]]:
    """The guide's Roles and ClusterRoles, by name."""
    blocks = re.findall(r"```yaml\n(.*?)```", GUIDE, re.S)
    documents = [doc for block in blocks for doc in yaml.safe_load_all(block) if doc]
    return {
        doc["metadata"]["name"]: doc
        for doc in documents
        if doc.get("kind") in ("Role", "ClusterRole")
    }


def _group(request: Request) -> str:
    """The API group of a request's path: "" for /api/v1, else the segment after /apis/."""
    return "" if request.path.startswith("/api/") else request.path.split("/")[2]


def allows(role: dict[str, Any], request: Request) -> bool:
    return any(
        _group(request) in rule["apiGroups"]
        and request.resource in rule["resources"]
        and request.verb in rule["verbs"]
        for rule in role["rules"]
    )


def without_workdirs(name: str) -> str:
    """An example without its host paths (which Pod Security baseline refuses to users)."""
    text = (EXAMPLES / name).read_text() + "\n"
    return re.sub(r"\nstorage:\n(?:(?:  .*)?\n)*", "\n", text)


@pytest.fixture
def user_calls(make_sandbox: Callable[..., SandboxCluster]) -> list[Request]:
    """The API calls of a user's session in their namespace, on the example nodes with the
    example pools (made by an administrator before the session)."""
    nodes = SandboxConfig.load(EXAMPLES / "sandbox" / "cluster.yaml").nodes
    sandbox = make_sandbox(SandboxConfig.fast(nodes=nodes, job_run_seconds=3600), USER_NAMESPACE)

    def gpuctl(*args: str, stdin: str | None = None, code: int = 0) -> None:
        done = subprocess.run(
            [str(GPUCTL), *args, "--kubeconfig", str(sandbox.kubeconfig)],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=120,
            check=False,
        )
        assert done.returncode == code, f"gpuctl {' '.join(args)}:\n{done.stdout}{done.stderr}"

    gpuctl("apply", "-f", "examples/pool.yaml", "-f", "examples/pool-resource.yaml")
    gpuctl("apply", "-f", "examples/pool-dev.yaml")
    sandbox.requests.clear()
    specs = ["training-placement.yaml", "inference.yaml", "compute.yaml", "notebook.yaml"]
    specs += ["inference-autoscaling.yaml"]
    for name in specs:
        gpuctl("create", "-n", USER_NAMESPACE, "-f", "-", stdin=without_workdirs(name))
    gpuctl("get", "jobs", "-n", USER_NAMESPACE, "--pods")
    gpuctl("describe", "job", "-n", USER_NAMESPACE, "llama3-8b-inference")
    gpuctl("logs", "-n", USER_NAMESPACE, "bert-finetune-binpack", "--tail", "2")
    gpuctl("pause", "-n", USER_NAMESPACE, "llama3-8b-inference")
    gpuctl("resume", "-n", USER_NAMESPACE, "llama3-8b-inference")
    changed = without_workdirs("inference.yaml").replace("replicas: 2", "replicas: 3")
    gpuctl("diff", "-n", USER_NAMESPACE, "-f", "-", stdin=changed, code=1)  # 1: it differs
    gpuctl("apply", "-n", USER_NAMESPACE, "-f", "-", stdin=changed)
    smaller = without_workdirs("training-placement.yaml").replace("16Gi", "8Gi")
    gpuctl("apply", "-n", USER_NAMESPACE, "-f", "-", stdin=smaller)  # a Job is replaced
    gpuctl("get", "nodes")
    gpuctl("get", "pools")
    gpuctl("describe", "node", "gpu-a100-1")
    for name in specs:
        gpuctl("delete", "-n", USER_NAMESPACE, "-f", "-", "--wait", stdin=without_workdirs(name))
    return sandbox.requests.api_calls()


def test_the_guides_roles_allow_every_call_of_a_users_session(user_calls: list[Request]) -> None:
    roles = documented_roles()
    user, reader = roles["gpuctl-user"], roles["gpuctl-reader"]
    pools = roles["gpuctl-pools-reader"]
    assert user["metadata"]["namespace"] == USER_NAMESPACE
    assert pools["metadata"]["namespace"] == c.SYSTEM_NAMESPACE
    scopes = {USER_NAMESPACE: user, c.SYSTEM_NAMESPACE: pools, "": reader}
    refused = sorted(
        {
            f"{r.verb} {r.resource} in {r.namespace or 'the cluster'}"
            for r in user_calls
            if r.namespace not in scopes or not allows(scopes[r.namespace], r)
        }
    )
    assert refused == []
    made = {(r.namespace, r.resource) for r in user_calls}
    assert {(USER_NAMESPACE, "jobs"), (c.SYSTEM_NAMESPACE, "configmaps"), ("", "nodes")} <= made


def test_a_call_the_roles_do_not_name_is_caught() -> None:
    user = documented_roles()["gpuctl-user"]
    request = Request("POST", f"/api/v1/namespaces/{USER_NAMESPACE}/pods", "", "create", "pods")
    assert not allows(user, request)
    request = Request("GET", f"/api/v1/namespaces/{USER_NAMESPACE}/pods", "", "list", "pods")
    assert allows(user, request)
    wrong_group = Request(
        "GET", f"/apis/batch/v1/namespaces/{USER_NAMESPACE}/pods", "", "list", "pods"
    )
    assert not allows(user, wrong_group)


# examples/inference.yaml in no pool and of any GPU type: the local plane's pools are its tests'
INFERENCE = re.sub(r"\n  (pool|gpu-type):.*", "", without_workdirs("inference.yaml"))


@pytest.mark.kube
def test_the_guides_roles_are_enough_where_rbac_decides(tmp_path: Path) -> None:
    """On the local real control plane (RBAC on): a service account bound to the guide's Role,
    ClusterRole and gpuctl-system Role creates, reads, pauses, resumes and deletes jobs with
    gpuctl, and no check is left out for want of a right."""
    reason = controlplane.unavailable_reason()
    if reason:
        pytest.skip(reason)
    with session.local_cluster(tmp_path) as local, ExitStack() as stack:
        kubeconfig = _bound_service_account(local, stack, tmp_path)

        def gpuctl(*args: str, stdin: str | None = None) -> str:
            done = subprocess.run(
                [str(GPUCTL), *args, "--kubeconfig", str(kubeconfig)],
                input=stdin,
                capture_output=True,
                text=True,
                cwd=REPO,
                timeout=180,
                check=False,
            )
            said = done.stdout + done.stderr
            assert done.returncode == 0, f"gpuctl {' '.join(args)}:\n{said}"
            assert "not checked" not in said and "may not" not in said, said
            return said

        gpuctl("create", "-f", "-", stdin=without_workdirs("training-placement.yaml"))
        gpuctl("create", "-f", "-", stdin=INFERENCE)  # the shared plane has no pools
        gpuctl("get", "jobs", "--pods")
        gpuctl("describe", "job", "llama3-8b-inference")
        gpuctl("pause", "llama3-8b-inference")
        gpuctl("resume", "llama3-8b-inference")
        changed = INFERENCE.replace("replicas: 2", "replicas: 1")
        gpuctl("apply", "-f", "-", stdin=changed)
        gpuctl("get", "nodes")
        gpuctl("get", "pools")
        gpuctl("delete", "-f", "-", "--wait", stdin=without_workdirs("training-placement.yaml"))
        gpuctl("delete", "-f", "-", "--wait", stdin=changed)


def _bound_service_account(local: TestCluster, stack: ExitStack, tmp_path: Path) -> Path:
    """A kubeconfig of a service account `user` of the test's namespace (its context's
    namespace) bound to the guide's roles (the cluster-wide ones renamed for the test, and
    removed after it)."""
    namespace, roles = local.namespace, documented_roles()
    local.kubectl("create", "serviceaccount", "user")
    user = {**roles["gpuctl-user"], "metadata": {"name": "gpuctl-user", "namespace": namespace}}
    local.kubectl("apply", "-f", "-", input=json.dumps(user))
    who = f"--serviceaccount={namespace}:user"
    local.kubectl("create", "rolebinding", "user-gpuctl", "--role=gpuctl-user", who)
    local.kubectl("create", "namespace", c.SYSTEM_NAMESPACE, namespaced=False, check=False)
    name = f"gpuctl-reader-{namespace}"
    reader = {**roles["gpuctl-reader"], "metadata": {"name": name}}
    pools = {**roles["gpuctl-pools-reader"], "metadata": {"name": name}}
    pools["metadata"]["namespace"] = c.SYSTEM_NAMESPACE
    system = ("-n", c.SYSTEM_NAMESPACE)
    for kind, role, where in (("clusterrole", reader, ()), ("role", pools, system)):
        local.kubectl("apply", "-f", "-", input=json.dumps(role), namespaced=False)
        binding = f"{kind}binding"
        local.kubectl("create", binding, name, f"--{kind}={name}", who, *where, namespaced=False)
        for made in (binding, kind):
            stack.callback(
                local.kubectl, "delete", made, name, *where, namespaced=False, check=False
            )
    token = local.kubectl("create", "token", "user", "--duration=10m").stdout.strip()
    config = yaml.safe_load(local.kubeconfig.read_text())
    config["users"][0]["user"] = {"token": token}
    config["contexts"][0]["context"]["namespace"] = namespace  # where its commands act
    path = tmp_path / "user-kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path
