"""The single-file binary works on a machine path without Python's virtual environment: no
venv on PATH, no PYTHONPATH, HOME a fresh folder, run from a folder outside the repository."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import gpuctl

from .build import REPO

EXAMPLES = REPO / "examples"
# Measured 37.5 MiB (binaries stripped). FastAPI, uvicorn and kopf inside made it 42.4 MiB, and
# the Kubernetes schemas as 8,000 loose files instead of one zip about 43 MiB (and seconds
# slower to start): the bound catches either coming back and leaves 3.5 MiB (9%) for updates
# of the dependencies.
SIZE_BOUND_MIB = 41


def _run(
    binary: Path, *args: str | Path, cwd: Path, env: dict[str, str], code: int = 0
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(binary), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == code, f"{args}: {done.stdout}\n{done.stderr}"
    return done


def _venv(*args: str | Path) -> str:
    command = [sys.executable, "-m", "gpuctl", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO).stdout


@pytest.fixture
def bare(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder outside the repository and an environment like `env -i PATH=/usr/bin:/bin`."""
    home = tmp_path / "home"
    home.mkdir()
    return tmp_path, {"PATH": "/usr/bin:/bin", "HOME": str(home)}


def test_binary_renders_validates_and_prints_schemas_like_the_installed_command(
    binary: Path, bare: tuple[Path, dict[str, str]]
) -> None:
    where, env = bare
    assert _run(binary, "--version", cwd=where, env=env).stdout.split()[-1] == gpuctl.__version__
    rendered = _run(binary, "render", "-f", EXAMPLES, cwd=where, env=env).stdout
    assert rendered == _venv("render", "-f", EXAMPLES)
    validated = _run(binary, "validate", "-f", EXAMPLES, cwd=where, env=env).stdout
    assert validated == _venv("validate", "-f", EXAMPLES)
    assert validated.count(": ok") == len(list(EXAMPLES.glob("*.yaml")))
    schema = _run(binary, "schema", "training", cwd=where, env=env).stdout
    assert json.loads(schema) == json.loads(_venv("schema", "training"))


def test_binary_runs_the_sandbox_and_creates_jobs_on_it(
    binary: Path, bare: tuple[Path, dict[str, str]]
) -> None:
    where, env = bare
    config = EXAMPLES / "sandbox" / "cluster.yaml"
    exported = _run(binary, "sandbox", "up", "--config", config, cwd=where, env=env).stdout
    try:
        kubeconfig = exported.strip().removeprefix("export KUBECONFIG=")
        assert kubeconfig.startswith(env["HOME"]), exported
        env = {**env, "KUBECONFIG": kubeconfig}
        # its pool first (node1 and node2 labelled): create refuses a job no node could run
        _run(binary, "create", "-f", EXAMPLES / "pool.yaml", cwd=where, env=env)
        created = _run(binary, "create", "-f", EXAMPLES / "training.yaml", cwd=where, env=env)
        assert "qwen2-7b-llamafactory-sft" in created.stdout
        jobs = _run(binary, "get", "jobs", cwd=where, env=env).stdout.splitlines()
        assert jobs[0].split()[:3] == ["NAME", "KIND", "POOL"]
        assert [line.split()[:2] for line in jobs[1:]] == [
            ["qwen2-7b-llamafactory-sft", "training"]
        ]
        status = _run(binary, "sandbox", "status", cwd=where, env=env).stdout
        assert _rejects_bad_field(status.split()[2])  # the strict schemas came from the zip
    finally:
        _run(binary, "sandbox", "down", cwd=where, env=env)


def _rejects_bad_field(url: str) -> bool:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "typo"},
        "spec": {"containers": [{"name": "main", "image": "busybox"}], "bogus": 1},
    }
    request = urllib.request.Request(
        f"{url}/api/v1/namespaces/default/pods?fieldValidation=Strict",
        data=json.dumps(pod).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        return error.code == 400 and 'unknown field \\"spec.bogus\\"' in error.read().decode()
    return False


def test_binary_says_what_it_leaves_out(binary: Path, bare: tuple[Path, dict[str, str]]) -> None:
    where, env = bare
    assert "/api/v1/docs" in _run(binary, "serve", "--help", cwd=where, env=env).stdout
    refused = _run(binary, "serve", cwd=where, env=env, code=1).stderr
    assert refused.startswith("error: this command needs uvicorn, which the single-file binary")
    assert "install gpuctl with pip" in refused and "Traceback" not in refused
    plan = _run(binary, "controller", "manifests", cwd=where, env=env).stdout
    assert "kind: CustomResourceDefinition" in plan


def test_binary_size_is_under_its_bound(binary: Path) -> None:
    size_mib = binary.stat().st_size / 2**20
    assert size_mib < SIZE_BOUND_MIB, f"{size_mib:.1f} MiB"
