"""Sandbox speed: create+get+delete cycles per second through the official client, with 100,
1,000 and 10,000 objects already stored. Target: >= 300 cycles/s at every size, and flat (the
slowest size within 25% of the fastest).

Run: python benchmarks/bench_sandbox.py
"""

from __future__ import annotations

import sys
import time
from typing import Any

from kubernetes import client

from gpuctl.sandbox import Sandbox, SandboxConfig

TARGET = 300.0
FLATNESS = 0.75
SIZES = (100, 1_000, 10_000)
CYCLES = 600


def _fill(sandbox: Sandbox, upto: int) -> None:
    """Store objects in-process (the HTTP path is what we measure, not what we wait for)."""
    configmaps = sandbox.registry.get("", "configmaps")
    have = sandbox.store.count(configmaps.key, "bench")
    for i in range(have, upto):
        sandbox.api.create(
            configmaps, "bench", {"metadata": {"name": f"fill-{i}"}, "data": {"i": str(i)}}
        )


def _cycles(core: Any, n: int) -> float:
    started = time.perf_counter()
    for i in range(n):
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cycle-{i}"},
            "data": {"k": "v"},
        }
        core.create_namespaced_config_map("bench", body)
        core.read_namespaced_config_map(f"cycle-{i}", "bench")
        core.delete_namespaced_config_map(f"cycle-{i}", "bench")
    return n / (time.perf_counter() - started)


def main() -> int:
    with Sandbox(SandboxConfig()) as sandbox:
        namespaces = sandbox.registry.get("", "namespaces")
        sandbox.api.create(namespaces, "", {"metadata": {"name": "bench"}})
        configuration = client.Configuration()
        configuration.host = sandbox.url
        core: Any = client.CoreV1Api(client.ApiClient(configuration))
        _cycles(core, 50)  # warm up: connection pool, schema validators
        rates = {}
        for size in SIZES:
            _fill(sandbox, size)
            rates[size] = _cycles(core, CYCLES)
            print(f"{size:>6} objects stored: {rates[size]:7.0f} create+get+delete cycles/s")
    slowest, fastest = min(rates.values()), max(rates.values())
    fast_enough = slowest >= TARGET
    flat = slowest >= FLATNESS * fastest
    verdict = "PASS" if fast_enough else "FAIL"
    print(f"target >= {TARGET:.0f} cycles/s at every size: {verdict} (slowest {slowest:.0f})")
    verdict = "PASS" if flat else "FAIL"
    print(f"flat (slowest >= {FLATNESS:.0%} of fastest): {verdict} ({slowest / fastest:.0%})")
    return 0 if fast_enough and flat else 1


if __name__ == "__main__":
    sys.exit(main())
