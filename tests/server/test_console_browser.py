"""The web console in a real headless Chromium (Debian's `chromium` and `chromium-driver`,
driven by Selenium, as the Swagger page's test does: the same browser and driver CI already
installs, and the test stays in pytest with the sandbox's fixtures), against the installed
`gpuctl serve` on a sandbox: a wrong token shows the API's message; alice signs in with the
keyboard, sees her jobs with their statuses and not another tenant's, opens one and sees its
log lines arrive live; the admin sees every job and deletes one through the confirmation;
axe-core finds no serious or critical violation on either page; the headers are checked over
plain HTTP. Screenshots of each page go to the test's tmp dir (and to $GPUCTL_SCREENSHOTS when
set, which is how docs/images/console-*.png are made)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.ports import free_port
from tests.support.sandbox import wait_for
from tests.support.tools import console_modules

from ..conftest import GPUCTL, Env
from .conftest import QUOTA, SECRETS, inference, training
from .test_swagger_browser import CHROMEDRIVER, CHROMIUM, WAIT

START = 180.0  # seconds `gpuctl serve` may take to answer on a loaded machine

SEVERE = ("serious", "critical")


@pytest.fixture
def console_url(env: Env, token_file: Path) -> Iterator[str]:
    """The installed `gpuctl serve` on the sandbox; its base URL."""
    port = free_port()
    command = [str(GPUCTL), "serve", "--port", str(port), "--tokens", str(token_file)]
    server = subprocess.Popen(
        [*command, "--kubeconfig", str(env.kubeconfig)],
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


def _post(served: str, who: str, path: str, body: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {SECRETS[who]}"}
    answer = httpx.post(f"{served}/api/v1{path}", json=body, headers=headers, timeout=60)
    assert answer.status_code == 201, answer.text


def _job_status(served: str, job: str) -> str:
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


def _sign_in(page: Page, token: str) -> None:
    from selenium.webdriver.common.keys import Keys

    page.driver.get(page.base + "/")
    page.find("#token")
    page.tab_to(lambda e: e.get_attribute("id") == "token")
    page.keys(token, Keys.ENTER)


def test_console_in_a_real_browser(
    env: Env,
    console_url: str,
    chrome: Any,
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.keys import Keys

    served = console_url
    axe_source = (console_modules() / "axe-core" / "axe.min.js").read_text()
    _post(served, "admin", "/quotas", {"yamlContent": QUOTA})
    _post(served, "alice", "/jobs", {"yamlContent": inference("web", replicas=1)})
    _post(served, "admin", "/jobs", {"yamlContent": training("train")})
    _post(served, "bob", "/jobs", {"yamlContent": training("bob-train")})
    wait_for(
        lambda: _job_status(served, "alice.web") == "running", timeout=120, what="alice.web running"
    )
    shots: list[Path] = []
    page = Page(chrome, served, shots)

    # a wrong token: the API's own message, nothing kept
    _sign_in(page, "not-a-token")
    refused = httpx.post(f"{served}/api/v1/auth/check", json={}, headers={"Authorization": "x"})
    message = refused.json()["message"]
    assert page.find("[role=alert]").text == message
    assert chrome.execute_script("return sessionStorage.length") == 0

    # alice, with the keyboard: her jobs only, with the API's status words
    page.find("#token").clear()
    page.driver.execute_script("document.activeElement.blur()")
    _sign_in(page, SECRETS["alice"])
    page.until(lambda: "alice.web" in page.rows(), "alice.web listed")
    assert page.find("h1").text == "Your jobs"
    assert page.find("[data-testid=who]").text == "alice (user)"
    rows = page.rows()
    assert set(rows) == {"alice.web"}  # no job of ops' or bob's
    assert rows["alice.web"][1:5] == ["inference", "default", "Running", "1/1"]
    assert (
        chrome.execute_script("return sessionStorage.getItem('gpuctl.token')") == SECRETS["alice"]
    )
    assert chrome.get_cookies() == []
    page.screenshot("jobs", tmp_path)
    assert page.axe(axe_source) == []

    # the job page, reached with Tab and Enter: the spec, the pods, log lines arriving live
    page.tab_to(lambda e: e.text == "alice.web")
    page.keys(Keys.ENTER)
    page.until(lambda: chrome.current_url == f"{served}/jobs/alice.web", "on the job page")
    assert "kind: inference" in page.find("[data-testid=spec]").text
    assert page.find("[data-testid=pods] li").text.startswith("web-")
    page.until(lambda: page.find("[data-testid=log-state]").text == "following", "following")
    first = page.until(lambda: page.find("[data-testid=logs]").text.splitlines(), "log lines")
    page.until(
        lambda: len(page.find("[data-testid=logs]").text.splitlines()) > len(first) + 1,
        "new log lines while following",
    )
    page.screenshot("job", tmp_path)
    assert page.axe(axe_source) == []

    # a reload keeps the session (sessionStorage) and the page (index.html for any path)
    chrome.refresh()
    assert page.find("h1").text == "alice.web"
    page.find("[data-testid=who]")

    # the admin sees everyone's jobs, and deletes one through the confirmation
    page.tab_to(lambda e: e.text == "Sign out")
    page.keys(Keys.ENTER)
    assert chrome.execute_script("return sessionStorage.length") == 0
    chrome.get(served + "/")
    _sign_in(page, SECRETS["admin"])
    page.until(lambda: {"alice.web", "default.train", "bob.bob-train"} <= set(page.rows()), "all")
    assert page.find("h1").text == "All jobs"
    chrome.get(served + "/jobs/default.train")
    page.find("[data-testid=summary]")
    page.tab_to(lambda e: e.text == "Delete job")
    page.keys(Keys.ENTER)
    assert page.find("dialog").get_attribute("open") is not None
    page.tab_to(lambda e: e.text == "Delete" and e.tag_name == "button")
    page.keys(Keys.ENTER)
    page.until(lambda: "deleted" in page.find("[role=status].notice").text.lower(), "deleted")
    page.until(lambda: "default.train" not in page.rows() and page.rows(), "back on the list")

    _assert_nothing_left_the_server(chrome, served)
    _assert_headers(served)
    _copy_screenshots(shots)


def _assert_nothing_left_the_server(chrome: Any, served: str) -> None:
    """No request to another origin, no token in any URL, no CSP violation."""
    urls = []
    for entry in chrome.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            params = message["params"]
            urls.append(params.get("request", {}).get("url") or params.get("url", ""))
    here = urlsplit(served).netloc
    assert [url for url in urls if urlsplit(url).netloc not in ("", here)] == []
    assert any(url.startswith(f"ws://{here}/api/v1/jobs/alice.web/logs") for url in urls)
    assert not any(secret in url for url in urls for secret in SECRETS.values())
    console_log = [entry["message"] for entry in chrome.get_log("browser")]
    assert not [line for line in console_log if "Content Security Policy" in line]


def _copy_screenshots(shots: list[Path]) -> None:
    target = os.environ.get("GPUCTL_SCREENSHOTS")
    assert all(path.stat().st_size > 10_000 for path in shots)
    if target:
        for path in shots:
            shutil.copy(path, Path(target) / path.name)


def _assert_headers(served: str) -> None:
    """The console's headers over plain HTTP, from the installed server."""
    page = httpx.get(f"{served}/jobs/alice.web")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-cache"
    csp = page.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    script = page.text.split('src="', 1)[1].split('"', 1)[0]
    asset = httpx.get(served + script)
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert asset.headers["content-type"].startswith("text/javascript")
    assert httpx.get(f"{served}/api/v1/jobs").status_code == 401  # the API still decides
