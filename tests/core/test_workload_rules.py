"""Render rules that decide whether a workload can run on a real node: how a workdir is mounted,
what a shared GPU request takes, and which jobs get a PodDisruptionBudget.

Each rule is pinned by a reviewed YAML snapshot of the part of the rendered objects it decides,
and the refusals by the one line a user gets.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpuctl.errors import SpecError
from gpuctl.placement import podsecurity
from gpuctl.render import engine
from gpuctl.spec.check import spec_warnings
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options

from .conftest import run_gpuctl
from .test_examples import YAMLSnapshot


@pytest.fixture
def snapshot_yaml(snapshot: Any) -> Any:
    return snapshot.use_extension(YAMLSnapshot)


def spec(kind: str, resources: str, extra: str = "") -> str:
    return (
        f"kind: {kind}\nversion: v0.1\njob:\n  name: rules\n"
        "environment:\n  image: registry.example.com/app:v1\n"
        f"resources:\n{resources}{extra}"
    )


def render_text(text: str) -> list[engine.Manifest]:
    return engine.render_documents(load_text("rules.yaml", text), Options())


def pod_spec(manifests: list[engine.Manifest]) -> dict[str, Any]:
    workload = next(m for m in manifests if m.kind in ("Job", "Deployment", "StatefulSet"))
    result: dict[str, Any] = workload.obj["spec"]["template"]["spec"]
    return result


def as_yaml(value: Any) -> str:
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True)


# ---------------------------------------------------------------------------- workdirs

WORKDIRS = """storage:
  workdirs:
    - path: /datasets/alpaca-qwen.json
    - path: /models/model.safetensors
    - path: /etc/nginx/conf.d
    - path: /models/qwen2.5-7b
    - path: /models/llama-3.1
    - path: /home/data/
    - path: /root/.cache
    - path: /data/table.v2
    - path: /data/weights.bin
      type: directory
    - path: /etc/hosts-extra
      type: file
"""


def test_a_workdir_is_mounted_as_a_file_or_a_directory_by_its_form(snapshot_yaml: Any) -> None:
    resources = "  cpu: 1\n  memory: 1Gi\n"
    volumes = pod_spec(render_text(spec("training", resources, WORKDIRS)))["volumes"]
    types = {v["hostPath"]["path"]: v["hostPath"]["type"] for v in volumes}
    assert types["/datasets/alpaca-qwen.json"] == "File"
    assert types["/etc/nginx/conf.d"] == "DirectoryOrCreate"
    assert types["/data/weights.bin"] == "DirectoryOrCreate"  # type: directory wins
    assert types["/etc/hosts-extra"] == "File"  # type: file wins
    assert as_yaml(volumes) == snapshot_yaml


def test_a_workdir_type_other_than_file_or_directory_is_refused() -> None:
    text = spec(
        "training",
        "  cpu: 1\n  memory: 1Gi\n",
        "storage:\n  workdirs:\n    - path: /data\n      type: socket\n",
    )
    with pytest.raises(SpecError) as caught:
        render_text(text)
    (problem,) = caught.value.problems
    assert problem.path == "storage.workdirs[0].type"
    assert "directory" in str(problem) and "file" in str(problem)


# ---------------------------------------------------------------------------- gpu-share

SHARED = "  gpu: 1\n  cpu: 8\n  memory: 32Gi\n  gpu-share: 2Gi\n"


@pytest.mark.parametrize("kind", ["training", "inference", "notebook", "compute"])
def test_a_gpu_share_request_takes_gpu_memory_and_no_whole_gpu(
    kind: str, snapshot_yaml: Any
) -> None:
    extra = "service:\n  port: 8000\n" if kind != "training" else ""
    for resources in (SHARED, SHARED.replace("  gpu: 1\n", "")):
        container = pod_spec(render_text(spec(kind, resources, extra)))["containers"][0]
        assert container["resources"]["limits"] == {
            "cpu": "8",
            "memory": "32Gi",
            "aliyun.com/gpu-mem": "2",
        }
        assert container["resources"]["requests"] == container["resources"]["limits"]
    assert as_yaml(container["resources"]) == snapshot_yaml


def test_gpu_share_beside_several_whole_gpus_is_refused_in_one_line() -> None:
    done = run_gpuctl("validate", "-f", "-", stdin=spec("training", SHARED.replace("1", "4", 1)))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert "resources.gpu-share" in line and "resources.gpu " in line and "4 whole GPUs" in line
    assert "Traceback" not in done.stderr


def test_placement_of_a_gpu_share_job_is_refused() -> None:
    text = spec("training", SHARED + "  placement: binpack\n")
    with pytest.raises(SpecError) as caught:
        render_text(text)
    (problem,) = caught.value.problems
    assert problem.path == "resources.placement" and "gpu-share" in problem.message


# ---------------------------------------------------------------------------- disruption budget


def service_spec(kind: str, service: str) -> str:
    return spec(kind, "  cpu: 1\n  memory: 1Gi\n", f"service:\n  port: 8000\n{service}")


def budgets(text: str) -> list[dict[str, Any]]:
    return [m.obj for m in render_text(text) if m.kind == "PodDisruptionBudget"]


@pytest.mark.parametrize("kind", ["inference", "compute"])
def test_a_service_of_two_or_more_pods_gets_a_disruption_budget(
    kind: str, snapshot_yaml: Any
) -> None:
    manifests = render_text(service_spec(kind, "  replicas: 2\n"))
    (budget,) = [m for m in manifests if m.kind == "PodDisruptionBudget"]
    deployment = next(m for m in manifests if m.kind == "Deployment")
    selector = budget.obj["spec"]["selector"]["matchLabels"]
    assert selector == deployment.obj["spec"]["selector"]["matchLabels"]
    pod_labels = deployment.obj["spec"]["template"]["metadata"]["labels"]
    assert selector.items() <= pod_labels.items()
    assert budget.obj["spec"]["maxUnavailable"] == 1
    # a crash-looping pod of the service never holds up a drain of a shared node
    assert budget.obj["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    assert budget.text == snapshot_yaml


AUTOSCALED = (
    "  replicas: {}\n  autoscaling: {{min_replicas: {}, max_replicas: 4, gpu_utilization: 70}}\n"
)


@pytest.mark.parametrize(
    ("service", "expected"),
    [
        ("  replicas: 1\n", 0),
        ("", 0),
        ("  replicas: 3\n", 1),
        # autoscaled: the autoscaler's minimum decides, whatever replicas says
        (AUTOSCALED.format(3, 1), 0),
        (AUTOSCALED.format(1, 2), 1),
    ],
)
def test_the_disruption_budget_follows_the_fewest_pods_a_service_runs(
    service: str, expected: int
) -> None:
    assert len(budgets(service_spec("inference", service))) == expected


@pytest.mark.parametrize("kind", ["notebook", "training"])
def test_notebooks_and_training_get_no_disruption_budget(kind: str) -> None:
    extra = "service:\n  port: 8888\n" if kind == "notebook" else ""
    assert budgets(spec(kind, "  cpu: 1\n  memory: 1Gi\n", extra)) == []


# ---------------------------------------------------------------------------- readiness


PROBES = ("startupProbe", "readinessProbe", "livenessProbe")


def _probes(kind: str, service: str) -> dict[str, Any]:
    text = spec(
        kind, "  gpu: 1\n  cpu: 2\n  memory: 4Gi\n", f"service:\n{service}" if service else ""
    )
    container = pod_spec(render_text(text))["containers"][0]
    return {k: container[k] for k in PROBES if k in container}


def test_a_notebook_without_a_health_check_is_ready_once_its_port_takes_connections() -> None:
    assert _probes("notebook", "") == {
        "readinessProbe": {
            "tcpSocket": {"port": 8888},
            "initialDelaySeconds": 2,
            "periodSeconds": 5,
        }
    }


def test_a_health_check_gives_http_probes_and_no_port_probe() -> None:
    probes = _probes("notebook", "  health_check: /api\n")
    assert list(probes) == list(PROBES)
    for probe in probes.values():
        assert probe["httpGet"] == {"path": "/api", "port": 8888}


@pytest.mark.parametrize("kind", ["inference", "notebook", "compute"])
@pytest.mark.parametrize(("timeout", "failures"), [(None, 60), (1800, 180), (45, 5)])
def test_a_health_check_is_held_off_while_the_service_starts(
    kind: str, timeout: int | None, failures: int
) -> None:
    """A model that loads for minutes is not killed by its liveness probe: the startup probe
    allows startup_timeout seconds (600 by default), and liveness counts only after it."""
    service = "  health_check: /health\n" + (f"  startup_timeout: {timeout}\n" if timeout else "")
    probes = _probes(kind, service)
    startup, liveness = probes["startupProbe"], probes["livenessProbe"]
    assert startup["httpGet"] == liveness["httpGet"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= (timeout or 600)
    assert startup["failureThreshold"] == failures
    assert "initialDelaySeconds" not in liveness  # the startup probe holds it off instead


def test_a_startup_timeout_below_ten_seconds_is_refused() -> None:
    text = service_spec("inference", "  health_check: /health\n  startup_timeout: 5\n")
    with pytest.raises(SpecError) as caught:
        render_text(text)
    (problem,) = caught.value.problems
    assert problem.path == "service.startup_timeout"


def test_inference_without_a_health_check_gets_no_probe() -> None:
    assert _probes("inference", "  port: 8000\n") == {}


# ---------------------------------------------------------------------------- replicas


def test_an_autoscaled_deployment_leaves_its_replicas_to_the_autoscaler() -> None:
    manifests = render_text(service_spec("inference", AUTOSCALED.format(3, 2)))
    deployment = next(m for m in manifests if m.kind == "Deployment")
    assert "replicas" not in deployment.obj["spec"]
    assert next(m for m in manifests if m.kind == "HorizontalPodAutoscaler")
    fixed = render_text(service_spec("inference", "  replicas: 3\n"))
    assert next(m for m in fixed if m.kind == "Deployment").obj["spec"]["replicas"] == 3


# ---------------------------------------------------------------------------- security

RESTRICTED_NAMESPACE = {"metadata": {"labels": {podsecurity.ENFORCE: "restricted"}}}
TWO_NODES = "  gpu: 1\n  cpu: 2\n  memory: 4Gi\n  node_count: 2\n"


def _pod(manifests: list[engine.Manifest]) -> dict[str, Any]:
    workload = next(m for m in manifests if m.kind in ("Job", "Deployment", "StatefulSet"))
    return {"metadata": {}, "spec": workload.obj["spec"]["template"]["spec"]}


@pytest.mark.parametrize(
    ("kind", "resources"),
    [
        ("training", TWO_NODES),  # its start barrier (an init container) too
        ("inference", SHARED),
        ("notebook", "  cpu: 1\n  memory: 1Gi\n"),
        ("compute", "  cpu: 1\n  memory: 1Gi\n"),
    ],
)
def test_security_restricted_pods_pass_pod_security_restricted(kind: str, resources: str) -> None:
    """As the API server's Pod Security admission judges them (gpuctl.placement.podsecurity,
    its checks); the default (baseline) pods do not pass."""
    restricted = _pod(render_text(spec(kind, resources, "security: restricted\n")))
    assert podsecurity.refusal(RESTRICTED_NAMESPACE, restricted) == ""
    assert restricted["spec"]["securityContext"] == {
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    baseline = _pod(render_text(spec(kind, resources)))
    assert "restricted" in podsecurity.refusal(RESTRICTED_NAMESPACE, baseline)


def test_security_restricted_with_a_workdir_is_refused_in_one_line() -> None:
    text = spec(
        "inference",
        "  cpu: 1\n  memory: 1Gi\n",
        "security: restricted\nstorage:\n  workdirs:\n    - path: /models\n",
    )
    with pytest.raises(SpecError) as caught:
        render_text(text)
    (problem,) = caught.value.problems
    assert problem.path == "storage.workdirs"
    assert "host path" in problem.message and "security: baseline" in problem.hint


# ---------------------------------------------------------------------------- host paths

SENSITIVE = [
    "/",
    "/etc",
    "/etc/kubernetes/",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/var/lib/kubelet",
    "/proc",
    "/sys/fs/cgroup",
    "/root",
    "/boot",
    "/var//lib/kubelet/pods",
]
ORDINARY = ["/data", "/models/qwen2.5-7b", "/home/jovyan/work", "/var/data", "/dev/shm", "/etcd"]


def test_workdirs_on_sensitive_host_paths_warn_and_ordinary_ones_do_not() -> None:
    paths = SENSITIVE + ORDINARY
    text = spec(
        "training",
        "  cpu: 1\n  memory: 1Gi\n",
        "storage:\n  workdirs:\n" + "".join(f"    - path: {p}\n" for p in paths),
    )
    (document,) = load_text("rules.yaml", text)
    warned = {problem.path: problem for problem in spec_warnings(document)}
    assert sorted(warned) == sorted(f"storage.workdirs[{i}].path" for i in range(len(SENSITIVE)))
    assert "container runtime's socket" in warned["storage.workdirs[3].path"].message
    render_text(text)  # a warning, not a refusal


def test_validate_warns_of_a_sensitive_host_path_and_still_says_ok(tmp_path: Any) -> None:
    path = tmp_path / "socket.yaml"
    path.write_text(
        spec(
            "compute",
            "  cpu: 1\n  memory: 1Gi\n",
            "storage:\n  workdirs:\n    - path: /var/run/docker.sock\n",
        )
    )
    done = run_gpuctl("validate", "-f", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{path}: ok\n"
    assert done.stderr.startswith(f"warning: {path}:12:13: storage.workdirs[0].path: host path ")
