"""The Go SDK (sdk/go): its own suite, `go test ./...`, against `gpuctl serve` on a sandbox
(GPUCTL_URL, GPUCTL_TOKEN: a user's, GPUCTL_ADMIN_TOKEN: an admin's) with a real Prometheus
and Pushgateway (GPUCTL_PROMETHEUS_URL, GPUCTL_PUSHGATEWAY_URL; GPUCTL_EXPORTER_ADDR is where
that Prometheus scrapes a DCGM exporter, which the Go test serves itself) and a GPUWorkload
(GPUCTL_WORKLOAD); `go vet` and gofmt clean; and its models are what the pinned oapi-codegen
writes from the committed contract.

Without Go these tests are skipped with the reason; under CI (CI=true) a missing Go fails."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpuctl.cluster.errors import AlreadyExists
from gpuctl.controller import resource
from gpuctl.sandbox import SandboxConfig
from tests.kube.controlplane import go_binary
from tests.monitoring.conftest import pushgateway_url, running_prometheus
from tests.server.conftest import token_file
from tests.server.test_hostile import served
from tests.support import tools
from tests.support.ports import free_port

from ..conftest import REPO, Env
from ..server.conftest import SECRETS

# the fixtures: the server's tokens (admin, alice, bob); a real Pushgateway
__all__ = ["pushgateway_url", "token_file"]

SDK = REPO / "sdk" / "go"
MODULE = "github.com/gpuctl/gpuctl/sdk/go"


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """Jobs that run for two seconds, logging all the while: long enough to follow their logs,
    short enough that a followed stream ends by itself."""
    return SandboxConfig.fast(job_run_seconds=2.0, log_interval_seconds=0.1)


@dataclass
class Monitoring:
    prometheus: str  # its URL
    pushgateway: str  # its URL
    exporter: str  # host:port that Prometheus scrapes for DCGM figures


@pytest.fixture
def monitoring(pushgateway_url: str, tmp_path: Path) -> Iterator[Monitoring]:
    """A real Prometheus scraping the Pushgateway and a DCGM exporter's address, every second;
    the Go test serves the exporter there itself, with its own job's pod."""
    exporter = f"127.0.0.1:{free_port()}"
    gateway = pushgateway_url.removeprefix("http://")
    with running_prometheus(tmp_path, exporter, gateway) as url:
        yield Monitoring(url, pushgateway_url, exporter)


WORKLOAD_NAMESPACE = "go-sdk-workloads"


def _a_workload(env: Env) -> str:
    """A GPUWorkload (its CRD installed) in a namespace no token's user owns: namespace/name."""
    with contextlib.suppress(AlreadyExists):
        env.cluster.create(resource.crd())
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": WORKLOAD_NAMESPACE}}
    env.cluster.create(namespace)
    env.cluster.create(
        {
            "apiVersion": resource.API_VERSION,
            "kind": resource.KIND,
            "metadata": {"name": "llama", "namespace": WORKLOAD_NAMESPACE},
            "spec": {"modelName": "llama-3-8b", "gpuCount": 2},
        }
    )
    return f"{WORKLOAD_NAMESPACE}/llama"


def _go() -> str:
    """The `go` command, or a skip (a failure under CI=true) saying it is missing."""
    go = go_binary()
    if go is None:
        reason = "the Go SDK's tests need Go (no `go` on PATH nor /usr/local/go/bin)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI runs the Go SDK's tests, but {reason}")
        pytest.skip(reason)
    return go


def _run_go(*args: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false", **environ}
    return subprocess.run(
        [_go(), *args], cwd=SDK, env=env, capture_output=True, text=True, timeout=900, check=False
    )


def test_the_go_sdk_passes_its_suite_against_a_live_server(
    env: Env, token_file: Path, monitoring: Monitoring
) -> None:
    workload = _a_workload(env)
    # the webhook test's receiver listens on loopback, where deliveries go only when allowed
    allow = ("--webhook-allow-cidr", "127.0.0.0/8")
    sources = (
        "--prometheus-url",
        monitoring.prometheus,
        "--pushgateway-url",
        monitoring.pushgateway,
    )
    with served(env, token_file, *allow, *sources) as server:
        done = _run_go(
            "test",
            "-count=1",
            "-v",
            "./...",
            GPUCTL_URL=server.base,
            GPUCTL_TOKEN=SECRETS["alice"],
            GPUCTL_ADMIN_TOKEN=SECRETS["admin"],
            GPUCTL_PROMETHEUS_URL=monitoring.prometheus,
            GPUCTL_PUSHGATEWAY_URL=monitoring.pushgateway,
            GPUCTL_EXPORTER_ADDR=monitoring.exporter,
            GPUCTL_WORKLOAD=workload,
        )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "--- SKIP" not in output, output  # the live tests ran, none skipped itself
    for test in (
        "TestLiveAJobsWholeLife",
        "TestLiveTheAdminCalls",
        "TestLivePushedMetricsAreReadBack",
        "TestLiveJobsUtilisationAndManifests",
        "TestLiveWorkloadsAreListedPerNamespace",
        "TestEveryOperationIsAMethod",
    ):
        assert f"--- PASS: {test}" in output, output
    assert f"ok  \t{MODULE}" in output, output


def test_the_go_sdk_is_vetted_and_formatted() -> None:
    vet = _run_go("vet", "./...")
    assert vet.returncode == 0, vet.stdout + vet.stderr
    gofmt = Path(_go()).with_name("gofmt")
    unformatted = subprocess.run(
        [str(gofmt), "-l", "."], cwd=SDK, capture_output=True, text=True, check=True
    )
    assert unformatted.stdout == "", f"not gofmt-formatted: {unformatted.stdout}"


def test_the_go_models_are_what_the_generator_writes_from_the_contract(tmp_path: Path) -> None:
    _go()
    generator = tools.oapi_codegen()
    pinned = f"go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@{tools.OAPI_CODEGEN}"
    assert pinned in (SDK / "generate.go").read_text(), "generate.go pins another version"
    shutil.copy(SDK / "oapi-codegen.yaml", tmp_path / "oapi-codegen.yaml")
    contract = REPO / "docs" / "openapi.json"
    done = subprocess.run(
        [str(generator), "-config", "oapi-codegen.yaml", str(contract)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    regenerated = (tmp_path / "types.gen.go").read_text()
    assert regenerated == (SDK / "types.gen.go").read_text(), (
        "sdk/go/types.gen.go is not what oapi-codegen writes from docs/openapi.json: "
        "run `make sdk-go` and commit the result"
    )


def test_without_go_the_suite_is_skipped_here_and_fails_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "go_binary", lambda: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="need Go"):
        _go()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI runs the Go SDK's tests, but"):
        _go()
