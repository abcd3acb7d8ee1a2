"""Render speed (a report, not a test): `make bench`.

(a) cold: whole-process `gpuctl render -f` of one example against `kubectl kustomize` over a
    directory holding the same objects, run in alternating pairs. Target: <= 2.0x kubectl.
(b) bulk: 2,000 specs rendered in one process against the floor of merely loading the same
    inputs and dumping the same outputs with PyYAML's C loader and dumper. Target: <= 3.0x.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "training.yaml"
GPUCTL = Path(sys.executable).with_name("gpuctl")
PAIRS = harness.sized(40, 2)
BULK = harness.sized(2000, 8)
BEST_OF = harness.sized(3, 1)


def _once(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def bench_cold() -> float:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        print("cold: kubectl not found, skipped")
        return 0.0
    with tempfile.TemporaryDirectory() as folder:
        rendered = subprocess.run(
            [str(GPUCTL), "render", "-f", str(EXAMPLE)], capture_output=True, check=True
        ).stdout
        Path(folder, "objects.yaml").write_bytes(rendered)
        Path(folder, "kustomization.yaml").write_text("resources:\n- objects.yaml\n")
        ours_cmd = [str(GPUCTL), "render", "-f", str(EXAMPLE)]
        theirs_cmd = [kubectl, "kustomize", folder]
        for _ in range(harness.sized(3, 1)):  # warm the page cache and gpuctl's template cache
            _once(ours_cmd)
            _once(theirs_cmd)
        ours, theirs = [], []
        for _ in range(PAIRS):
            ours.append(_once(ours_cmd))
            theirs.append(_once(theirs_cmd))
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(
        f"cold: gpuctl render {statistics.median(ours) * 1000:.1f} ms, kubectl kustomize "
        f"{statistics.median(theirs) * 1000:.1f} ms (medians of {PAIRS} pairs): ratio {ratio:.2f} "
        f"(target <= 2.0: {'met' if ratio <= 2.0 else 'MISSED'})"
    )
    return ratio


def _specs() -> list[str]:
    """BULK specs: the workload examples, each copy with its own job name."""
    sources = [
        (REPO / "examples" / name).read_text()
        for name in ("training.yaml", "inference.yaml", "notebook.yaml", "compute.yaml")
    ]
    texts = []
    for index in range(BULK):
        text = sources[index % len(sources)]
        data = yaml.safe_load(text)
        old = data["job"]["name"]
        texts.append(text.replace(f"name: {old}", f"name: job-{index}", 1))
    return texts


def bench_bulk() -> float:
    from gpuctl.render import engine
    from gpuctl.spec.document import load_text
    from gpuctl.spec.kinds import Options

    texts = _specs()
    # Outputs for the floor, computed outside the timed part.
    objects = [
        [m.obj for m in engine.render_documents(load_text("s.yaml", t), Options())] for t in texts
    ]

    def floor() -> None:
        for text, objs in zip(texts, objects, strict=True):
            yaml.load(text, Loader=yaml.CSafeLoader)
            yaml.dump_all(objs, Dumper=yaml.CSafeDumper)

    def ours() -> None:
        for text in texts:
            engine.to_yaml(engine.render_documents(load_text("s.yaml", text), Options()))

    def best_of(fn: object, runs: int = BEST_OF) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - start)
        return min(times)

    floor_s, ours_s = best_of(floor), best_of(ours)
    ratio = ours_s / floor_s
    print(
        f"bulk: {BULK} specs in {ours_s * 1000:.0f} ms ({ours_s / BULK * 1e6:.0f} us each); floor "
        f"(C load + C dump) {floor_s * 1000:.0f} ms: ratio {ratio:.2f} "
        f"(target <= 3.0: {'met' if ratio <= 3.0 else 'MISSED'})"
    )
    return ratio


def _measure() -> bool:
    if shutil.which("kubectl") is None:
        raise harness.NotMeasured("kubectl is missing: no yardstick for the cold render")
    cold, bulk = bench_cold(), bench_bulk()
    return cold <= 2.0 and bulk <= 3.0


if __name__ == "__main__":
    sys.exit(harness.run(_measure))  # make bench reports a missed target
