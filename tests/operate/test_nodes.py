"""`get nodes`, `describe node`, `label node`, `get label` against the sandbox: GPU use from the
pods on each node, filters, every output format, colour, and the label rules of seed 004
(g8s.host/ keys only, --overwrite for a different value, one line per node)."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuctl.cli import table
from gpuctl.cli.views import nodes as node_views
from gpuctl.cluster.client import Cluster
from gpuctl.inventory import nodes
from gpuctl.placement.capacity import node_usage
from gpuctl.verbs import node_labels
from tests.conftest import Env
from tests.support.sandbox import SandboxCluster, wait_for

GPUCTL = Path(sys.executable).with_name("gpuctl")


@dataclass
class NodeEnv(Env):
    """The shared Env, with pods placed on nodes and node labels at hand."""

    def pod(
        self,
        name: str,
        node: str,
        gpus: int,
        *,
        namespace: str = "default",
        labels: dict[str, str] | None = None,
        restart: str = "Always",
    ) -> None:
        """A pod placed on `node` that asks for `gpus` GPUs (Always: it keeps running)."""
        resources: dict[str, Any] = {"requests": {"cpu": "500m", "memory": "1Gi"}}
        if gpus:
            resources["requests"]["nvidia.com/gpu"] = str(gpus)
            resources["limits"] = {"nvidia.com/gpu": str(gpus)}
        self.cluster.create(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
                "spec": {
                    "nodeName": node,
                    "restartPolicy": restart,
                    "containers": [
                        {"name": "main", "image": "busybox:1.36", "resources": resources}
                    ],
                },
            }
        )

    def labels(self, node: str) -> dict[str, str]:
        return nodes.labels_of(self.cluster.get("Node", node))

    def set_labels(self, node: str, labels: dict[str, str | None]) -> None:
        self.cluster.patch("Node", node, None, {"metadata": {"labels": labels}})


@pytest.fixture
def env(sandbox: SandboxCluster) -> NodeEnv:
    return NodeEnv(sandbox, Cluster.connect(str(sandbox.kubeconfig)))


def busy(env: NodeEnv) -> None:
    """gpu-a100-0: 4 + 2 GPUs in use (two namespaces) and a finished pod that no longer
    counts; gpu-t4-0: 1 GPU; a CPU pod on cpu-0."""
    env.cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    env.pod("train-0", "gpu-a100-0", 4, labels={"job-name": "train"})
    env.pod("serve-abc", "gpu-a100-0", 2, namespace="team", labels={"app": "serve"})
    env.pod("done-0", "gpu-a100-0", 2, restart="Never", labels={"job-name": "done"})
    env.pod("nb-0", "gpu-t4-0", 1, labels={"app": "nb"})
    env.pod("web-0", "cpu-0", 0, labels={"app": "web"})

    def settled() -> bool:
        pods = env.cluster.list("Pod", None)
        phases = {p["metadata"]["name"]: p.get("status", {}).get("phase") for p in pods}
        return phases.get("done-0") == "Succeeded" and all(
            phase == "Running" for name, phase in phases.items() if name != "done-0"
        )

    wait_for(settled, timeout=10)


def without_age(text: str) -> list[list[str]]:
    """Rows split on the column gaps, the AGE column (the last) dropped."""
    return [re.split(r"\s{2,}", line.strip())[:-1] for line in text.splitlines()]


# ---------------------------------------------------------------------------- get nodes


def test_get_nodes_table_snapshot(env: NodeEnv, snapshot_text: Any) -> None:
    busy(env)
    env.set_labels("gpu-a100-1", {"runwhere.ai/pool": "training"})
    items = nodes.list_nodes(env.cluster)
    used = node_usage(items, nodes.active_pods(env.cluster))
    at = table.parse_time(items[0]["metadata"]["creationTimestamp"])
    assert at is not None
    rows = node_views.node_rows(items, used, at=at + timedelta(days=3))  # 3d, whatever the second
    assert table.table(node_views.NODE_HEADERS, rows) == snapshot_text


def test_get_nodes_cli_sums_gpus_with_one_list_of_pods(env: NodeEnv) -> None:
    busy(env)
    env.sandbox.requests.clear()
    done = env.gpuctl("get", "nodes")
    assert done.returncode == 0, done.stderr
    assert without_age(done.stdout) == [
        ["NAME", "STATUS", "GPU", "VENDOR", "GPU-TYPE", "POOL"],
        ["cpu-0", "Ready", "0/0/0", "<none>", "<none>", "<none>"],
        ["gpu-a100-0", "Ready", "8/6/2", "NVIDIA", "A100-80G", "<none>"],
        ["gpu-a100-1", "Ready", "8/0/8", "NVIDIA", "A100-80G", "<none>"],
        ["gpu-t4-0", "Ready", "4/1/3", "NVIDIA", "T4-16G", "<none>"],
    ]
    pod_lists = env.sandbox.requests.matching(verb="list", resource="pods")
    assert len(pod_lists) == 1
    assert "fieldSelector" in pod_lists[0].query


def test_get_nodes_filters_and_formats(env: NodeEnv) -> None:
    env.set_labels("gpu-a100-1", {"runwhere.ai/pool": "training"})
    env.set_labels("cpu-0", {"g8s.host/gpu-type": "T4-16G"})  # the user's spelling counts too
    by_pool = env.gpuctl("get", "nodes", "--pool", "training", "--no-headers")
    assert [row[0] for row in without_age(by_pool.stdout)] == ["gpu-a100-1"]
    by_type = env.gpuctl("get", "nodes", "--gpu-type", "T4-16G", "-o", "name")
    assert by_type.stdout == "node/cpu-0\nnode/gpu-t4-0\n"
    both = env.gpuctl("get", "nodes", "--pool", "training", "--gpu-type", "T4-16G")
    assert (both.returncode, both.stdout, both.stderr) == (0, "", "No nodes found.\n")
    wide = env.gpuctl("get", "nodes", "-o", "wide")
    assert wide.stdout.split("\n")[0].split() == [
        *node_views.NODE_HEADERS,
        "CPU",
        "MEMORY",
        "INTERNAL-IP",
        "VERSION",
    ]
    assert "1024Gi" in wide.stdout
    as_json = json.loads(env.gpuctl("get", "nodes", "--pool", "training", "-o", "json").stdout)
    assert as_json["kind"] == "List"
    assert [item["metadata"]["name"] for item in as_json["items"]] == ["gpu-a100-1"]
    as_yaml = yaml.safe_load(env.gpuctl("get", "nodes", "-o", "yaml").stdout)
    assert len(as_yaml["items"]) == 4 and as_yaml["items"][0]["kind"] == "Node"


def test_colour_only_on_a_terminal_and_never_with_no_color(env: NodeEnv) -> None:
    piped = env.gpuctl("get", "nodes")
    assert "\x1b[" not in piped.stdout
    assert "\x1b[32mReady\x1b[0m" in env.gpuctl_on_terminal("get", "nodes")
    assert "\x1b[" not in env.gpuctl_on_terminal("get", "nodes", env={"NO_COLOR": "1"})


# ------------------------------------------------------------------------ describe node


def test_describe_node(env: NodeEnv, snapshot_text: Any) -> None:
    busy(env)
    env.set_labels("gpu-a100-0", {"runwhere.ai/pool": "training", "g8s.host/rack": "r1"})
    done = env.gpuctl("describe", "node", "gpu-a100-0")
    assert done.returncode == 0, done.stderr
    text = re.sub(r"Created:\s+.*", "Created:   <stamp>", done.stdout)
    text = re.sub(r"(\s)\d+[smhd]\d*[smh]?\n", r"\1<age>\n", text)
    assert text == snapshot_text
    assert re.search(r"GPU:\s+8 total, 6 used, 2 free", text)
    assert "done-0" not in text  # finished: holds nothing


def test_describe_a_missing_node_is_one_line(env: NodeEnv) -> None:
    done = env.gpuctl("describe", "node", "nope")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "error: node nope not found\n")


# ------------------------------------------------------------------------------- labels


def test_label_sets_reads_and_deletes(env: NodeEnv) -> None:
    done = env.gpuctl("label", "node", "gpu-a100-0", "g8s.host/gpu-type=a100-80g")
    assert (done.returncode, done.stdout) == (0, "node/gpu-a100-0 labeled\n"), done.stderr
    assert env.labels("gpu-a100-0")["g8s.host/gpu-type"] == "a100-80g"
    read = env.gpuctl("get", "label", "gpu-a100-0", "--key=g8s.host/gpu-type")
    assert read.stdout.split("\n")[1].split() == ["gpu-a100-0", "g8s.host/gpu-type", "a100-80g"]
    same = env.gpuctl("label", "node", "gpu-a100-0", "g8s.host/gpu-type=a100-80g")
    assert same.returncode == 0 and "not labeled" in same.stdout
    gone = env.gpuctl("label", "node", "gpu-a100-0", "g8s.host/gpu-type", "--delete")
    assert (gone.returncode, gone.stdout) == (0, "node/gpu-a100-0 unlabeled\n")
    assert "g8s.host/gpu-type" not in env.labels("gpu-a100-0")
    again = env.gpuctl("label", "node", "gpu-a100-0", "g8s.host/gpu-type", "--delete")
    assert again.returncode == 1
    assert again.stderr == "error: node/gpu-a100-0 has no label g8s.host/gpu-type\n"
    missing = env.gpuctl("get", "label", "gpu-a100-0", "--key", "g8s.host/gpu-type")
    assert missing.returncode == 1 and "has no label g8s.host/gpu-type" in missing.stderr
    kubectl_style = env.gpuctl("label", "node", "gpu-t4-0", "g8s.host/x=1")
    assert kubectl_style.returncode == 0
    removed = env.gpuctl("label", "node", "gpu-t4-0", "g8s.host/x-")
    assert removed.stdout == "node/gpu-t4-0 unlabeled\n"


@pytest.mark.parametrize(
    ("argument", "words"),
    [
        ("runwhere.ai/pool=x", "must start with g8s.host/"),
        ("kubernetes.io/hostname", "must start with g8s.host/"),
        ("gpu-type=a100", "must start with g8s.host/"),
        ("g8s.host/=x", "after g8s.host/"),
        ("g8s.host/gpu-type=not ok", "label value 'not ok' refused"),
    ],
)
def test_label_keys_outside_g8s_host_are_refused(env: NodeEnv, argument: str, words: str) -> None:
    extra = ["--delete"] if "=" not in argument else []
    env.sandbox.requests.clear()
    done = env.gpuctl("label", "node", "gpu-a100-0", argument, *extra)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("error: ") and words in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert env.sandbox.requests.only_reads()


def test_a_different_value_needs_overwrite(env: NodeEnv) -> None:
    env.set_labels("gpu-a100-0", {"g8s.host/gpu-type": "a100-40g"})
    refused = env.gpuctl("label", "node", "gpu-a100-0", "g8s.host/gpu-type=a100-80g")
    assert refused.returncode == 1
    assert refused.stderr == (
        "error: node/gpu-a100-0: g8s.host/gpu-type already has the value 'a100-40g' "
        "(conflict, 409); add --overwrite to replace it\n"
    )
    assert env.labels("gpu-a100-0")["g8s.host/gpu-type"] == "a100-40g"
    done = env.gpuctl("label", "node", "gpu-a100-0", "g8s.host/gpu-type=a100-80g", "--overwrite")
    assert (done.returncode, done.stdout) == (0, "node/gpu-a100-0 labeled\n")
    assert env.labels("gpu-a100-0")["g8s.host/gpu-type"] == "a100-80g"


def test_several_nodes_each_reported_and_one_failure_fails_the_command(env: NodeEnv) -> None:
    env.set_labels("gpu-a100-1", {"g8s.host/gpu-type": "other"})
    done = env.gpuctl(
        "label", "node", "gpu-a100-0", "nope", "gpu-a100-1", "gpu-t4-0", "g8s.host/gpu-type=x"
    )
    assert done.returncode == 1
    assert done.stdout == "node/gpu-a100-0 labeled\nnode/gpu-t4-0 labeled\n"
    assert done.stderr.splitlines() == [
        "error: node/nope not found",
        "error: node/gpu-a100-1: g8s.host/gpu-type already has the value 'other' "
        "(conflict, 409); add --overwrite to replace it",
    ]
    assert env.labels("gpu-a100-1")["g8s.host/gpu-type"] == "other"
    read = env.gpuctl("get", "label", "gpu-a100-0", "gpu-t4-0", "--key", "g8s.host/gpu-type")
    assert [line.split()[-1] for line in read.stdout.splitlines()] == ["VALUE", "x", "x"]


def test_a_concurrent_change_is_read_and_checked_again(env: NodeEnv) -> None:
    env.sandbox.faults.fail("PATCH", "nodes", "gpu-a100-0", status=409, reason="Conflict")
    done = node_labels.change_label(
        env.cluster, "gpu-a100-0", node_labels.LabelChange("g8s.host/rack", "r7"), overwrite=False
    )
    assert (done.kind, done.name, done.outcome) == ("Node", "gpu-a100-0", "labeled")
    assert done.line() == "node/gpu-a100-0 labeled"
    assert len(env.sandbox.requests.matching(verb="patch", resource="nodes")) == 2
    assert env.labels("gpu-a100-0")["g8s.host/rack"] == "r7"


def test_label_usage_errors(env: NodeEnv) -> None:
    wrong = env.gpuctl("label", "pod", "x", "g8s.host/a=b")
    assert wrong.returncode == 2 and "node NAME" in wrong.stderr
    no_nodes = env.gpuctl("label", "node", "g8s.host/a=b")
    assert no_nodes.returncode == 2
    no_value = env.gpuctl("label", "node", "gpu-a100-0", "g8s.host/a")
    assert no_value.returncode == 2 and "KEY --delete" in no_value.stderr
    assert "Traceback" not in wrong.stderr + no_nodes.stderr + no_value.stderr
