"""The console's New job page in a real headless Chromium, against the installed `gpuctl serve`
on a sandbox with the example cluster's nodes, with the keyboard only: alice opens New job,
fills the editor from the notebook template, breaks a field (the schema's error appears on its
line as she types, before anything is sent), is asked before a template replaces her text,
fixes the field, submits a spec the schema accepts but the server refuses (a host path she
may not mount: the server's `file:line:col` problem is marked on its line and shown in an
alert), deletes the storage section, asks for a GPU type no node has (refused as
Unschedulable: marked on its line, the alert names the Allow pending checkbox, nothing is
created), checks Allow pending and submits again: she lands on the job's page, Pending, and it
runs once a node of that type joins (the pool's node relabelled).
axe-core finds no serious or critical violation; the CSP is never violated (the editor's
styles are a constructed style sheet in its shadow root, not an inline <style>)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuctl.sandbox.config import SandboxConfig
from tests.support.sandbox import wait_for
from tests.support.tools import console_modules

from ..conftest import Env
from .conftest import SECRETS
from .console_browser import Page, chrome, console_url, job_status, post, sign_in
from .test_console_browser import _copy_screenshots

__all__ = ["chrome", "console_url"]  # fixtures used by name

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUOTA = """kind: quota
version: v0.1
metadata:
  name: team
users:
  alice: {cpu: 16, memory: 64Gi, gpu: 4}
"""
JOB = "alice.data-prep-notebook"  # examples/notebook.yaml's job, in alice's namespace
GPU_LINE = 20  # examples/notebook.yaml's `  gpu: 1`
STORAGE_LINES = 3  # its last lines: storage:, workdirs:, - path: /home/jovyan/work
HOST_PATH_LINE = 28
GPU_TYPE_LINE = 21  # its `  gpu-type: a10-24g`
GPU_TYPE = "a10-24g"
GPU_TYPE_TEXT = (EXAMPLES / "notebook.yaml").read_text().splitlines()[GPU_TYPE_LINE - 1]
MISSING_TYPE = "h900"  # a GPU type no node carries until gpu-a10-0 is relabelled
EMPTY = "Paste or write a spec, or use a template."  # the problems box of an empty editor


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """The example cluster's nodes (dev-pool's gpu-a10-0 is the notebook's), test timings."""
    return SandboxConfig.fast(nodes=SandboxConfig.load(EXAMPLES / "sandbox" / "cluster.yaml").nodes)


def test_new_job_page_in_a_real_browser(
    env: Env, console_url: str, chrome: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys

    served = console_url
    axe_source = (console_modules() / "axe-core" / "axe.min.js").read_text()
    post(served, "admin", "/quotas", {"yamlContent": QUOTA})
    post(served, "admin", "/pools", {"name": "dev-pool", "nodes": ["gpu-a10-0"]})
    shots: list[Path] = []
    page = Page(chrome, served, shots)
    sign_in(page, SECRETS["alice"])
    page.find("[data-testid=who]")

    # New job, from the nav; the notebook template fills the empty editor at once
    page.tab_to(lambda e: e.text == "New job")
    page.keys(Keys.ENTER)
    page.until(lambda: chrome.current_url == f"{served}/new", "on the New job page")
    assert page.find("h1").text == "New job"
    assert _problems(page) == [EMPTY]  # nothing to check yet: not "No problems found."
    page.tab_to(lambda e: e.tag_name == "select")
    page.keys("notebook")
    assert page.find("select").get_attribute("value") == "notebook"
    page.tab_to(lambda e: e.text == "Use template")
    page.keys(Keys.ENTER)
    page.until(lambda: "kind: notebook" in _editor_text(page), "the template in the editor")
    assert _focused_editor(page)
    assert _problems(page) == ["No problems found."]

    # a schema error, typed: marked on its line before anything is sent
    _down_to(page, "  gpu: 1")
    page.keys(Keys.END, Keys.BACKSPACE, "lots")
    page.until(lambda: _problems(page) != ["No problems found."], "the inline error")
    [problem] = _problems(page)
    assert problem.startswith(f"Line {GPU_LINE}: resources.gpu: "), problem
    assert _marked(page) == [(GPU_LINE, "lots")]

    # a template over typed text asks first; "Keep my text" keeps it
    page.keys(Keys.TAB)  # Tab leaves the editor: the Allow pending checkbox, then Create job
    assert page.driver.switch_to.active_element.get_attribute("type") == "checkbox"
    page.keys(Keys.TAB)
    assert page.driver.switch_to.active_element.text == "Create job"
    page.tab_to(lambda e: e.text == "Use template", limit=25)
    page.keys(Keys.ENTER)
    assert page.find("dialog").get_attribute("open") is not None
    assert page.driver.switch_to.active_element.text == "Keep my text"
    page.keys(Keys.ENTER)
    assert page.find("dialog").get_attribute("open") is None
    assert "gpu: lots" in _editor_text(page)
    _refused_once(page)

    # fixed; the server refuses the host path: its line:col problem on that line, in an alert
    page.tab_to(_focused_editor_check, limit=25)
    _down_to(page, "  gpu: lots")
    page.keys(Keys.END, *[Keys.BACKSPACE] * 4, "1")
    page.until(lambda: _problems(page) == ["No problems found."], "the inline error gone")
    page.keys(Keys.TAB, Keys.TAB, Keys.ENTER)
    refusal = page.find("[data-testid=refusal]")
    assert refusal.get_attribute("role") == "alert"
    page.until(lambda: _marked(page), "the server's problem marked")
    assert _marked(page) == [(HOST_PATH_LINE, "/home/jovyan/work")]
    assert f"Line {HOST_PATH_LINE}:13: storage.workdirs[0].path: host path /home/jovyan/work" in (
        refusal.text
    )
    assert "--allow-host-path" in refusal.text  # the server's hint
    assert _problems(page) == [""]  # the refusal's list is the one list
    assert _listed(page, "storage.workdirs[0].path") == 1
    chrome.set_window_size(1280, 1250)  # the whole page: the alert, the editor, the problems
    page.screenshot("new-job", tmp_path)
    chrome.set_window_size(1280, 900)
    assert page.axe(axe_source) == []
    assert job_status(served, JOB) == "None"  # nothing was created

    # completion: the values the schema allows for job.priority, accepted with Enter
    page.tab_to(_focused_editor_check, limit=25)
    _down_to(page, "  priority: medium")
    page.keys(Keys.END, *[Keys.BACKSPACE] * len("medium"), "me")
    offered = page.until(lambda: _offered(page), "the completion list")
    assert offered == ["medium"]
    page.keys(Keys.ENTER)
    page.until(lambda: "  priority: medium\n" in _editor_text(page) + "\n", "medium completed")

    # the storage section deleted, a GPU type no node has: refused as Unschedulable, on its line
    _chord(page, Keys.CONTROL, Keys.END)
    for _ in range(STORAGE_LINES):
        _chord(page, Keys.SHIFT, Keys.UP)
    page.keys(Keys.BACKSPACE)
    page.until(lambda: _problems(page) == ["No problems found."], "no problem left")
    assert "storage" not in _editor_text(page)
    _unschedulable_refused(page, served)

    # Allow pending checked (Shift+Tab from Create job, Space): created, Pending, on its page
    _chord(page, Keys.SHIFT, Keys.TAB)
    checkbox = page.driver.switch_to.active_element
    assert checkbox.get_attribute("type") == "checkbox"
    page.keys(Keys.SPACE)
    assert checkbox.is_selected()
    page.keys(Keys.TAB, Keys.ENTER)
    page.until(lambda: chrome.current_url == f"{served}/jobs/{JOB}", "on the job's page")
    assert job_status(served, JOB) == "pending"

    # a node of that type joins the pool (its node relabelled): the job runs
    labels = {"runwhere.ai/gpu-type": MISSING_TYPE}
    env.cluster.patch("Node", "gpu-a10-0", None, {"metadata": {"labels": labels}})
    wait_for(lambda: job_status(served, JOB) == "running", timeout=120, what=f"{JOB} running")
    page.until(lambda: "Running" in page.find("[data-testid=summary]").text, "Running shown")
    _assert_no_csp_violation(chrome)
    _copy_screenshots(shots)


def _unschedulable_refused(page: Page, served: str) -> None:
    """The gpu-type changed to one no node has and sent without Allow pending: the server's
    Unschedulable problem marked on its line and in the alert, which names the checkbox;
    nothing created. Ends on the Create job button."""
    from selenium.webdriver.common.keys import Keys

    assert GPU_TYPE_TEXT.startswith(f"  gpu-type: {GPU_TYPE} ")
    _down_to(page, GPU_TYPE_TEXT)
    page.keys(Keys.HOME, *[Keys.RIGHT] * len("gpu-type: "))
    for _ in GPU_TYPE:
        _chord(page, Keys.SHIFT, Keys.RIGHT)
    page.keys(MISSING_TYPE)
    page.until(lambda: f"gpu-type: {MISSING_TYPE}" in _editor_text(page), "the type typed")
    page.until(lambda: _problems(page) == ["No problems found."], "valid for the schema")
    page.keys(Keys.TAB, Keys.TAB, Keys.ENTER)
    page.until(lambda: _marked(page) == [(GPU_TYPE_LINE, MISSING_TYPE)], "Unschedulable marked")
    refusal = page.find("[data-testid=refusal]")
    assert refusal.get_attribute("role") == "alert"
    assert "Allow pending (wait for nodes that join)" in refusal.text
    assert (
        f"Line {GPU_TYPE_LINE}:13: resources.gpu-type: no node has GPU type '{MISSING_TYPE}'"
        in refusal.text
    )
    assert "(use one of the types that exist)" in refusal.text  # the server's hint
    assert _problems(page) == [""]
    assert _listed(page, "resources.gpu-type: no node has GPU type") == 1
    assert job_status(served, JOB) == "None"
    assert page.driver.switch_to.active_element.text == "Create job"


def _refused_once(page: Page) -> None:
    """The spec with the schema's error sent anyway: the server refuses it, and the page lists
    the problem once (the server's words, in the alert), not again in the schema's words under
    the editor; the editor marks it once. Ends on the Use template button."""
    from selenium.webdriver.common.keys import Keys

    page.tab_to(lambda e: e.text == "Create job", limit=25)
    page.keys(Keys.ENTER)
    page.find("[data-testid=refusal]")  # (waits for it)
    page.until(lambda: _marked(page), "the server's problem marked")
    assert _listed(page, "resources.gpu") == 1
    assert _problems(page) == [""]
    assert len(_marked(page)) == 1
    for _ in range(3):  # Create job, Allow pending, the editor, Use template
        _chord(page, Keys.SHIFT, Keys.TAB)
    assert page.driver.switch_to.active_element.text == "Use template"


def _listed(page: Page, words: str) -> int:
    """How many list items on the page mention `words`."""
    from selenium.webdriver.common.by import By

    return sum(words in item.text for item in page.driver.find_elements(By.CSS_SELECTOR, "main li"))


def _chord(page: Page, modifier: str, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(page.driver).key_down(modifier).send_keys(key).key_up(modifier).perform()


EDITOR_ROOT = "document.querySelector('[data-testid=editor]').shadowRoot"


def _down_to(page: Page, text: str) -> None:
    """From the first line, Down until the cursor's line is `text` (long lines wrap, so a
    line is not a fixed number of Downs away)."""
    from selenium.webdriver.common.keys import Keys

    _chord(page, Keys.CONTROL, Keys.HOME)
    for _ in range(80):
        active = page.driver.execute_script(
            f"return {EDITOR_ROOT}.querySelector('.cm-activeLine')?.textContent"
        )
        if active == text:
            return
        page.keys(Keys.DOWN)
    raise AssertionError(f"no line {text!r} reached with Down")


def _editor_text(page: Page) -> str:
    lines = page.driver.execute_script(
        f"return [...{EDITOR_ROOT}.querySelectorAll('.cm-line')].map((l) => l.textContent)"
    )
    return "\n".join(lines)


def _focused_editor(page: Page) -> bool:
    return bool(page.driver.execute_script(f"return {EDITOR_ROOT}.activeElement?.className"))


def _focused_editor_check(element: Any) -> bool:
    return bool(element.get_attribute("data-testid") == "editor")


def _marked(page: Page) -> list[tuple[int, str]]:
    """(line, text) of each range the editor marks as an error."""
    found = page.driver.execute_script(
        f"const root = {EDITOR_ROOT};"
        "const lines = [...root.querySelectorAll('.cm-content > .cm-line')];"
        "return [...root.querySelectorAll('.cm-lintRange-error')].map((r) =>"
        " [lines.indexOf(r.closest('.cm-line')) + 1, r.textContent]);"
    )
    return [(int(line), str(text)) for line, text in found]


def _offered(page: Page) -> list[str]:
    found = page.driver.execute_script(
        f"return [...{EDITOR_ROOT}.querySelectorAll('.cm-tooltip-autocomplete li')]"
        ".map((o) => o.querySelector('.cm-completionLabel').textContent)"
    )
    return [str(label) for label in found]


def _problems(page: Page) -> list[str]:
    from selenium.webdriver.common.by import By

    box = page.find("[data-testid=problems]")
    items = [item.text for item in box.find_elements(By.TAG_NAME, "li")]
    return items or [box.text]


def _assert_no_csp_violation(chrome: Any) -> None:
    console_log = [entry["message"] for entry in chrome.get_log("browser")]
    assert not [line for line in console_log if "Content Security Policy" in line], json.dumps(
        console_log
    )
