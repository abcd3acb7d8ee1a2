"""Host paths over the REST API: a token-file user mounts a host path (`storage.workdirs`) only at
or under a prefix the admin allows (`serve --allow-host-path`), on every route that creates
workloads, and only in a namespace whose Pod Security level admits hostPath pods (a quota's
`pod_security: privileged`); admins, and the CLI, are the cluster's to decide."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuctl.server.app import create_app
from gpuctl.server.auth import Policy, Tokens, allowed_prefixes, normal_host_path, under
from tests.conftest import GPUCTL

from .conftest import QUOTA, Api, training

NODE_ROOT = ["/", "/var/lib/kubelet", "/etc", "/var/run/containerd/containerd.sock"]


def with_workdirs(name: str, paths: list[str]) -> str:
    listed = "".join(f"\n    - path: {path}" for path in paths)
    return training(name) + f"storage:\n  workdirs:{listed}\n"


PRIVILEGED_QUOTA = QUOTA.replace("users:", "pod_security: privileged\nusers:")


@contextmanager
def allowing_api(api: Api, token_file: Path, quota: str) -> Iterator[Api]:
    """The API of `api`'s sandbox with `--allow-host-path /data --allow-host-path /scratch/`,
    once an admin created `quota`."""
    policy = Policy(allowed_prefixes(["/data", "/scratch/"]))
    app = create_app(api.env.cluster, Tokens.load(str(token_file)), policy=policy)
    with TestClient(app, raise_server_exceptions=False) as client:
        made = Api(client, api.env)
        assert made.call("admin", "POST", "/quotas", json={"yamlContent": quota}).status_code == 201
        yield made


@pytest.fixture
def allowing(api: Api, token_file: Path) -> Iterator[Api]:
    """`allowing_api` where the quota lets its namespaces run hostPath pods."""
    with allowing_api(api, token_file, PRIVILEGED_QUOTA) as made:
        yield made


def _jobs(api: Api, namespace: str) -> list[str]:
    return [job["metadata"]["name"] for job in api.env.cluster.list("Job", namespace)]


def _volumes(api: Api, name: str, namespace: str) -> list[dict[str, Any]]:
    job = api.env.cluster.get("Job", name, namespace)
    volumes: list[dict[str, Any]] = job["spec"]["template"]["spec"]["volumes"]
    return volumes


def test_a_user_mounts_no_host_path_by_default(api: Api) -> None:
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    answer = api.call("alice", "POST", "/jobs", json={"yamlContent": with_workdirs("r", NODE_ROOT)})
    assert answer.status_code == 403, answer.text
    body = answer.json()
    assert body["error"] == "HostPathNotAllowed"
    assert body["field"] == "storage.workdirs[0].path"
    # every refused path, each with its place in the spec, its field and the rule
    assert len(body["problems"]) == 4
    for index, (path, problem) in enumerate(zip(NODE_ROOT, body["problems"], strict=True)):
        assert problem.startswith(f"yamlContent:{14 + index}:")
        assert f"storage.workdirs[{index}].path: host path {path} is not allowed for alice" in (
            problem
        )
        assert "(now: none)" in problem
        assert "gpuctl serve --allow-host-path PREFIX" in problem
    assert _jobs(api, "alice") == []  # nothing was written


def test_the_batch_refuses_each_item_that_mounts_a_host_path(api: Api) -> None:
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    texts = [with_workdirs("b0", ["/etc"]), training("b1"), with_workdirs("b2", ["/root/.ssh"])]
    answer = api.call("bob", "POST", "/jobs/batch", json={"yamlContents": texts})
    assert answer.status_code == 207, answer.text
    body = answer.json()
    assert body["success"] == [{"jobId": "bob.b1", "name": "b1"}]
    refused = {item["index"]: item for item in body["failed"]}
    assert sorted(refused) == [0, 2]
    assert refused[2]["error"] == "HostPathNotAllowed"
    assert refused[2]["field"] == "storage.workdirs[0].path"
    assert "host path /root/.ssh is not allowed for bob" in refused[2]["message"]
    assert _jobs(api, "bob") == ["b1"]


def test_allowed_prefixes_hold_their_subpaths_and_nothing_else(allowing: Api) -> None:
    fine = ["/data", "/data/alice/ckpt", "//data/./x/", "/scratch"]
    made = allowing.call("alice", "POST", "/jobs", json={"yamlContent": with_workdirs("ok", fine)})
    assert made.status_code == 201, made.text
    paths = [v["hostPath"]["path"] for v in _volumes(allowing, "ok", "alice") if "hostPath" in v]
    assert paths == fine
    for name, path in (
        ("sibling", "/database"),  # a prefix is a whole path component
        ("climb", "/data/../etc"),  # no way out of a prefix
        ("climb-more", "/data/x/../../var/lib/kubelet"),
        ("parent", "/"),
        ("near", "/scratc"),
    ):
        answer = allowing.call(
            "alice", "POST", "/jobs", json={"yamlContent": with_workdirs(name, [path])}
        )
        assert answer.status_code == 403, (path, answer.text)
        assert answer.json()["field"] == "storage.workdirs[0].path"
        assert f"host path {path} is not" in answer.json()["message"]
        assert "/data, /scratch" in answer.json()["message"] or ".." in answer.json()["message"]
    assert _jobs(allowing, "alice") == ["ok"]


def test_an_allowed_host_path_in_a_baseline_namespace_is_unschedulable(
    api: Api, token_file: Path
) -> None:
    """The namespace would refuse every pod of the job: 422 before anything is written, and
    allowPending=true does not accept it (no wait lets the cluster create the pods)."""
    with allowing_api(api, token_file, QUOTA) as baseline:
        text = with_workdirs("rooted", ["/data"])
        for query in ("", "?allowPending=true"):
            answer = baseline.call("alice", "POST", f"/jobs{query}", json={"yamlContent": text})
            assert answer.status_code == 422, answer.text
            body = answer.json()
            assert body["error"] == "Unschedulable"
            assert body["field"] == "storage.workdirs"
            assert (
                'violates PodSecurity "baseline:latest": hostPath volumes (volume "workdir-0")'
            ) in body["message"]
            hint = "remove storage.workdirs, or ask an admin for a quota with pod_security: "
            assert f"({hint}privileged)" in body["message"]
            assert "allowPending" not in body["message"]
            assert _jobs(baseline, "alice") == []


def test_admins_mount_what_the_cluster_lets_them(api: Api) -> None:
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": with_workdirs("a", ["/etc"])})
    assert answer.status_code == 201, answer.text
    assert _volumes(api, "a", "default")[0]["hostPath"]["path"] == "/etc"


def test_host_path_normalisation() -> None:
    assert normal_host_path("//data/./x/") == "/data/x"
    assert normal_host_path("/") == "/"
    assert normal_host_path("/data/../etc") is None
    assert normal_host_path("data") is None
    assert under("/data/x", "/data") and under("/data", "/data") and under("/etc", "/")
    assert not under("/database", "/data")


def test_serve_refuses_an_allowed_prefix_that_is_not_absolute(token_file: Path) -> None:
    for bad in ("data", "/data/../etc"):
        done = subprocess.run(
            [str(GPUCTL), "serve", "--tokens", str(token_file), "--allow-host-path", bad],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            f"error: --allow-host-path {bad}: give an absolute path without '..' (e.g. /data)"
        )


def _pod_security(api: Api, namespace: str) -> dict[str, str]:
    labels = api.env.cluster.get("Namespace", namespace, None)["metadata"]["labels"]
    return {k: v for k, v in labels.items() if k.startswith("pod-security.kubernetes.io/")}


def test_a_quotas_namespaces_enforce_pod_security_baseline(api: Api) -> None:
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    expected = {
        f"pod-security.kubernetes.io/{mode}{suffix}": value
        for mode in ("enforce", "warn", "audit")
        for suffix, value in (("", "baseline"), ("-version", "latest"))
    }
    assert _pod_security(api, "alice") == expected
    assert _pod_security(api, "bob") == expected


def test_a_quota_chooses_its_namespaces_pod_security_level(api: Api) -> None:
    text = QUOTA.replace("users:", "pod_security: restricted\nusers:").replace("bob", "carol")
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": text}).status_code == 201
    assert _pod_security(api, "carol")["pod-security.kubernetes.io/enforce"] == "restricted"
    wrong = QUOTA.replace("users:", "pod_security: none\nusers:").replace("bob", "dave")
    answer = api.call("admin", "POST", "/quotas", json={"yamlContent": wrong})
    assert answer.status_code == 400, answer.text
    assert answer.json()["field"] == "pod_security"
    refused = api.call("alice", "POST", "/quotas", json={"yamlContent": text})
    assert refused.status_code == 403  # as every quota write: admins only
