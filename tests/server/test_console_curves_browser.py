"""The console's live data in a real headless Chromium, against the installed `gpuctl serve`
on the sandbox with a real Prometheus (Debian's `prometheus`, scraping a DCGM-named exporter
that serves GPU figures for alice's pod): the Jobs page draws her job's GPU utilisation as a
sparkline; the Job page shows the GPU curves' summaries (latest, min, max) and their table,
finds a line in the followed log (count, next), and shows what the spec rendered to; all with
the keyboard; axe-core finds no serious or critical violation on either page. Screenshots go
to the test's tmp dir (and to $GPUCTL_SCREENSHOTS when set: docs/images/console-job-curves.png
is made so)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.monitoring.conftest import Exporter, GpuSeries, exporter, prometheus_url, wait_scraped
from tests.support.sandbox import wait_for
from tests.support.tools import console_modules

from ..conftest import Env
from .conftest import QUOTA, SECRETS, inference
from .console_browser import Page, chrome, job_status, post, serving_console, sign_in
from .test_console_browser import _copy_screenshots

__all__ = ["chrome", "exporter", "prometheus_url"]  # fixtures used by name


def _publish(env: Env, exporter: Exporter, url: str) -> None:
    """alice's `web` pod at 70 % GPU utilisation, 8 GiB of GPU memory used."""
    pods = [p for p in env.cluster.list("Pod", "alice") if p["spec"].get("nodeName")]
    pod = next(p for p in pods if (p["metadata"].get("labels") or {}).get("app") == "web")
    gpus = [
        GpuSeries(pod["spec"]["nodeName"], 0, 70, 8192, 73728, 50, "alice", pod["metadata"]["name"])
    ]
    exporter.publish(gpus)
    wait_scraped(url, gpus)


def test_curves_sparklines_log_search_and_the_rendered_view(
    env: Env,
    token_file: Path,
    exporter: Exporter,
    prometheus_url: str,
    chrome: Any,
    tmp_path: Path,
) -> None:
    axe_source = (console_modules() / "axe-core" / "axe.min.js").read_text()
    with serving_console(env, token_file, "--prometheus-url", prometheus_url) as served:
        post(served, "admin", "/quotas", {"yamlContent": QUOTA})
        post(served, "alice", "/jobs", {"yamlContent": inference("web", replicas=1)})
        wait_for(lambda: job_status(served, "alice.web") == "running", timeout=120, what="running")
        _publish(env, exporter, prometheus_url)
        shots: list[Path] = []
        page = Page(chrome, served, shots)
        sign_in(page, SECRETS["alice"])
        _jobs_page(page, tmp_path, axe_source)
        _job_page(page, tmp_path, axe_source)
        console_log = [entry["message"] for entry in chrome.get_log("browser")]
        assert [line for line in console_log if "Content Security Policy" in line] == []
    _copy_screenshots(shots)


def _jobs_page(page: Page, tmp_path: Path, axe_source: str) -> None:
    """alice.web's row has its sparkline, labelled in words."""
    spark = page.find("tr[data-job='alice.web'] [data-testid=sparkline] svg")
    label = spark.get_attribute("aria-label")
    assert label == "GPU utilisation, last 30 minutes: now 70 %, peak 70 %", label
    assert page.rows()["alice.web"][6].endswith("70%")
    page.screenshot("jobs-sparklines", tmp_path)
    assert page.axe(axe_source) == []


def _job_page(page: Page, tmp_path: Path, axe_source: str) -> None:
    from selenium.webdriver.common.keys import Keys

    page.tab_to(lambda e: e.text == "alice.web")
    page.keys(Keys.ENTER)
    page.until(lambda: page.driver.current_url.endswith("/jobs/alice.web"), "on the job page")

    # the curves: each summary in words, the chart drawn (uPlot, its own chunk), a table
    utilisation = "figure[data-curve=gpuUtilization] [data-testid=curve-summary]"
    page.until(lambda: page.find(utilisation).text.startswith("latest 70 %"), "curve summary")
    assert page.find(utilisation).text == "latest 70 %, min 70 %, max 70 %"
    memory = page.find("figure[data-curve=memoryUsage] [data-testid=curve-summary]").text
    assert memory == "latest 8 GiB, min 8 GiB, max 8 GiB"
    page.find("figure[data-curve=gpuUtilization] .chart canvas")
    page.tab_to(lambda e: e.text == "GPU utilisation as a table")
    page.keys(Keys.ENTER)
    cells = page.find("figure[data-curve=gpuUtilization] details table tbody tr td:last-child")
    assert cells.text == "70"
    page.driver.execute_script("document.getElementById('curves-title').scrollIntoView()")
    page.screenshot("job-curves", tmp_path)

    # the log: search, count, next (Enter in the box)
    page.until(lambda: page.find("[data-testid=log-state]").text == "following", "following")
    page.until(lambda: "step 2" in page.find("[data-testid=logs]").text, "a few log lines")
    box = page.tab_to(lambda e: e.get_attribute("name") == "log-search")
    box.send_keys("step")
    counted = page.until(lambda: page.find("[data-testid=log-matches]").text, "a count")
    assert counted.startswith("1 of "), counted
    page.keys(Keys.ENTER)
    assert page.find("[data-testid=log-matches]").text.startswith("2 of ")
    assert page.find("[data-testid=logs] mark.current").text == "step"
    page.screenshot("job-log-search", tmp_path)

    # what it rendered to: opened with the keyboard, the Deployment's YAML
    page.tab_to(lambda e: e.text == "Kubernetes manifests")
    page.keys(Keys.ENTER)
    deployment = page.find("[data-testid=rendered] pre[data-kind=Deployment]")
    page.until(lambda: "kind: Deployment" in deployment.text, "the rendered Deployment")
    page.screenshot("job-rendered", tmp_path)
    assert page.axe(axe_source) == []
