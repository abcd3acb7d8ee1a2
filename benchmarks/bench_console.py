"""The console's first paint on loopback (a report, not a test): `make bench`.

`gpuctl serve` (the installed command) on a sandbox with JOBS training jobs, headless Debian
Chromium through Selenium, signed in (the token in sessionStorage, as the login page leaves
it): the first-contentful-paint of the console's Jobs page (`/`) from Chromium's Performance
API, its browser cache emptied before each load. Yardstick in the same run, loaded the same way
in turn: the same server's Swagger UI page (`/api/v1/docs`), whose JavaScript and CSS it serves
too. Medians of RUNS loads each. Target: the console's first paint within 1 s (reported with its
ratio to the yardstick). Exit 1 when it is missed or cannot be measured (no Chromium).

Run: python benchmarks/bench_console.py
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness

from gpuctl.cluster.client import Cluster
from tests.support.ports import free_port
from tests.support.sandbox import running_sandbox

JOBS = harness.sized(200, 5)
RUNS = harness.sized(7, 1)
TARGET_MS = 1000.0
GPUCTL = Path(sys.executable).with_name("gpuctl")
TOKEN = "bench-console-admin-token"
START_SECONDS = 180.0
PAINT_WAIT_SECONDS = 30.0
CHROMIUM = shutil.which("chromium")
SHORT_TMPDIR = "/tmp"
CHROMEDRIVER = shutil.which("chromedriver")
TRAINING = """kind: training
version: v0.1
job:
  name: bench-{n}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "sleep 3600"]
resources:
  gpu: 0
  cpu: 100m
  memory: 64Mi
"""


@contextmanager
def serving(workdir: Path, kubeconfig: Path) -> Iterator[str]:
    tokens = workdir / "tokens.yaml"
    tokens.write_text(f"tokens:\n  - {{token: {TOKEN}, user: ops, role: admin}}\n")
    tokens.chmod(0o600)
    port = free_port()
    command = [str(GPUCTL), "serve", "--port", str(port), "--tokens", str(tokens)]
    server = subprocess.Popen(
        [*command, "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(f"{base}/readyz"):
            if time.monotonic() > deadline or server.poll() is not None:
                raise harness.NotMeasured("gpuctl serve did not answer /readyz")
            time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def create_jobs(base: str, count: int = JOBS) -> None:
    """`count` jobs through POST /jobs/batch, 50 at a time."""
    for first in range(0, count, 50):
        texts = [TRAINING.format(n=n) for n in range(first, min(first + 50, count))]
        request = urllib.request.Request(
            f"{base}/api/v1/jobs/batch",
            data=json.dumps({"yamlContents": texts}).encode(),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=120) as answer:
            body = json.loads(answer.read())
            if body["failed"]:
                raise harness.NotMeasured(f"creating the jobs failed: {body['failed'][0]}")


def check_jobs(base: str, kubeconfig: Path, count: int) -> None:
    """The setup came about: the API lists `count` jobs, and every one's pod ran."""
    request = urllib.request.Request(
        f"{base}/api/v1/jobs?pageSize=1", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        total = json.loads(answer.read())["total"]
    print(f"the API lists {total} jobs")
    if total != count:
        raise harness.NotMeasured(f"the API lists {total} jobs, not the {count} created")
    cluster = Cluster.connect(str(kubeconfig))
    harness.wait_pods(cluster, "default", count, done=("Running", "Succeeded"), timeout=120)


@contextmanager
def chromium() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-background-networking"):
        options.add_argument(flag)
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--window-size=1280,900")
    # Chromium makes its Unix sockets under TMPDIR, and a socket's path is at most 107 bytes:
    # under a deep TMPDIR (a test's own temporary folder) it exits while starting
    service = Service(str(CHROMEDRIVER), env={**os.environ, "TMPDIR": SHORT_TMPDIR})
    driver = webdriver.Chrome(service=service, options=options)
    try:
        yield driver
    finally:
        driver.quit()


def first_paint_ms(driver: Any, url: str) -> float:
    """The first-contentful-paint of loading `url` with an empty browser cache, in ms."""
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.get(url)
    deadline = time.monotonic() + PAINT_WAIT_SECONDS
    while time.monotonic() < deadline:
        found = driver.execute_script(
            "const e = performance.getEntriesByName('first-contentful-paint')[0];"
            "return e ? e.startTime : null;"
        )
        if found is not None:
            return float(found)
        time.sleep(0.05)
    raise harness.NotMeasured(
        f"no first-contentful-paint for {url} within {PAINT_WAIT_SECONDS:.0f} s"
    )


def measure(base: str) -> tuple[list[float], list[float]]:
    console: list[float] = []
    yardstick: list[float] = []
    with chromium() as driver:
        driver.get(f"{base}/")  # the origin, to sign in as the login page does
        driver.execute_script("sessionStorage.setItem('gpuctl.token', arguments[0]);", TOKEN)
        for _ in range(RUNS):  # in turn, so that both meet the same load
            console.append(first_paint_ms(driver, f"{base}/"))
            yardstick.append(first_paint_ms(driver, f"{base}/api/v1/docs"))
    return console, yardstick


def _measure() -> bool:
    if CHROMIUM is None or CHROMEDRIVER is None:
        raise harness.NotMeasured("needs Debian's chromium and chromium-driver")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        with running_sandbox(workdir) as sandbox, serving(workdir, sandbox.kubeconfig) as base:
            create_jobs(base)
            check_jobs(base, sandbox.kubeconfig, JOBS)
            console, yardstick = measure(base)
    ours, theirs = statistics.median(console), statistics.median(yardstick)
    met = ours <= TARGET_MS
    print(f"console Jobs page first-contentful-paint, median of {RUNS}: {ours:.0f} ms")
    print(f"  runs: {', '.join(f'{v:.0f}' for v in console)} ms ({JOBS} jobs in the cluster)")
    print(f"yardstick: Swagger UI (/api/v1/docs) on the same server: {theirs:.0f} ms")
    print(f"  runs: {', '.join(f'{v:.0f}' for v in yardstick)} ms")
    print(f"ratio console / yardstick: {ours / theirs:.2f}")
    print(f"target <= {TARGET_MS:.0f} ms: {'met' if met else 'MISSED'}")
    return met


if __name__ == "__main__":
    sys.exit(harness.run(_measure))
