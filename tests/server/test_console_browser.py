"""The web console in a real headless Chromium (Debian's `chromium` and `chromium-driver`,
driven by Selenium, as the Swagger page's test does: the same browser and driver CI already
installs, and the test stays in pytest with the sandbox's fixtures), against the installed
`gpuctl serve` on a sandbox: a wrong token is told in words; alice signs in with the
keyboard, sees her jobs with their statuses (a gpu-share job's GPUs as its share) and not
another tenant's, opens one and sees its
log lines arrive live; the admin sees every job and deletes one through the confirmation;
axe-core finds no serious or critical violation on either page; the headers are checked over
plain HTTP. Screenshots of each page go to the test's tmp dir (and to $GPUCTL_SCREENSHOTS when
set, which is how docs/images/console-*.png are made)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from tests.support.sandbox import wait_for
from tests.support.tools import console_modules

from ..conftest import Env
from .conftest import QUOTA, SECRETS, inference, training
from .console_browser import Page, chrome, console_url, job_status, post, sign_in

__all__ = ["chrome", "console_url"]  # fixtures used by name

# a gpu-share service: 8Gi of one GPU's memory, no whole GPU
SHARED = inference("shared", replicas=1, gpu=0).replace(
    "  memory: 1Gi\n", "  memory: 1Gi\n  gpu-share: 8Gi\n"
)


def test_console_in_a_real_browser(
    env: Env,
    console_url: str,
    chrome: Any,
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.keys import Keys

    served = console_url
    axe_source = (console_modules() / "axe-core" / "axe.min.js").read_text()
    post(served, "admin", "/quotas", {"yamlContent": QUOTA})
    post(served, "alice", "/jobs", {"yamlContent": inference("web", replicas=1)})
    post(served, "alice", "/jobs", {"yamlContent": SHARED})
    post(served, "admin", "/jobs", {"yamlContent": training("train")})
    post(served, "bob", "/jobs", {"yamlContent": training("bob-train")})
    wait_for(
        lambda: job_status(served, "alice.web") == "running", timeout=120, what="alice.web running"
    )
    shots: list[Path] = []
    page = Page(chrome, served, shots)

    # a wrong token: said in words (the API's 401 speaks HTTP), nothing kept
    sign_in(page, "not-a-token")
    refused = httpx.post(f"{served}/api/v1/auth/check", json={}, headers={"Authorization": "x"})
    assert refused.status_code == 401
    alert = page.find("[role=alert]").text
    assert alert.startswith("That token is not known to this server."), alert
    assert refused.json()["message"] not in alert
    assert chrome.execute_script("return sessionStorage.length") == 0

    # alice, with the keyboard: her jobs only, with the API's status words
    page.find("#token").clear()
    page.driver.execute_script("document.activeElement.blur()")
    sign_in(page, SECRETS["alice"])
    page.until(lambda: {"alice.web", "alice.shared"} <= set(page.rows()), "alice's jobs listed")
    assert page.find("h1").text == "Your jobs"
    assert page.find("[data-testid=who]").text == "alice (user)"
    rows = page.rows()
    assert set(rows) == {"alice.web", "alice.shared"}  # no job of ops' or bob's
    assert rows["alice.web"][1:6] == ["inference", "default", "Running", "1/1", "1"]
    assert rows["alice.shared"][5] == "8Gi shared"  # part of one GPU's memory, not "0"
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
    sign_in(page, SECRETS["admin"])
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
