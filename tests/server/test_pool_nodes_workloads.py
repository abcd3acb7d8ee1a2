"""The GPUWorkload controller's workloads over REST, read-only: who may read which. On the
sandbox only: it reads the cluster before and after the GPUWorkload CRD is installed, and the
CRD is the whole cluster's (on the shared control plane another test may have installed it).
Moving nodes in and out of a pool, on both clusters: test_pool_nodes.py."""

from __future__ import annotations

import contextlib
from typing import Any

from gpuctl.cluster.errors import AlreadyExists
from gpuctl.controller import resource

from .conftest import QUOTA, Api


def _workload(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"modelName": f"model-{name}", "gpuCount": 2},
    }


def test_workloads_are_listed_per_namespace_for_users_and_all_for_admins(api: Api) -> None:
    cluster = api.env.cluster
    absent = api.call("admin", "GET", "/workloads")
    assert absent.status_code == 200, absent.text
    assert absent.json()["installed"] is False
    assert absent.json()["items"] == []

    with contextlib.suppress(AlreadyExists):
        cluster.create(resource.crd())
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201
    cluster.create(_workload("llama", "alice"))
    cluster.create(_workload("bert", "bob"))
    status = {"phase": "Scheduled", "assignedNode": "gpu-a100-0", "message": "on gpu-a100-0"}
    cluster.patch_status("GPUWorkload", "bert", "bob", status)

    def names(who: str) -> list[str]:
        answer = api.call(who, "GET", "/workloads")
        assert answer.status_code == 200, answer.text
        assert answer.json()["installed"] is True
        return [f"{row['namespace']}/{row['name']}" for row in answer.json()["items"]]

    assert names("admin") == ["alice/llama", "bob/bert"]
    assert names("alice") == ["alice/llama"]
    assert names("bob") == ["bob/bert"]
    row = api.call("alice", "GET", "/workloads").json()["items"][0]
    assert row == {
        "namespace": "alice",
        "name": "llama",
        "modelName": "model-llama",
        "gpuCount": 2,
        "phase": "Pending",
        "node": None,
        "jobName": None,
        "retries": 0,
        "message": "",
        "createdAt": row["createdAt"],
    }
    bert = api.call("bob", "GET", "/workloads").json()["items"][0]
    assert (bert["phase"], bert["node"], bert["message"]) == (
        "Scheduled",
        "gpu-a100-0",
        "on gpu-a100-0",
    )
    assert api.call(None, "GET", "/workloads").status_code == 401
    assert api.call("alice", "GET", "/workloads?namespace=bob").json()["items"][0]["name"] == (
        "llama"
    )
