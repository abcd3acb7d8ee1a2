"""Sandbox speed: create+get+delete cycles per second through the official client, with 100,
1,000 and 10,000 objects already stored. Target: >= 300 cycles/s at every size, and flat (the
slowest size within 25% of the fastest). And start-up: an in-process sandbox started and
stopped (the tests make one per test), median of 10, against the yardstick of a bare
ThreadingHTTPServer started and stopped the same way. Target: under 100 ms.

Run: python benchmarks/bench_sandbox.py
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import harness
from kubernetes import client

from gpuctl.sandbox import Sandbox, SandboxConfig

TARGET = 300.0
START_TARGET_MS = 100.0
FLATNESS = 0.75
SIZES = (100, 1_000, 10_000) if not harness.smoke() else (10, 20)
CYCLES = harness.sized(600, 20)
START_RUNS = harness.sized(10, 2)


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


def _median_ms(start_and_stop: Callable[[], None], runs: int = START_RUNS) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        start_and_stop()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def _bare_server() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    # polled as often as the sandbox polls its own (10 ms): the default 0.5 s would be the cost
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    server.shutdown()
    server.server_close()
    thread.join()


def start_up() -> bool:
    bare = _median_ms(_bare_server)
    sandbox = _median_ms(lambda: Sandbox(SandboxConfig.fast()).start().stop())
    verdict = "PASS" if sandbox < START_TARGET_MS else "FAIL"
    print(
        f"start+stop: sandbox {sandbox:.1f} ms, bare ThreadingHTTPServer {bare:.1f} ms "
        f"({sandbox / bare:.1f}x); target < {START_TARGET_MS:.0f} ms: {verdict}"
    )
    return sandbox < START_TARGET_MS


def _measure() -> bool:
    started_fast = start_up()
    with Sandbox(SandboxConfig()) as sandbox:
        namespaces = sandbox.registry.get("", "namespaces")
        sandbox.api.create(namespaces, "", {"metadata": {"name": "bench"}})
        configuration = client.Configuration()
        configuration.host = sandbox.url
        core: Any = client.CoreV1Api(client.ApiClient(configuration))
        _cycles(core, harness.sized(50, 5))  # warm up: connection pool, schema validators
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
    return fast_enough and flat and started_fast


if __name__ == "__main__":
    sys.exit(harness.run(_measure))
