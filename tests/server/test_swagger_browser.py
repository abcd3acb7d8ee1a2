"""The Swagger page in a real headless Chromium (Debian's `chromium` and `chromium-driver`,
driven by Selenium): the installed `gpuctl serve` on a sandbox, a token entered through
"Authorize", GET /jobs made from the page ("Try it out", "Execute"), its answer shown, the
server's own metrics counting it, and no request leaving the server (no CDN)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.ports import free_port

from ..conftest import GPUCTL, Env
from .conftest import SECRETS, training

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
BROWSER_FLAGS = ("--headless", "--no-sandbox", "--disable-background-networking")
WAIT = 30.0


@pytest.fixture
def served(env: Env, token_file: Path) -> Iterator[str]:
    """The installed `gpuctl serve` on the sandbox; its base URL."""
    port = free_port()
    server = subprocess.Popen(
        [
            *(str(GPUCTL), "serve", "--port", str(port), "--tokens", str(token_file)),
            *("--kubeconfig", str(env.kubeconfig)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                httpx.get(f"{base}/metrics")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "gpuctl serve did not start"
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def browser() -> Iterator[Any]:
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(
            "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*BROWSER_FLAGS, "--disable-dev-shm-usage", "--window-size=1400,2000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _requested_urls(driver: Any) -> list[str]:
    """Every URL the page asked for (Chrome's DevTools network log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def test_swagger_page_makes_a_call_in_a_real_browser(env: Env, served: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shown
    from selenium.webdriver.support.ui import WebDriverWait

    admin = {"Authorization": f"Bearer {SECRETS['admin']}"}
    made = httpx.post(
        f"{served}/api/v1/jobs", json={"yamlContent": training("demo")}, headers=admin
    )
    assert made.status_code == 201, made.text
    wait = WebDriverWait(browser, WAIT)
    browser.get(f"{served}/api/v1/docs")

    def click(css: str, within: Any = None) -> None:
        root = within or browser
        wait.until(lambda _: root.find_element(By.CSS_SELECTOR, css).is_displayed())
        root.find_element(By.CSS_SELECTOR, css).click()

    click("button.authorize")
    wait.until(shown.visibility_of_element_located((By.CSS_SELECTOR, ".modal-ux input")))
    browser.find_element(By.CSS_SELECTOR, ".modal-ux input").send_keys(SECRETS["admin"])
    click(".modal-ux button.authorize")
    click(".modal-ux button.btn-done")
    operation = wait.until(shown.presence_of_element_located((By.ID, "operations-jobs-listJobs")))
    click(".opblock-summary", operation)
    click("button.try-out__btn", operation)
    click("button.execute", operation)
    live = ".live-responses-table tr.response"
    status = wait.until(
        lambda _: operation.find_element(By.CSS_SELECTOR, f"{live} td.response-col_status").text
    )
    assert status.strip() == "200"
    body = operation.find_element(By.CSS_SELECTOR, f"{live} .highlight-code pre")
    answer = json.loads(body.text)
    assert answer["total"] == 1
    assert answer["items"][0]["jobId"] == "default.demo"

    metrics = httpx.get(f"{served}/metrics").text
    assert 'gpuctl_api_requests_total{code="200",method="GET",route="/api/v1/jobs"} 1.0' in metrics
    urls = _requested_urls(browser)
    assert f"{served}/api/v1/docs/assets/swagger-ui-bundle.js" in urls
    assert any(url.startswith(f"{served}/api/v1/jobs?") for url in urls)
    foreign = [
        url
        for url in urls
        if urlsplit(url).netloc != urlsplit(served).netloc and not url.startswith("data:")
    ]
    assert foreign == []
    # the page's Content-Security-Policy let everything it needs run: no violation reported
    console = [entry["message"] for entry in browser.get_log("browser")]
    assert not [line for line in console if "Content Security Policy" in line], console
