"""What every benchmark shares: its size (full, or tiny with `--smoke`), building its cluster
the way users do (gpuctl's own commands), the checks of that setup, and the one-line reason it
exits 1 with when it cannot measure.

A benchmark is a report, not a test: it prints what it measured and exits 1 when a target is
missed or when it could not measure (its setup did not come about: pods that never ran, a load
that did not happen). `--smoke` (or BENCH_SMOKE=1) runs it at a tiny size, only to show that it
still runs end to end (tests/benchmarks/test_smoke.py): its setup is checked as in a full run
and a failed check still exits 1, but its numbers mean nothing at that size, so a missed
target is reported and not judged.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

GPUCTL = Path(sys.executable).with_name("gpuctl")
SMOKE_FLAG = "--smoke"


class NotMeasured(Exception):
    """The benchmark's own setup did not come about; the message is the one-line reason."""


def smoke() -> bool:
    """Whether this run is a smoke run (`--smoke` on the command line, or BENCH_SMOKE=1)."""
    return SMOKE_FLAG in sys.argv[1:] or os.environ.get("BENCH_SMOKE") == "1"


def sized(full: int, small: int) -> int:
    """`full` for the benchmark, `small` for a smoke run."""
    return small if smoke() else full


def option(name: str, default: int) -> int:
    """An integer option `--name N` of the command line (default when absent)."""
    args = sys.argv[1:]
    if name in args:
        index = args.index(name)
        try:
            return int(args[index + 1])
        except (IndexError, ValueError):
            raise SystemExit(f"{name} needs a whole number") from None
    return default


def run(body: Callable[[], bool]) -> int:
    """The exit code of a benchmark whose `body` says whether its targets were met: 0 when they
    were, 1 when one was missed or it could not measure (with the reason on one line)."""
    started = time.monotonic()
    try:
        met = body()
    except NotMeasured as reason:
        print(f"not measured: {reason}")
        return 1
    finally:
        print(f"the benchmark took {time.monotonic() - started:.0f} s")
    if not met and smoke():
        print("smoke run: it ran end to end; a target missed at this size is not judged")
        return 0
    return 0 if met else 1


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user and system, all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ building the cluster


def gpuctl_env(kubeconfig: Path, folder: Path) -> dict[str, str]:
    """The environment of the `gpuctl` commands run against `kubeconfig`."""
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "NO_COLOR": "1"}
    env["GPUCTL_CACHE_DIR"] = str(folder / "gpuctl-cache")
    env["XDG_CONFIG_HOME"] = str(folder / "xdg-config")  # no user's config file leaks in
    return env


def gpuctl(args: list[str], env: dict[str, str], stdin: str | None = None) -> str:
    """Run `gpuctl ARGS`; its output, or NotMeasured with the last line it printed on error."""
    done = subprocess.run(
        [str(GPUCTL), *args], input=stdin, capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        raise NotMeasured(f"`gpuctl {' '.join(args[:3])}` failed ({done.returncode}): {lines[-1]}")
    return done.stdout


def install_priority_classes(env: dict[str, str]) -> None:
    """`gpuctl priority-classes install`, as an administrator runs it once per cluster: the
    jobs' pods name these classes, and a pod naming a missing class is refused."""
    gpuctl(["priority-classes", "install"], env)
    listed = gpuctl(["priority-classes"], env)
    print(f"priority classes installed: {listed.count('kind: PriorityClass')}")


def create_jobs(specs: str, namespace: str, env: dict[str, str]) -> float:
    """`gpuctl create -f - -n NAMESPACE` of the specs (one command, as a user runs it); the
    seconds it took."""
    started = time.perf_counter()
    gpuctl(["create", "-f", "-", "-n", namespace], env, stdin=specs)
    return time.perf_counter() - started


def phases(cluster: Any, namespace: str | None, label_selector: str | None = None) -> Counter[str]:
    """How many pods (in `namespace`, None: all) are in each phase."""
    pods = cluster.list("Pod", namespace, label_selector=label_selector)
    return Counter((pod.get("status") or {}).get("phase") or "Pending" for pod in pods)


def describe(counted: Counter[str]) -> str:
    total = sum(counted.values())
    parts = ", ".join(f"{n} {phase}" for phase, n in sorted(counted.items()))
    return f"{total} pods ({parts or 'none'})"


def wait_pods(
    cluster: Any,
    namespace: str | None,
    wanted: int,
    *,
    done: tuple[str, ...] = ("Running",),
    timeout: float,
    label_selector: str | None = None,
) -> Counter[str]:
    """Wait until `wanted` pods are in one of the `done` phases; print the count; NotMeasured
    when they are not after `timeout` seconds."""
    started = time.monotonic()
    while True:
        counted = phases(cluster, namespace, label_selector)
        there = sum(counted[phase] for phase in done)
        if there >= wanted or time.monotonic() - started > timeout:
            break
        time.sleep(1)
    where = f"namespace {namespace}" if namespace else "the cluster"
    print(f"{where}: {describe(counted)} after {time.monotonic() - started:.0f} s")
    if there < wanted:
        raise NotMeasured(
            f"{there} of {wanted} pods {'/'.join(done)} in {where} after {timeout:.0f} s "
            f"({describe(counted)})"
        )
    return counted
