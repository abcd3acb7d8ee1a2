"""The console's admin pages (Pools, Nodes, Quotas, GPUWorkloads) in a real headless Chromium
against the installed `gpuctl serve` on a sandbox, by keyboard alone: alice (a user) sees the
pools, nodes and quotas with no admin control, and a write she forces from the page's own
JavaScript with her token gets the API's 403; the admin creates a pool, moves a node into it
(its bars and nodes follow), sets and removes a node label (and sees the API refuse a key it
may not write), creates and deletes a quota, and reads the GPUWorkloads. axe-core finds no
serious or critical violation on any page; no CSP violation is logged. Screenshots of each
page go to the test's tmp dir (and to $GPUCTL_SCREENSHOTS when set: docs/images/console-*.png)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from gpuctl.cluster.errors import AlreadyExists
from gpuctl.controller import resource
from tests.support.tools import console_modules

from ..conftest import Env
from .conftest import QUOTA, SECRETS
from .console_browser import Page, chrome, console_url, post, sign_in

__all__ = ["chrome", "console_url"]  # fixtures used by name

FORCED = """
const done = arguments[arguments.length - 1];
fetch("/api/v1/pools", {
  method: "POST",
  headers: {
    Authorization: "Bearer " + sessionStorage.getItem("gpuctl.token"),
    "Content-Type": "application/json",
  },
  body: JSON.stringify({name: "alice-pool", nodes: ["gpu-t4-0"]}),
}).then(async (r) => done(JSON.stringify({status: r.status, body: await r.json()})));
"""


def test_admin_pages_in_a_real_browser(
    env: Env, console_url: str, chrome: Any, tmp_path: Path
) -> None:
    served = console_url
    axe_source = (console_modules() / "axe-core" / "axe.min.js").read_text()
    post(served, "admin", "/quotas", {"yamlContent": QUOTA})
    pool = {"name": "train-pool", "nodes": ["gpu-a100-0"], "gpuType": ["A100-80G"], "maxGpus": 8}
    post(served, "admin", "/pools", pool)
    _workloads(env)
    shots: list[Path] = []
    page = Page(chrome, served, shots)

    sign_in(page, SECRETS["alice"])
    page.find("[data-testid=who]")
    _as_a_user(page, axe_source)

    _go(page, "Sign out")
    sign_in(page, SECRETS["admin"])
    page.until(lambda: page.find("[data-testid=who]").text == "ops (admin)", "signed in as ops")
    _pools_as_admin(page, axe_source, tmp_path)
    _nodes_as_admin(page, axe_source, tmp_path)
    _quotas_as_admin(page, axe_source, tmp_path)
    _workloads_as_admin(page, axe_source, tmp_path)

    csp = [e["message"] for e in chrome.get_log("browser") if "Content Security" in e["message"]]
    assert csp == []
    target = os.environ.get("GPUCTL_SCREENSHOTS")
    assert all(path.stat().st_size > 10_000 for path in shots)
    if target:
        for path in shots:
            shutil.copy(path, Path(target) / path.name)


def _workloads(env: Env) -> None:
    """The GPUWorkload CRD and two workloads of alice's, one placed (no controller runs here:
    its status is written as the controller writes it)."""
    with contextlib.suppress(AlreadyExists):
        env.cluster.create(resource.crd())
    for name, gpus in (("llama-7b", 2), ("bert-base", 1)):
        body = {
            "apiVersion": resource.API_VERSION,
            "kind": resource.KIND,
            "metadata": {"name": name, "namespace": "alice"},
            "spec": {"modelName": name, "gpuCount": gpus},
        }
        env.cluster.create(body)
    status = {
        "phase": "Scheduled",
        "assignedNode": "gpu-a100-1",
        "jobName": "llama-7b",
        "message": "placed on gpu-a100-1 (least-loaded: 8 GPUs free)",
    }
    env.cluster.patch_status("GPUWorkload", "llama-7b", "alice", status)


def _go(page: Page, link: str) -> None:
    """Tab to a link or button by its text and press Enter."""
    from selenium.webdriver.common.keys import Keys

    page.tab_to(lambda e: e.text == link, limit=120)
    page.keys(Keys.ENTER)


def _type_into(page: Page, field: str, text: str) -> None:
    """Tab to the field with this id (Tab selects what it holds) and type over it."""
    page.tab_to(lambda e: e.get_attribute("id") == field, limit=120)
    page.keys(text)


def _submit(page: Page, field: str, text: str) -> None:
    from selenium.webdriver.common.keys import Keys

    _type_into(page, field, text)
    page.keys(Keys.ENTER)


def _outcome(page: Page, words: str) -> None:
    page.until(lambda: words in page.find("[data-testid=outcome]").text, f"outcome: {words}")


def _controls(page: Page) -> list[str]:
    from selenium.webdriver.common.by import By

    found = page.driver.find_elements(By.CSS_SELECTOR, "main button, main form, main input")
    return [str(e.text or e.get_attribute("id") or e.tag_name) for e in found]


def _bars(page: Page, css: str) -> list[str]:
    from selenium.webdriver.common.by import By

    found = page.driver.find_elements(By.CSS_SELECTOR, f"{css} meter")
    return [
        str(e.get_attribute("aria-label")) + ": " + str(e.get_attribute("aria-valuetext"))
        for e in found
    ]


def _as_a_user(page: Page, axe_source: str) -> None:
    _go(page, "Pools")
    page.find("[data-pool=train-pool] meter")
    assert _bars(page, "[data-pool=train-pool]")[:2] == [
        "train-pool: GPUs: 0 of 8 GPUs used (0%)",
        "train-pool: GPU cap: 0 of 8 GPUs used (0%)",
    ]
    assert page.find("[data-pool=train-pool] ul.nodes").text == "gpu-a100-0"
    assert _controls(page) == []
    forced = json.loads(page.driver.execute_async_script(FORCED))
    assert forced == {
        "status": 403,
        "body": {"error": "Forbidden", "message": "create pools: admins only"},
    }
    assert page.axe(axe_source) == []

    _go(page, "Nodes")
    page.find("tr[data-node=gpu-a100-0] meter")
    cells = page.driver.find_elements("css selector", "tr[data-node=gpu-a100-0] td")
    assert [cell.text for cell in cells[1:3]] == ["A100-80G", "NVIDIA"]  # the API's vendor
    assert _controls(page) == []
    _go(page, "Quotas")
    page.find("[data-quota=alice] meter")
    assert len(page.driver.find_elements("css selector", "[data-quota]")) == 1  # her own
    assert _controls(page) == []
    _go(page, "GPUWorkloads")
    page.find("tr[data-workload='alice/llama-7b']")


def _pools_as_admin(page: Page, axe_source: str, folder: Path) -> None:
    _go(page, "Pools")
    page.find("#pool-name")
    _type_into(page, "pool-name", "tuning")
    _type_into(page, "pool-cap", "6")
    _submit(page, "pool-nodes", "gpu-t4-0")
    _outcome(page, "created")
    page.until(lambda: _bars(page, "[data-pool=tuning]"), "tuning's bars")
    assert _bars(page, "[data-pool=tuning]")[:2] == [
        "tuning: GPUs: 0 of 4 GPUs used (0%)",
        "tuning: GPU cap: 0 of 6 GPUs used (0%)",
    ]
    _submit(page, "add-tuning", "gpu-a100-1")
    _outcome(page, "node/gpu-a100-1 added to pool tuning")
    page.until(
        lambda: (
            page.find("[data-pool=tuning] ul.nodes").text.split()
            == ["gpu-a100-1", "Remove", "gpu-t4-0", "Remove"]
        ),
        "gpu-a100-1 among tuning's nodes",
    )
    page.until(
        lambda: (
            _bars(page, "[data-pool=tuning]")
            == [
                "tuning: GPUs: 0 of 12 GPUs used (0%)",
                "tuning: GPU cap: 0 of 6 GPUs used (0%)",
                "tuning: A100-80G: 0 of 8 GPUs used (0%)",
                "tuning: T4-16G: 0 of 4 GPUs used (0%)",
            ]
        ),
        "tuning's bars with gpu-a100-1",
    )
    _submit(page, "cap-train-pool", "12")
    _outcome(page, "configmap/pool-train-pool configured")
    capped = "train-pool: GPU cap: 0 of 12 GPUs used (0%)"
    page.until(lambda: _bars(page, "[data-pool=train-pool]")[1] == capped, "the cap bar of 12")
    page.screenshot("pools", folder)
    assert page.axe(axe_source) == []


def _labels(page: Page, node: str) -> str:
    return str(page.find(f"tr[data-node={node}] td.labels").get_attribute("textContent"))


def _nodes_as_admin(page: Page, axe_source: str, folder: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    _go(page, "Nodes")
    page.find("#label-key")
    assert page.find("#label-node").get_attribute("value") == "cpu-0"
    _type_into(page, "label-key", "g8s.host/rack")
    _submit(page, "label-value", "r1")
    _outcome(page, "node/cpu-0 labeled")
    page.until(lambda: "g8s.host/rack=r1" in _labels(page, "cpu-0"), "the label in the table")
    _type_into(page, "label-key", "runwhere.ai/gpu-type")
    _submit(page, "label-value", "H100")
    page.until(
        lambda: "g8s.host/" in page.find("[data-testid=outcome].problem").text, "the refusal"
    )
    _type_into(page, "label-key", "g8s.host/rack")
    _go(page, "Remove label")
    _outcome(page, "node/cpu-0 unlabeled")
    page.until(lambda: "g8s.host/rack" not in _labels(page, "cpu-0"), "the label gone")
    page.tab_to(lambda e: e.text == "1 labels" or e.tag_name == "summary", limit=120)
    page.keys(Keys.ENTER)
    page.screenshot("nodes", folder)
    assert page.axe(axe_source) == []


def _quotas_as_admin(page: Page, axe_source: str, folder: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    _go(page, "Quotas")
    page.find("#quota-user")
    _type_into(page, "quota-user", "carol")
    _type_into(page, "quota-gpu", "2")
    _type_into(page, "quota-cpu", "4")
    _submit(page, "quota-memory", "8Gi")
    _outcome(page, "created")
    page.until(lambda: _bars(page, "[data-quota=carol]"), "carol's bars")
    assert _bars(page, "[data-quota=carol]") == [
        "carol: gpu: 0 of 2 used (0%)",
        "carol: cpu: 0 of 4 used (0%)",
        "carol: memory: 0 of 8Gi used (0%)",
    ]
    page.screenshot("quotas", folder)
    assert page.axe(axe_source) == []
    _go(page, "Delete quota of carol")
    assert page.find("dialog[open]").text.startswith("Delete carol's quotas?")
    page.tab_to(
        lambda e: e.text == "Delete quota of carol" and e.find_elements("xpath", "ancestor::dialog")
    )
    page.keys(Keys.ENTER)
    _outcome(page, "deleted")
    page.until(lambda: not page.driver.find_elements("css selector", "[data-quota=carol]"), "gone")


def _workloads_as_admin(page: Page, axe_source: str, folder: Path) -> None:
    from selenium.webdriver.common.by import By

    _go(page, "GPUWorkloads")
    row = page.find("tr[data-workload='alice/llama-7b']")
    cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
    assert cells == [
        "llama-7b",
        "2",
        "Scheduled",
        "gpu-a100-1",
        "llama-7b",
        "0",
        "placed on gpu-a100-1 (least-loaded: 8 GPUs free)",
    ]
    assert page.find("tr[data-workload='alice/bert-base'] td.status").text == "Pending"
    page.screenshot("workloads", folder)
    assert page.axe(axe_source) == []
