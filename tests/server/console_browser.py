"""What the console's browser tests share: the installed `gpuctl serve` on the sandbox, headless
Chromium driven by Selenium, and a `Page` with the waits and checks the scenarios repeat."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.ports import free_port
from tests.support.sandbox import wait_for

from ..conftest import GPUCTL, Env
from .conftest import SECRETS
from .test_swagger_browser import CHROMEDRIVER, CHROMIUM, WAIT

START = 180.0  # seconds `gpuctl serve` may take to answer on a loaded machine

SEVERE = ("serious", "critical")


@contextlib.contextmanager
def served(kubeconfig: Path, *flags: str) -> Iterator[str]:
    """The installed `gpuctl serve` with `flags` (its auth, e.g. --tokens FILE) on the cluster
    of `kubeconfig`, until the block ends; its base URL."""
    port = free_port()
    server = subprocess.Popen(
        [str(GPUCTL), "serve", "--port", str(port), *flags, "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(f"{base}/readyz"), timeout=START, what="gpuctl serve")
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def console_url(env: Env, token_file: Path) -> Iterator[str]:
    """The installed `gpuctl serve` on the sandbox; its base URL."""
    with served(env.kubeconfig, "--tokens", str(token_file)) as base:
        yield base


def _answers(url: str) -> bool:
    try:
        return httpx.get(url).status_code == 200
    except httpx.TransportError:
        return False


@pytest.fixture
def chrome() -> Iterator[Any]:
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(
            "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-background-networking"):
        options.add_argument(flag)
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--window-size=1280,900")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def post(served: str, who: str, path: str, body: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {SECRETS[who]}"}
    answer = httpx.post(f"{served}/api/v1{path}", json=body, headers=headers, timeout=60)
    assert answer.status_code == 201, answer.text


def job_status(served: str, job: str) -> str:
    headers = {"Authorization": f"Bearer {SECRETS['admin']}"}
    answer = httpx.get(f"{served}/api/v1/jobs/{job}", headers=headers, timeout=60)
    return str(answer.json().get("status"))


class Page:
    """The browser on the console, with the waits and checks the scenario repeats."""

    def __init__(self, driver: Any, base: str, shots: list[Path]) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver, self.base, self.shots = driver, base, shots
        self.wait = WebDriverWait(driver, WAIT)

    def find(self, css: str) -> Any:
        from selenium.webdriver.common.by import By

        self.wait.until(lambda _: self.driver.find_elements(By.CSS_SELECTOR, css))
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def until(self, check: Callable[[], Any], what: str) -> Any:
        return self.wait.until(lambda _: check(), message=what)

    def keys(self, *keys: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(*keys).perform()

    def tab_to(self, check: Callable[[Any], bool], limit: int = 40) -> Any:
        """Press Tab until the focused element passes `check` (what a keyboard user does)."""
        from selenium.webdriver.common.keys import Keys

        for _ in range(limit):
            self.keys(Keys.TAB)
            focused = self.driver.switch_to.active_element
            if check(focused):
                return focused
        raise AssertionError("no element reached with Tab passes the check")

    def rows(self) -> dict[str, list[str]]:
        from selenium.webdriver.common.by import By

        found = {}
        for row in self.driver.find_elements(By.CSS_SELECTOR, "tbody tr[data-job]"):
            cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            found[row.get_attribute("data-job")] = cells
        return found

    def screenshot(self, name: str, folder: Path) -> None:
        path = folder / f"console-{name}.png"
        self.driver.save_screenshot(str(path))
        self.shots.append(path)

    def axe(self, axe_source: str) -> list[dict[str, Any]]:
        """axe-core's violations on the page now, serious and critical only."""
        self.driver.execute_script(axe_source)
        found = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']})"
            ".then((r) => done(JSON.stringify(r.violations)), (e) => done(String(e)));"
        )
        violations: list[dict[str, Any]] = json.loads(found)
        return [
            {"id": v["id"], "impact": v["impact"], "nodes": [n["html"] for n in v["nodes"]]}
            for v in violations
            if v["impact"] in SEVERE
        ]


def sign_in(page: Page, token: str) -> None:
    from selenium.webdriver.common.keys import Keys

    page.driver.get(page.base + "/")
    page.find("#token")
    page.tab_to(lambda e: e.get_attribute("id") == "token")
    page.keys(token, Keys.ENTER)


@contextlib.contextmanager
def serving_console(env: Env, token_file: Path, *flags: str) -> Iterator[str]:
    """The installed `gpuctl serve` on the sandbox with more `flags` (e.g. --prometheus-url
    URL); its base URL."""
    with served(env.kubeconfig, "--tokens", str(token_file), *flags) as base:
        yield base
