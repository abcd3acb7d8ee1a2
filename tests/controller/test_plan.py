"""`gpuctl controller plan`: every node's rank, score and reason, from the live cluster."""

from __future__ import annotations

from pathlib import Path

from gpuctl.controller.reconcile import Reconciler
from tests.conftest import Env
from tests.controller.conftest import workload

WORKLOAD = """\
apiVersion: gpu.warp.dev/v1alpha1
kind: GPUWorkload
metadata:
  name: llama
spec:
  modelName: llama2
  gpuCount: {gpus}
  schedulingStrategy: {strategy}
"""


def plan(env: Env, tmp_path: Path, gpus: int, strategy: str) -> tuple[int, str, str]:
    path = tmp_path / "workload.yaml"
    path.write_text(WORKLOAD.format(gpus=gpus, strategy=strategy))
    result = env.gpuctl("controller", "plan", "-f", str(path))
    return result.returncode, result.stdout, result.stderr


def test_plan_ranks_every_node_and_says_why(crd_env: Env, tmp_path: Path) -> None:
    # 4 of big's 8 GPUs are promised to a placed workload whose pod may not exist yet
    Reconciler(crd_env.cluster).reconcile(crd_env.cluster.create(workload("placed", 4)))
    code, out, err = plan(crd_env, tmp_path, 3, "binpack")
    assert (code, err) == (0, "")
    assert out == (
        "gpuworkload/llama: 3 GPU(s), binpack -> big\n"
        "RANK   NODE    GPUS   FREE   SCORE   WHY\n"
        "1      big     8      4      -1      chosen: 4 of 8 GPUs free, 1 left after placing\n"
        "2      small   4      4      -1      4 of 4 GPUs free, 1 left after placing\n"
        "3      mid     6      6      -3      6 of 6 GPUs free, 3 left after placing\n"
        "-      cpu     0      0      -       not suitable: no GPUs\n"
    )


def test_plan_without_a_suitable_node_exits_1(crd_env: Env, tmp_path: Path) -> None:
    code, out, _ = plan(crd_env, tmp_path, 9, "costOptimized")
    assert code == 1
    assert "costOptimized -> no node" in out
    mid = "-      mid     6      6      -       not suitable: only 6 of 6 GPUs free, 9 needed"
    assert mid in out
    assert out.endswith(
        "no Ready, schedulable node has 9 free GPU(s) (the most free on one node: 8)\n"
    )


def test_plan_reports_a_bad_field_at_its_line(crd_env: Env, tmp_path: Path) -> None:
    code, out, err = plan(crd_env, tmp_path, 2, "fastest")
    assert (code, out) == (1, "")
    assert err.startswith(f"{tmp_path / 'workload.yaml'}:8:")
    assert "spec.schedulingStrategy" in err and "'fastest' is not one of" in err
