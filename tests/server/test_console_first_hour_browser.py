"""What a new user meets in the console's first hour, in a real headless Chromium at a 1366 px
wide window, against the installed `gpuctl serve` on a sandbox (no Prometheus): a wrong token
is told in words, not HTTP; the GPU use column says why it has no figure; the favicon loads
(no 404 on any page); the job page shows its pods' status and node, its creation time as a
local time and an age, its image broken only after `/` `:` `-`, and no empty log box for a
job whose pods never started; the admin forms' controls line up along their rows and none
covers another; the Pools and Nodes pages read their list endpoints, never one item each."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.sandbox import wait_for

from ..conftest import Env
from .conftest import QUOTA, SECRETS, inference
from .console_browser import Page, chrome, console_url, job_status, post, sign_in

__all__ = ["chrome", "console_url"]  # fixtures used by name

IMAGE = "registry.example.io/research/pytorch-distributed-training:2.3.0-cuda12.1-cudnn8-runtime"
STUCK = f"""kind: training
version: v0.1
job:
  name: stuck
environment:
  image: {IMAGE}
resources:
  gpu: 1
  cpu: 1
  memory: 1Gi
  pool: no-such-pool
"""

# where each line of an element's text starts: "<last char of a line>|<first of the next>"
LINE_BREAKS = """
const element = document.querySelector(arguments[0]);
const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
let top = null, last = '';
const breaks = [];
while (walker.nextNode()) {
  const node = walker.currentNode;
  for (let i = 0; i < node.length; i++) {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const rect = range.getClientRects()[0];
    if (!rect) continue;
    if (top !== null && rect.top > top + 2) breaks.push(last + '|' + node.data[i]);
    top = rect.top;
    last = node.data[i];
  }
}
return breaks;
"""

# the controls of the page's grid forms that another element covers at their left end, middle
# or right end, or whose box crosses another control's
COVERED = """
const found = [];
for (const form of document.querySelectorAll('form.grid-form')) {
  const controls = [...form.querySelectorAll('input, select, button')];
  for (const control of controls) {
    control.scrollIntoView({block: 'center'});
    const box = control.getBoundingClientRect();
    const y = box.top + box.height / 2;
    for (const x of [box.left + 3, box.left + box.width / 2, box.right - 3]) {
      const hit = document.elementFromPoint(x, y);
      if (hit !== control && !control.contains(hit)) {
        const above = hit && (hit.id || hit.textContent);
        found.push(`${control.id || control.textContent} under ${above}`);
      }
    }
    for (const other of controls) {
      const b = other.getBoundingClientRect();
      if (other !== control && box.left < b.right && b.left < box.right && box.top < b.bottom
          && b.top < box.bottom) {
        found.push(`${control.id || control.textContent} crosses ${other.id || other.textContent}`);
      }
    }
  }
}
return found;
"""

# per grid form row (fields whose boxes share a height): the tops of their labels and of their
# controls, which line up when the row is aligned
ROWS = """
const rows = [];
for (const form of document.querySelectorAll('form.grid-form')) {
  const fields = [...form.querySelectorAll(':scope > .field')].map((field) => ({
    box: field.getBoundingClientRect(),
    label: field.querySelector('label').getBoundingClientRect().top,
    control: field.querySelector('input, select').getBoundingClientRect().top,
    id: field.querySelector('input, select').id,
  }));
  const left = [...fields];
  while (left.length) {
    const first = left.shift();
    const beside = (f) => f.box.top < first.box.bottom && first.box.top < f.box.bottom;
    const row = [first, ...left.filter(beside)];
    for (const f of row.slice(1)) left.splice(left.indexOf(f), 1);
    rows.push({ids: row.map((f) => f.id), labels: row.map((f) => Math.round(f.label)),
               controls: row.map((f) => Math.round(f.control))});
  }
}
return rows;
"""

FORMS = (("/pools", "#pool-isolation"), ("/quotas", "#quota-user"), ("/nodes", "#label-key"))
FETCH = """
const done = arguments[arguments.length - 1];
fetch(arguments[0]).then(
  (r) => done(JSON.stringify({status: r.status, type: r.headers.get('content-type')})),
  (e) => done(String(e)));
"""


@pytest.fixture
def wide(chrome: Any) -> Iterator[Any]:
    """The browser at a common laptop's width, 1366 px."""
    chrome.set_window_size(1366, 900)
    yield chrome


def test_first_hour_in_a_real_browser(env: Env, console_url: str, wide: Any) -> None:
    served = console_url
    post(served, "admin", "/quotas", {"yamlContent": QUOTA})
    post(served, "alice", "/jobs", {"yamlContent": inference("web", replicas=1)})
    post(served, "alice", "/jobs?allowPending=true", {"yamlContent": STUCK})
    wait_for(lambda: job_status(served, "alice.web") == "running", timeout=120, what="web running")
    page = Page(wide, served, [])
    requests: list[dict[str, Any]] = []

    _wrong_token_in_words(page)
    sign_in(page, SECRETS["alice"])
    page.until(lambda: "alice.web" in page.rows(), "alice's jobs listed")
    _gpu_use_says_why(page)
    _favicon_loads(page)
    _job_page(page, served)
    _pending_job_page(page)
    requests += _network(wide)

    wide.get(served + "/")
    page.find("[data-testid=who]").find_element("xpath", "../button").click()  # Sign out
    sign_in(page, SECRETS["admin"])
    page.until(lambda: page.find("[data-testid=who]").text == "ops (admin)", "signed in as ops")
    for path, ready in FORMS:
        wide.get(served + path)
        page.find(ready)
        page.until(lambda: page.driver.find_elements("css selector", "meter"), f"{path} drawn")
        assert wide.execute_script(COVERED) == [], path
        rows = wide.execute_script(ROWS)
        assert max(len(row["ids"]) for row in rows) >= 3, rows  # fields side by side
        for row in rows:
            assert len(set(row["labels"])) == 1 and len(set(row["controls"])) == 1, (path, row)
    requests += _network(wide)

    _no_request_per_item(requests)
    missing = [r["url"] for r in requests if r["status"] == 404]
    assert missing == []  # no favicon (or anything else) missing on any page


def _network(chrome: Any) -> list[dict[str, Any]]:
    """The responses the browser received since the last call: url and status."""
    found = []
    for entry in chrome.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.responseReceived":
            response = message["params"]["response"]
            found.append({"url": response["url"], "status": response["status"]})
    return found


def _wrong_token_in_words(page: Page) -> None:
    sign_in(page, "not-a-token")
    alert = page.find("[role=alert]").text
    assert alert.startswith("That token is not known to this server."), alert
    assert not re.search(r"Bearer|Authorization|401", alert), alert
    page.find("#token").clear()
    page.driver.execute_script("document.activeElement.blur()")


def _gpu_use_says_why(page: Page) -> None:
    cell = page.find("tr[data-job='alice.web'] [data-testid=no-gpu-use]")
    reason = "no GPU metrics: Prometheus is not configured"
    page.until(lambda: cell.get_attribute("title") == reason, "the reason as the cell's title")
    assert cell.find_element("css selector", ".visually-hidden").get_attribute("textContent") == (
        reason
    )
    assert "--prometheus-url" in page.find("[data-testid=gpu-use-note]").text


def _favicon_loads(page: Page) -> None:
    href = page.driver.execute_script("return document.querySelector('link[rel=icon]').href")
    assert href == page.base + "/favicon.svg"
    answer = json.loads(page.driver.execute_async_script(FETCH, href))
    assert answer == {"status": 200, "type": "image/svg+xml"}


def _job_page(page: Page, served: str) -> None:
    detail = httpx.get(
        f"{served}/api/v1/jobs/alice.web",
        headers={"Authorization": f"Bearer {SECRETS['alice']}"},
        timeout=60,
    ).json()
    page.driver.get(served + "/jobs/alice.web")
    [pod] = detail["k8sResources"]["podStates"]
    line = page.find(f"[data-testid=pods] li[data-pod='{pod['name']}']")
    page.until(
        lambda: line.text == f"{pod['name']}: Running, 1/1 ready, on {pod['node']}", "pod line"
    )
    created = page.find("[data-field=created] time")
    assert created.get_attribute("title") == detail["createdAt"]
    assert re.fullmatch(r".+ \(\d+[smhd] ago\)", created.text), created.text
    assert detail["createdAt"] not in created.text  # a local time, not the raw ISO one
    page.until(lambda: page.find("[data-testid=log-state]").text == "following", "following")


def _pending_job_page(page: Page) -> None:
    page.driver.get(page.base + "/jobs/alice.stuck")
    assert page.find("[data-testid=no-logs]").text == (
        "No logs yet: the job's pods have not started."
    )
    assert page.driver.find_elements("css selector", "[data-testid=logs]") == []
    image = page.find("[data-field=image] code")
    assert image.get_attribute("title") == IMAGE
    breaks = page.driver.execute_script(LINE_BREAKS, "[data-field=image] code")
    assert breaks, "the image name fits on one line: the check needs it to wrap"
    assert all(mark[0] in "/:-@" for mark in breaks), breaks  # never inside a word
    page.until(
        lambda: page.find("[data-testid=pods] li").text.endswith(
            ": Pending, 0/1 ready, not on a node yet"
        ),
        "the pod waiting for a node",
    )


def _no_request_per_item(requests: list[dict[str, Any]]) -> None:
    """Pools and Nodes read GET /pools, /nodes and /nodes/labels/all: never one pool or node."""
    per_item = [
        r["url"]
        for r in requests
        if re.search(r"/api/v1/(pools|nodes)/(?!labels/all)[^?]+", r["url"])
    ]
    assert per_item == []
    listed = {re.sub(r"\?.*", "", r["url"]).split("/api/v1")[-1] for r in requests}
    assert {"/pools", "/nodes", "/nodes/labels/all", "/quotas"} <= listed
