"""What training needs on real GPU nodes: /dev/shm, DeepSpeed base configs, multi-node start."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuctl.render import engine
from gpuctl.spec import runtime
from gpuctl.spec.document import load_files
from gpuctl.spec.kinds import Options

from .conftest import EXAMPLES

TRAINING = """\
kind: training
version: v0.1
job: {name: tune}
environment:
  image: trainer:v1
  command: %(command)s
resources: {gpu: %(gpu)s, cpu: 8, memory: %(memory)s%(extra)s}
storage:
  workdirs: [{path: /work}]
"""


def render(
    tmp_path: Path,
    command: list[str],
    *,
    gpu: int = 1,
    memory: str = "32Gi",
    extra: str = "",
) -> dict[str, dict[str, Any]]:
    """The rendered objects of a training spec, by kind."""
    spec = tmp_path / "job.yaml"
    values = {"command": json.dumps(command), "gpu": gpu, "memory": memory, "extra": extra}
    spec.write_text(TRAINING % values)
    manifests = engine.render_documents(load_files([str(spec)]), Options())
    return {m.kind: m.obj for m in manifests}


def pod_spec(objects: dict[str, dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = objects["Job"]["spec"]["template"]["spec"]
    return spec


@pytest.mark.parametrize(
    ("memory", "size"),
    [("32Gi", "16Gi"), ("1Gi", "512Mi"), ("3Mi", "1536Ki"), ("1000", "500"), ("64G", "31250000Ki")],
)
def test_shm_is_half_the_pod_memory(memory: str, size: str) -> None:
    assert runtime.shm_size(memory) == size


def test_gpu_pods_get_a_memory_backed_shm(tmp_path: Path) -> None:
    spec = pod_spec(render(tmp_path, ["python", "train.py"], memory="48Gi"))
    shm = next(v for v in spec["volumes"] if v["name"] == "dshm")
    assert shm["emptyDir"] == {"medium": "Memory", "sizeLimit": "24Gi"}
    mounts = spec["containers"][0]["volumeMounts"]
    assert {"name": "dshm", "mountPath": "/dev/shm"} in mounts


def test_cpu_pods_keep_the_default_shm(tmp_path: Path) -> None:
    spec = pod_spec(render(tmp_path, ["python", "train.py"], gpu=0))
    assert all(v["name"] != "dshm" for v in spec["volumes"])


def test_zero2_for_ds_config_and_zero3_with_cpu_offload_for_zero3_names(tmp_path: Path) -> None:
    for name, stage in [("ds_config.json", 2), ("zero3_config.json", 3), ("ds_z3.json", 3)]:
        objects = render(tmp_path, ["python", "t.py", "--deepspeed", name])
        config = json.loads(objects["ConfigMap"]["data"][name])
        assert config["zero_optimization"]["stage"] == stage
        offload = config["zero_optimization"].get("offload_optimizer")
        assert offload == ({"device": "cpu", "pin_memory": True} if stage == 3 else None)


def test_relative_deepspeed_path_is_rewritten_to_the_mounted_config(tmp_path: Path) -> None:
    objects = render(tmp_path, ["python", "t.py", "--deepspeed=ds_config.json", "--bf16"])
    container = pod_spec(objects)["containers"][0]
    assert container["command"] == [
        "python",
        "t.py",
        "--deepspeed=/etc/gpuctl/deepspeed/ds_config.json",
        "--bf16",
    ]
    mount = next(m for m in container["volumeMounts"] if m["name"] == "deepspeed-config")
    assert mount == {
        "name": "deepspeed-config",
        "mountPath": "/etc/gpuctl/deepspeed/ds_config.json",
        "subPath": "ds_config.json",
        "readOnly": True,
    }
    volume = next(v for v in pod_spec(objects)["volumes"] if v["name"] == "deepspeed-config")
    assert volume["configMap"]["name"] == "tune-deepspeed"
    assert objects["ConfigMap"]["metadata"]["name"] == "tune-deepspeed"
    labels = objects["ConfigMap"]["metadata"]["labels"]
    assert labels["app.kubernetes.io/managed-by"] == "gpuctl"
    assert labels["app.kubernetes.io/instance"] == "tune"  # the job's identity, as every object


def test_absolute_path_outside_workdirs_is_mounted_where_it_points(tmp_path: Path) -> None:
    objects = render(tmp_path, ["deepspeed", "t.py", "--deepspeed", "/configs/zero3.json"])
    container = pod_spec(objects)["containers"][0]
    assert container["command"][-1] == "/configs/zero3.json"
    mount = next(m for m in container["volumeMounts"] if m["name"] == "deepspeed-config")
    assert mount["mountPath"] == "/configs/zero3.json"


def test_config_in_a_workdir_is_the_users_own(tmp_path: Path) -> None:
    objects = render(tmp_path, ["python", "t.py", "--deepspeed", "/work/ds_config.json"])
    assert "ConfigMap" not in objects
    assert pod_spec(objects)["containers"][0]["command"][-1] == "/work/ds_config.json"


def test_no_deepspeed_no_configmap_and_no_rewrite(tmp_path: Path) -> None:
    objects = render(tmp_path, ["python", "t.py", "--config", "ds_config.json"])
    assert "ConfigMap" not in objects


def test_multi_node_prefers_one_topology_domain(tmp_path: Path) -> None:
    extra = ", node_count: 2, topology_key: example.com/rack"
    affinity = pod_spec(render(tmp_path, ["torchrun"], extra=extra))["affinity"]
    term = affinity["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["podAffinityTerm"]["topologyKey"] == "example.com/rack"
    assert term["podAffinityTerm"]["labelSelector"]["matchLabels"] == {"job-name": "tune"}
    default = pod_spec(render(tmp_path, ["torchrun"], extra=", node_count: 2"))["affinity"]
    key = default["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
    assert key["podAffinityTerm"]["topologyKey"] == "topology.kubernetes.io/zone"


def test_queue_suspends_the_job_and_labels_it_for_kueue(tmp_path: Path) -> None:
    job = render(tmp_path, ["torchrun"], extra=", node_count: 2, queue: team-a")["Job"]
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    assert job["spec"]["suspend"] is True
    plain = render(tmp_path, ["torchrun"], extra=", node_count: 2")["Job"]
    assert "suspend" not in plain["spec"]
    assert "kueue.x-k8s.io/queue-name" not in plain["metadata"]["labels"]


# ----------------------------------------------------------- the all-or-nothing start barrier


def _barrier(
    tmp_path: Path, resolvable: set[str], timeout: int
) -> subprocess.CompletedProcess[str]:
    """Run the rendered barrier with sh; a fake getent knows only `resolvable`."""
    spec = pod_spec(render(tmp_path, ["torchrun"], extra=", node_count: 3"))
    (init,) = spec["initContainers"]
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    getent = fake / "getent"
    known = " ".join(sorted(resolvable))
    getent.write_text(f'#!/bin/sh\nfor h in {known}; do [ "$2" = "$h" ] && exit 0; done\nexit 2\n')
    getent.chmod(0o755)
    env = {e["name"]: e["value"] for e in init["env"]}
    assert env == {"GPUCTL_JOB": "tune", "GPUCTL_NODES": "3", "GPUCTL_START_TIMEOUT": "600"}
    env["GPUCTL_START_TIMEOUT"] = str(timeout)
    env["PATH"] = f"{fake}:{os.environ['PATH']}"
    return subprocess.run(init["command"], env=env, capture_output=True, text=True, timeout=30)


def test_barrier_passes_when_every_peer_has_an_address(tmp_path: Path) -> None:
    done = _barrier(tmp_path, {"tune-0.tune", "tune-1.tune", "tune-2.tune"}, timeout=0)
    assert done.returncode == 0, done.stdout + done.stderr


def test_barrier_fails_after_the_timeout_and_names_the_missing_pods(tmp_path: Path) -> None:
    done = _barrier(tmp_path, {"tune-0.tune"}, timeout=0)
    assert done.returncode == 1
    assert "not every node of job tune started within 0s" in done.stdout
    assert "still waiting for: tune-1 tune-2" in done.stdout


def test_example_distributed_training_has_the_barrier_and_affinity() -> None:
    (job,) = [
        m.obj
        for m in engine.render([str(EXAMPLES / "training-distributed.yaml")])
        if m.kind == "Job"
    ]
    spec = job["spec"]["template"]["spec"]
    assert [c["name"] for c in spec["initContainers"]] == ["wait-for-peers"]
    assert yaml.safe_dump(spec["affinity"]).count("topologyKey") == 2


# ------------------------------------------------------- what get/describe job say about it


def test_a_job_waiting_for_kueue_is_queued_not_paused(tmp_path: Path) -> None:
    from gpuctl.inventory import jobs, status

    job = render(tmp_path, ["torchrun"], extra=", node_count: 2, queue: team-a")["Job"]
    assert status.workload_status(job) == "Queued"
    assert jobs.why(job, [], []) == (
        "waiting for Kueue to admit it from queue team-a (kubectl get workloads)"
    )
    paused = render(tmp_path, ["torchrun"], extra=", node_count: 2")["Job"]
    paused["spec"]["suspend"] = True
    assert status.workload_status(paused) == "Paused"


def test_describe_says_why_the_start_barrier_gave_up(tmp_path: Path) -> None:
    from gpuctl.inventory import jobs

    job = render(tmp_path, ["torchrun"], extra=", node_count: 2")["Job"]
    job["status"] = {"failed": 1}
    done = _barrier(tmp_path, {"tune-0.tune"}, timeout=0)
    pod = {
        "metadata": {"name": "tune-0-abcde"},
        "status": {
            "phase": "Failed",
            "initContainerStatuses": [
                {
                    "name": "wait-for-peers",
                    "state": {"terminated": {"exitCode": 1, "message": done.stdout}},
                }
            ],
        },
    }
    assert jobs.why(job, [pod], []) == f"pod tune-0-abcde: {done.stdout.strip()}"
    assert "not every node of job tune started within 0s" in jobs.why(job, [pod], [])
