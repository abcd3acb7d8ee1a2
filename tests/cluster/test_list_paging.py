"""Lists in pages (`limit` and `continue`): the sandbox serves a continued list from the
snapshot of its first page, as the real API server does, and answers 410 Expired when that
snapshot is gone; gpuctl's client pages 500 objects at a time and lists again in one piece
after a 410 on a continue token, as client-go's pager does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuctl.cluster import client as client_module
from gpuctl.cluster.client import Cluster
from gpuctl.sandbox import SandboxConfig
from tests.support import sandbox as testing
from tests.support.sandbox import SandboxCluster


def _configmap(name: str, value: str = "1") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"v": value},
    }


def _raw_list(sandbox: SandboxCluster, query: str) -> tuple[int, dict[str, Any]]:
    import urllib.error
    import urllib.request

    url = f"{sandbox.url}/api/v1/namespaces/default/configmaps?{query}"
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _fill(cluster: Cluster, names: list[str], namespace: str = "default") -> None:
    for name in names:
        cluster.create({**_configmap(name), "metadata": {"name": name, "namespace": namespace}})


def test_a_continued_list_shows_its_first_pages_snapshot(sandbox: SandboxCluster) -> None:
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    _fill(cluster, ["cm-1", "cm-2", "cm-3", "cm-4"])
    code, first = _raw_list(sandbox, "limit=2")
    assert code == 200 and [i["metadata"]["name"] for i in first["items"]] == ["cm-1", "cm-2"]
    assert first["metadata"]["remainingItemCount"] == 2
    cluster.delete("ConfigMap", "cm-3", "default")
    cluster.patch("ConfigMap", "cm-4", "default", {"data": {"v": "changed"}})
    _fill(cluster, ["cm-2a"])
    token = first["metadata"]["continue"]
    code, rest = _raw_list(sandbox, f"limit=2&continue={token}")
    assert code == 200
    assert rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert [i["metadata"]["name"] for i in rest["items"]] == ["cm-3", "cm-4"]
    assert rest["items"][1]["data"] == {"v": "1"}  # as it was when the list began
    assert "continue" not in rest["metadata"]


def test_an_expired_continue_token_is_410(make_sandbox: Any) -> None:
    sandbox = make_sandbox(SandboxConfig.fast(watch_history=2))
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    _fill(cluster, ["cm-1", "cm-2", "cm-3"])
    code, first = _raw_list(sandbox, "limit=1")
    for round_ in range(10):  # many more changes than the history keeps
        cluster.patch("ConfigMap", "cm-1", "default", {"data": {"v": str(round_)}})
    code, gone = _raw_list(sandbox, f"limit=1&continue={first['metadata']['continue']}")
    assert code == 410 and gone["reason"] == "Expired"
    assert "continue parameter is too old" in gone["message"]


def test_the_client_pages_and_lists_whole_after_a_410(
    sandbox: SandboxCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_module, "PAGE_SIZE", 2)
    cluster = Cluster.connect(str(sandbox.kubeconfig))
    names = [f"cm-{i}" for i in range(5)]
    _fill(cluster, names)
    sandbox.requests.clear()
    items, version = cluster.list_versioned("ConfigMap", "default")
    assert [i["metadata"]["name"] for i in items] == names and version.isdigit()
    queries = [r.query for r in sandbox.requests.matching(verb="list", resource="configmaps")]
    assert len(queries) == 3 and all("limit=2" in q for q in queries)
    assert ["continue=" in q for q in queries] == [False, True, True]

    sandbox.faults.fail(verb="list", resource="configmaps", status=410, after=1, times=1)
    sandbox.requests.clear()
    assert [i["metadata"]["name"] for i in cluster.list("ConfigMap", "default")] == names
    queries = [r.query for r in sandbox.requests.matching(verb="list", resource="configmaps")]
    assert len(queries) == 3 and "continue=" in queries[1] and "limit=" not in queries[2]


def test_paged_lists_and_a_watch_from_their_version(
    cluster: testing.Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same on the sandbox and the real API server: pages of 2 add up to the whole list,
    and a watch from the list's resourceVersion sees exactly the changes made after it."""
    monkeypatch.setattr(client_module, "PAGE_SIZE", 2)
    gpuctl = Cluster.connect(str(cluster.kubeconfig))
    names = [f"page-{i}" for i in range(5)]
    _fill(gpuctl, names, cluster.namespace)
    items, version = gpuctl.list_versioned("ConfigMap", cluster.namespace)
    assert sorted(i["metadata"]["name"] for i in items if i["metadata"]["name"] in names) == names
    _fill(gpuctl, ["page-after"], cluster.namespace)
    events = gpuctl.watch("ConfigMap", cluster.namespace, resource_version=version)
    kind, obj = next(e for e in events if e[0] != "BOOKMARK")
    assert (kind, obj["metadata"]["name"]) == ("ADDED", "page-after")
