"""Start-up of the single-file binary (a report, not a test): `make bench`.

Times `gpuctl --version` and `gpuctl render -f examples/training.yaml` from the binary
(tests/binary/build.py builds it, or takes it from its cache) against the same two commands
from this virtual environment's `gpuctl`, in alternating pairs, medians. The binary unpacks
itself into a temporary folder at every start (PyInstaller's one-file mode), a fixed cost the
installed command does not pay. Targets: the binary's `render` <= 8x the installed one's, and
its fixed start-up cost (binary minus installed, `--version`) <= 0.6 s.

Run: python benchmarks/bench_binary.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness

from tests.binary.build import REPO, built_binary

EXAMPLE = REPO / "examples" / "training.yaml"
INSTALLED = Path(sys.executable).with_name("gpuctl")
PAIRS = harness.sized(15, 1)
WARM = harness.sized(2, 0)
RENDER_RATIO_TARGET = 8.0
STARTUP_COST_TARGET = 0.6


def _once(command: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, stdout=subprocess.DEVNULL, check=True, cwd=cwd, env={"PATH": "/usr/bin:/bin"}
    )
    return time.perf_counter() - start


def _medians(args: list[str], binary: Path, cwd: str) -> tuple[float, float]:
    """(binary, installed) medians of PAIRS alternating runs of `gpuctl ARGS`."""
    for _ in range(WARM):  # warm the page cache
        _once([str(binary), *args], cwd)
        _once([str(INSTALLED), *args], cwd)
    frozen, installed = [], []
    for _ in range(PAIRS):
        frozen.append(_once([str(binary), *args], cwd))
        installed.append(_once([str(INSTALLED), *args], cwd))
    return statistics.median(frozen), statistics.median(installed)


def _measure() -> bool:
    started = time.monotonic()
    binary = built_binary()
    print(
        f"binary: {binary} ({binary.stat().st_size / 2**20:.1f} MiB; "
        f"ready in {time.monotonic() - started:.0f} s)"
    )
    with tempfile.TemporaryDirectory() as cwd:
        version = _medians(["--version"], binary, cwd)
        render = _medians(["render", "-f", str(EXAMPLE)], binary, cwd)
    cost = version[0] - version[1]
    ratio = render[0] / render[1]
    for name, (frozen, installed) in (("--version", version), ("render", render)):
        print(
            f"{name}: binary {frozen * 1000:.0f} ms, installed {installed * 1000:.0f} ms "
            f"(medians of {PAIRS} pairs): ratio {frozen / installed:.1f}"
        )
    print(
        f"start-up cost of the binary {cost * 1000:.0f} ms "
        f"(target <= {STARTUP_COST_TARGET * 1000:.0f} ms: "
        f"{'met' if cost <= STARTUP_COST_TARGET else 'MISSED'}); "
        f"render ratio {ratio:.1f} (target <= {RENDER_RATIO_TARGET}: "
        f"{'met' if ratio <= RENDER_RATIO_TARGET else 'MISSED'})"
    )
    return cost <= STARTUP_COST_TARGET and ratio <= RENDER_RATIO_TARGET


if __name__ == "__main__":
    sys.exit(harness.run(_measure))
