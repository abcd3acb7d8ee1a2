"""Every benchmark of benchmarks/ runs end to end at a tiny size (`--smoke`), so that none rots
unseen between two `make bench`: it exits 0 (its own setup checks passed: the pods it needs ran,
the load it claims happened) and prints its report line. The numbers of a smoke run mean
nothing; `make bench` judges the targets.

bench_rest's smoke runs on the sandbox (BENCH_SANDBOX=1: the churn, the watch counting the
changes and wrk are the same on both); bench_controller and bench_kube only run on the local
real control plane, so theirs exercise the kube path (marked `kube`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kube import controlplane

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
KUBE = pytest.mark.kube
SLOW = pytest.mark.slow

TIMEOUT = 240  # seconds a smoke run may take on a loaded machine
BUILD_TIMEOUT = 900  # bench_binary builds the binary when tests/binary has not yet

# each benchmark, the line of its report that shows it measured, and its marks
REPORTS = {
    "bench_apply": ("(b) unchanged re-apply of 5:", ()),
    "bench_binary": ("start-up cost of the binary", (SLOW,)),
    "bench_console": ("console Jobs page first-contentful-paint, median of 1:", ()),
    "bench_console_scroll": ("console Jobs page, 40 jobs, scrolled top to bottom", ()),
    "bench_controller": ("controller: 10 GPUWorkloads on 20 nodes all Scheduled", (KUBE,)),
    "bench_kube": ("get jobs --pods -A: ratio gpuctl/kubectl", (KUBE,)),
    "bench_operate": ("ratio gpuctl/kubectl at 40 pods", ()),
    "bench_render": ("bulk: 8 specs in", ()),
    "bench_rest": ("GET /api/v1/jobs?pageSize=20 under churn, 20 jobs, 1 runs of 2 s", ()),
    "bench_sandbox": ("create+get+delete cycles/s", ()),
}


def test_every_benchmark_has_a_smoke_run() -> None:
    found = {path.stem for path in BENCHMARKS.glob("bench_*.py")}
    assert found == set(REPORTS)


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=marks) for name, (_, marks) in REPORTS.items()],
)
def test_smoke(name: str, tmp_path: Path) -> None:
    line, marks = REPORTS[name]
    if KUBE in marks and controlplane.unavailable_reason():
        pytest.skip(controlplane.unavailable_reason() or "")
    env = {**os.environ, "PYTHONPATH": str(REPO), "BENCH_SANDBOX": "1", "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), "--smoke"],
        capture_output=True,
        text=True,
        env=env,
        timeout=BUILD_TIMEOUT if SLOW in marks else TIMEOUT,
        check=False,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-3000:]
    assert line in done.stdout, report[-3000:]
