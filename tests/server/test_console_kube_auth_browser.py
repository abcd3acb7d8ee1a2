"""The console under `gpuctl serve --auth kubernetes`, in headless Chromium, on the local
control plane (the sandbox serves no TokenReview): a service account signs in with a token
from `kubectl create token`, which the console keeps in sessionStorage only; it sees the jobs
of its own namespace and not another's; a token the cluster does not know gets the API's
refusal on the sign-in form."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.sandbox import Cluster as TestCluster

from .conftest import training
from .console_browser import Page, chrome, served, sign_in
from .test_kube_auth import ROLE, local

__all__ = ["chrome", "local"]  # fixtures used by name

pytestmark = pytest.mark.kube


@pytest.fixture
def runner(local: TestCluster) -> str:
    """A token of the service account `runner`, which may work with jobs in its namespace."""
    local.kubectl("create", "serviceaccount", "runner")
    local.kubectl("apply", "-f", "-", input=json.dumps(ROLE))
    binding = f"--serviceaccount={local.namespace}:runner"
    local.kubectl("create", "rolebinding", "runner-jobs", "--role=gpuctl-jobs", binding)
    return local.kubectl("create", "token", "runner", "--duration=10m").stdout.strip()


@pytest.fixture
def kube_console(local: TestCluster) -> Iterator[str]:
    """The installed `gpuctl serve --auth kubernetes` on the local control plane."""
    with served(local.kubeconfig, "--auth", "kubernetes") as base:
        yield base


def test_a_service_account_signs_in_with_a_kubernetes_token(
    local: TestCluster, runner: str, kube_console: str, chrome: Any, tmp_path: Path
) -> None:
    namespace = local.namespace
    bearer = {"Authorization": f"Bearer {runner}"}
    made = httpx.post(
        f"{kube_console}/api/v1/jobs",
        json={"yamlContent": training("sa-train")},
        headers=bearer,
        timeout=60,
    )
    assert made.status_code == 201, made.text
    page = Page(chrome, kube_console, [])

    # a token the cluster does not know: refused by the API (401), said in words, nothing kept
    sign_in(page, "not-a-kubernetes-token")
    refused = httpx.post(
        f"{kube_console}/api/v1/auth/check",
        json={},
        headers={"Authorization": "Bearer not-a-kubernetes-token"},
    )
    assert refused.status_code == 401
    alert = page.find("[role=alert]").text
    assert alert.startswith("That token is not known to this server."), alert
    assert chrome.execute_script("return sessionStorage.length") == 0

    page.find("#token").clear()
    page.driver.execute_script("document.activeElement.blur()")
    sign_in(page, runner)
    job = f"{namespace}.sa-train"
    page.until(lambda: job in page.rows(), f"{job} listed")
    assert page.find("[data-testid=who]").text == (
        f"system:serviceaccount:{namespace}:runner (kubernetes)"
    )
    assert set(page.rows()) == {job}  # RBAC: its namespace's jobs only
    assert chrome.execute_script("return sessionStorage.getItem('gpuctl.token')") == runner
    assert chrome.get_cookies() == []
    page.screenshot("jobs-kubernetes-auth", tmp_path)
