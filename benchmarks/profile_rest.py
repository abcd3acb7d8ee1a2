"""Where a request to the REST API spends its time, measured in ways that do not depend on the
machine's load (a tool for whoever works on bench_rest's p99; `make bench` does not run it).

`gpuctl serve`'s application, in this process, over the cluster in KUBECONFIG (which must hold
bench_rest's 1,000 jobs: `--create` makes them), driven through its ASGI interface without a
socket: for `GET /api/v1/jobs?pageSize=20` (with the bearer token) and `/readyz`, the Python
calls a request makes (cProfile's count: the same on every run), the CPU time a request takes
(process time over many requests: little affected by other processes), and with `--top N` the
N functions that take the most of it.

Run: python benchmarks/profile_rest.py [--create] [--top 25]
Instructions a request (callgrind; with a path of the API):
  CALLGRIND=/readyz valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file=/tmp/cg.out python benchmarks/profile_rest.py
  then the `totals:` line of /tmp/cg.out divided by 100.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_rest
import harness

from gpuctl.cluster.cache import WATCH_SECONDS
from gpuctl.cluster.client import Cluster
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens

TOKEN = bench_rest.TOKEN
YARDSTICK_PATH = "/readyz"  # the least a request to the server costs
Request = Callable[[], Awaitable[int]]
CALLGRIND_RUNS = 100


def _request(app: Any, path: str) -> Request:
    """One GET of `path` through the app, as uvicorn would make it; its status code."""
    raw_path, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": raw_path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"authorization", f"Bearer {TOKEN}".encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def one() -> int:
        status = 0

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif status != 200 and message.get("body"):
                print(f"{path}: {status} {message['body'][:300]!r}")

        await app(dict(scope, state={}), receive, send)
        return status

    return one


def _callgrind(*args: str) -> None:
    command = ["callgrind_control", *args, str(os.getpid())]
    subprocess.run(command, capture_output=True, check=True)


async def _count_instructions(request: Request, runs: int) -> None:
    """Count the instructions of `runs` requests with callgrind: this process must run under
    `valgrind --tool=callgrind --instr-atstart=no`, whose output file's `totals:` line then
    holds them (nothing else in the process is counted)."""
    _callgrind("-z")
    _callgrind("-i", "on")
    for _ in range(runs):
        await request()
    _callgrind("-i", "off")
    print(f"callgrind counted {runs} requests")


async def _measure(name: str, request: Request, top: int) -> None:
    for _ in range(200):  # warm: the remembered page, lazily built state
        assert await request() == 200, f"{name} did not answer 200"
    if os.environ.get("CALLGRIND"):
        await _count_instructions(request, CALLGRIND_RUNS)
        return
    runs = 2000
    started = time.process_time()
    for _ in range(runs):
        await request()
    cpu = (time.process_time() - started) / runs
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(100):
        await request()
    profile.disable()
    stats = pstats.Stats(profile)
    calls = stats.total_calls / 100  # type: ignore[attr-defined]  # pstats keeps it as an attribute
    print(f"{name}: {calls:.0f} Python calls a request, {cpu * 1e6:.0f} us CPU a request")
    if top:
        stats.sort_stats(os.environ.get("PROFILE_SORT", "tottime")).print_stats(top)


async def _profile(kubeconfig: str, top: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        token_file = Path(folder) / "tokens.yaml"
        token_file.write_text(f"tokens:\n  - {{token: {TOKEN}, user: ops, role: admin}}\n")
        token_file.chmod(0o600)
        tokens = Tokens.load(str(token_file))
    app = create_app(Cluster.connect(kubeconfig), tokens)
    async with app.router.lifespan_context(app):
        cache = app.state.cache
        deadline = time.monotonic() + 300
        while not cache.ready and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await asyncio.sleep(2)  # the heap freeze that follows readiness
        print(f"gc frozen objects: {gc.get_freeze_count()}")
        if os.environ.get("CALLGRIND"):  # count the requests alone: no watch meanwhile
            for informer in cache.informers:
                informer.silence_seconds = float("inf")  # (time runs slowly under valgrind)
            cache.stop()
            await asyncio.sleep(WATCH_SECONDS + 1)  # the watches end
        for path in [os.environ.get("CALLGRIND") or bench_rest.PATH, YARDSTICK_PATH]:
            await _measure(path, _request(app, path), top)
            if os.environ.get("CALLGRIND"):
                break


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--create", action="store_true", help="create bench_rest's 1,000 jobs")
    parser.add_argument("--top", type=int, default=0, help="print the N costliest functions")
    args = parser.parse_args()
    kubeconfig = os.environ["KUBECONFIG"]
    if args.create:
        with tempfile.TemporaryDirectory() as folder:
            env = harness.gpuctl_env(Path(kubeconfig), Path(folder))
            bench_rest.build_cluster(Path(kubeconfig), env)
    asyncio.run(_profile(kubeconfig, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
