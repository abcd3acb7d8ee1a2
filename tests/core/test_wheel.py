"""A plain (non-editable) install carries templates/ and schemas/ and renders from anywhere."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from .conftest import EXAMPLES, REPO


def _run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, cwd=cwd, check=False, timeout=300
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.slow
def test_wheel_install_renders_from_another_directory(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, REPO)
    (wheel,) = wheels.glob("gpuctl-*.whl")

    venv = tmp_path / "fresh"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel)
    # Dependencies come from this test environment, which is only on the path through this
    # .pth line (its own editable-install hook is not processed there, so the repo is not).
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(_run(python, "-c", purelib).strip())
    (site / "test-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run(python, "-c", "import gpuctl; print(gpuctl.__file__)", cwd=elsewhere)
    assert where.startswith(str(venv)), where
    rendered = _run(venv / "bin" / "gpuctl", "render", "-f", EXAMPLES, cwd=elsewhere)
    assert rendered == _run(sys.executable, "-m", "gpuctl", "render", "-f", EXAMPLES, cwd=REPO)
    schema = _run(venv / "bin" / "gpuctl", "schema", "quota", cwd=elsewhere)
    assert '"users"' in schema
    served = _run(venv / "bin" / "gpuctl", "serve", "--help", cwd=elsewhere)
    assert "/api/v1/docs" in served
    docs = (
        "from fastapi.testclient import TestClient\n"
        "from gpuctl.server.app import create_app\n"
        "client = TestClient(create_app(None, None), base_url='http://localhost')\n"
        "print(client.get('/api/v1/docs/assets/swagger-ui-bundle.js').status_code)\n"
    )
    assert _run(python, "-W", "ignore", "-c", docs, cwd=elsewhere).strip() == "200"
