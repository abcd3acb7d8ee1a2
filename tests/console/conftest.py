"""The web console's sources (console/) copied into a temporary folder with the cached
node_modules beside them (tests.support.tools.console_modules: `npm ci` of the lockfile), so
that its build, its unit tests and its browser tests run without writing into the tree."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.tools import CONSOLE, console_modules

REPOSITORY = CONSOLE.parent
BUILT = REPOSITORY / "gpuctl" / "server" / "console_dist"
NODE_TIMEOUT = 900.0  # seconds: a build or a Vitest run on a loaded machine


def run_node(command: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """An npx command in `cwd`; its output in the assertion message when it fails."""
    done = subprocess.run(
        ["npx", "--no-install", *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
        env={**os.environ, "CI": "true", "NO_COLOR": "1"},
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="session")
def console_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of console/ (its build writes to ../gpuctl/server/console_dist of the copy), with
    ../schemas and ../examples, which it reads."""
    modules = console_modules()
    root = tmp_path_factory.mktemp("console-build")
    copy = root / "console"
    shutil.copytree(CONSOLE, copy, ignore=shutil.ignore_patterns("node_modules"))
    (copy / "node_modules").symlink_to(modules, target_is_directory=True)
    (root / "gpuctl" / "server").mkdir(parents=True)
    # the New job page builds in the kinds' schemas and the examples (its templates)
    for bundled in ("schemas", "examples"):
        shutil.copytree(REPOSITORY / bundled, root / bundled)
    return copy


@pytest.fixture(scope="session")
def node_modules() -> Path:
    return console_modules()
