"""Shared helpers for the core (render/validate) tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
GPUCTL = Path(sys.executable).with_name("gpuctl")  # the installed console script


def run_gpuctl(
    *args: str,
    stdin: str | bytes | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the installed `gpuctl` entry point as a user would."""
    raw = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    done = subprocess.run(
        [str(GPUCTL), *args],
        input=raw,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )
