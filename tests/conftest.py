"""Shared fixtures: `sandbox` (one simulated cluster per test) and `cluster` (the sandbox, the
local real control plane of tests/kube, and the real cluster in KUBECONFIG when GPUCTL_E2E=1)."""

from __future__ import annotations

import itertools
import os
import pty
import select
import subprocess
import sys
from collections.abc import Callable, Generator, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from gpuctl.cluster.client import Cluster as GpuctlCluster
from gpuctl.render import engine
from gpuctl.sandbox import SandboxConfig
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from tests.kube import controlplane
from tests.kube import session as kube_session
from tests.support.sandbox import Cluster, SandboxCluster, real_cluster, running_sandbox

E2E = os.environ.get("GPUCTL_E2E") == "1"


@pytest.fixture(autouse=True)
def own_gpuctl_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own XDG_CONFIG_HOME (gpuctl's config file, gpuctl.settings), empty: the
    config file of whoever runs the tests does not leak in; `gpuctl` subprocesses inherit it."""
    folder = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    return folder / "gpuctl" / "config.yaml"


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """Test timings; override this fixture in a module for other nodes or delays."""
    return SandboxConfig.fast()


@pytest.fixture
def sandbox(tmp_path: Path, sandbox_config: SandboxConfig) -> Iterator[SandboxCluster]:
    """A sandbox on a free port: `.kubeconfig`, `.url`, `.namespace` ("default"), `.faults`,
    `.requests`, `.api_client()`, `.kubectl(...)`, and `.sandbox` (the server itself)."""
    with running_sandbox(tmp_path, sandbox_config) as cluster:
        yield cluster


@pytest.fixture
def make_sandbox(tmp_path: Path) -> Iterator[Callable[..., SandboxCluster]]:
    """More sandboxes, or one with its own config: `make_sandbox(config, namespace="team")`."""
    with ExitStack() as stack:
        made = itertools.count(1)

        def make(config: SandboxConfig | None = None, namespace: str = "default") -> SandboxCluster:
            workdir = tmp_path / f"sandbox-{next(made)}"
            workdir.mkdir()
            return stack.enter_context(running_sandbox(workdir, config, namespace))

        yield make


def pytest_configure(config: pytest.Config) -> None:
    kube_session.configure(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    kube_session.unconfigure(config)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test on the local control plane reports what the shared plane looked like:
    its namespace's pods and events, and every pod that asks for a GPU (the plane is shared by
    every xdist worker, so a wait that times out is often another test's pod on the node). A
    fixture's wait that times out is a failed setup: reported the same way."""
    report = yield
    if report.when in ("setup", "call") and report.failed:
        local = _local_cluster_of(item)
        if local is not None:
            report.sections.append(("the local control plane at the failure", _snapshot(local)))
    return report


LOCAL = pytest.StashKey[kube_session.LocalCluster]()  # the `cluster` fixture's, once made


def _local_cluster_of(item: pytest.Item) -> kube_session.LocalCluster | None:
    """The test's local control plane: the `cluster` fixture's (known before the fixtures that
    build on it are done, so when one of them fails), else a test argument's."""
    if LOCAL in item.stash:
        return item.stash[LOCAL]
    funcargs = getattr(item, "funcargs", {})
    found = [v for v in funcargs.values() if isinstance(v, kube_session.LocalCluster)]
    return found[0] if found else None


def _snapshot(local: kube_session.LocalCluster) -> str:
    gpu_pods = (
        "custom-columns=NAMESPACE:.metadata.namespace,POD:.metadata.name,"
        "PHASE:.status.phase,NODE:.spec.nodeName,GPU:.spec.containers[*].resources.limits"
    )
    asks = [
        ("pods", ("get", "pods", "-o", "wide"), True),
        ("events", ("get", "events", "--sort-by=.lastTimestamp"), True),
        ("every pod on the plane", ("get", "pods", "-A", "-o", gpu_pods), False),
    ]
    parts = []
    for title, args, namespaced in asks:
        try:
            done = local.kubectl(*args, check=False, timeout=30, namespaced=namespaced)
            parts.append(f"--- {title}\n{done.stdout}{done.stderr}")
        except subprocess.TimeoutExpired:
            parts.append(f"--- {title}: kubectl timed out")
    return "\n".join(parts)


@pytest.fixture(
    params=[
        pytest.param("sandbox"),
        pytest.param("kube", marks=pytest.mark.kube),
        pytest.param("real", marks=pytest.mark.e2e),
    ]
)
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Cluster]:
    """A conformance scenario's cluster: the sandbox; the local real control plane of
    tests/kube (skipped, with the reason, where it cannot be built); and under `make e2e` the
    cluster in KUBECONFIG. The same test runs against each, so they must agree."""
    if request.param == "kube":
        reason = controlplane.unavailable_reason()
        if reason:
            pytest.skip(reason)
        with kube_session.local_cluster(tmp_path) as local:
            if isinstance(local, kube_session.LocalCluster):
                request.node.stash[LOCAL] = local
            yield local
    elif request.param == "real":
        if not E2E:
            pytest.skip("needs a real cluster: GPUCTL_E2E=1 with KUBECONFIG (make e2e)")
        with real_cluster(tmp_path) as real:
            yield real
    else:
        with running_sandbox(tmp_path, namespace="conformance") as fake:
            yield fake


# ---------------------------------------------------- gpuctl against one sandbox

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
GPUCTL = Path(sys.executable).with_name("gpuctl")


def run_gpuctl(
    cluster: Cluster,
    *args: str,
    stdin: str | None = None,
    namespaced: bool = True,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """The installed command against `cluster` (in its namespace unless `namespaced` is False,
    when the spec's namespace decides), with a cache directory of the test's own."""
    where = ["-n", cluster.namespace] if namespaced else []
    return subprocess.run(
        [str(GPUCTL), *args, "--kubeconfig", str(cluster.kubeconfig), *where],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "GPUCTL_CACHE_DIR": str(cluster.workdir / "cache")},
    )


class TextSnapshot(SingleFileSnapshotExtension):
    """One readable .txt file per snapshot under __snapshots__/."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.fixture
def snapshot_text(snapshot: Any) -> Any:
    return snapshot.use_extension(TextSnapshot)


@dataclass
class Env:
    """One sandbox, gpuctl's own client on it, and the installed `gpuctl` pointed at it."""

    sandbox: SandboxCluster
    cluster: GpuctlCluster

    @property
    def kubeconfig(self) -> Path:
        return self.sandbox.kubeconfig

    def render(self, text: str, namespace: str | None = None) -> list[engine.Manifest]:
        return engine.render_documents(load_text("spec.yaml", text), Options(namespace=namespace))

    def example(self, name: str) -> list[engine.Manifest]:
        return self.render((EXAMPLES / name).read_text())

    def gpuctl(
        self, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """The installed command; NO_COLOR from the caller's shell is left out (tests set it)."""
        environ = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
        return subprocess.run(
            [str(GPUCTL), *args, "--kubeconfig", str(self.kubeconfig)],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**environ, "GPUCTL_CACHE_DIR": str(self.sandbox.workdir / "cache"), **(env or {})},
        )

    def gpuctl_on_terminal(self, *args: str, env: dict[str, str] | None = None) -> str:
        """What gpuctl prints when its stdout is a (pseudo-)terminal, as a person sees it."""
        main, secondary = pty.openpty()
        environ = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
        process = subprocess.Popen(
            [str(GPUCTL), *args, "--kubeconfig", str(self.kubeconfig)],
            stdout=secondary,
            stderr=subprocess.DEVNULL,
            env={**environ, **(env or {})},
        )
        os.close(secondary)
        chunks = []
        while True:
            ready, _, _ = select.select([main], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal closed: the process is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=30)
        os.close(main)
        return b"".join(chunks).decode().replace("\r\n", "\n")

    def objects(self, kind: str, namespace: str | None = "default") -> dict[str, dict[str, Any]]:
        """name -> live object, of every object of `kind` gpuctl manages."""
        items = self.cluster.list(
            kind, namespace, label_selector="app.kubernetes.io/managed-by=gpuctl"
        )
        return {item["metadata"]["name"]: item for item in items}


@pytest.fixture
def env(sandbox: SandboxCluster) -> Env:
    """The shared `sandbox` fixture (tests/conftest.py), with gpuctl's own client on it."""
    return Env(sandbox, GpuctlCluster.connect(str(sandbox.kubeconfig)))
