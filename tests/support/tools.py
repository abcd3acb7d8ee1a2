"""The contract checks' tools that are not Python packages, installed once, pinned, into the
cache (~/.cache/gpuctl-tools), as tests/kube caches its Go builds:

- Spectral (`@stoplight/spectral-cli`, from the npm registry with npm) lints the OpenAPI
  document with its `spectral:oas` rules;
- oasdiff (`github.com/oasdiff/oasdiff`, `go install` from the Go module proxy) finds the
  breaking changes between two versions of the document;
- oapi-codegen (`github.com/oapi-codegen/oapi-codegen/v2`, `go install` likewise) writes the Go
  SDK's models (sdk/go/types.gen.go) from the document, checked to be up to date.
- kube-score (`github.com/zegl/kube-score`, `go install` likewise) scores every manifest gpuctl
  prints (tests/core/test_manifest_checkers.py).
- checkov (PyPI, `pip install` into a virtual environment of its own: its pins would move the
  project's own packages) checks every manifest gpuctl prints likewise.
- the web console's node_modules (`npm ci` of console/package-lock.json, one folder per
  lockfile), which its build check, its unit tests (Vitest) and its browser tests (axe-core)
  use.

`python -m tests.support.tools` installs them all (.ci/run does, so that a failure to install shows
first); the tests install what is missing themselves. A tool that cannot be installed is an
error naming what is missing, never a skipped check."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SPECTRAL = "6.16.3"
OASDIFF = "v1.37.0"
OAPI_CODEGEN = "v2.8.2"  # also in sdk/go/generate.go
KUBE_SCORE = "v1.20.0"
CHECKOV = "3.2.533"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpuctl-tools"
GO_FALLBACK = Path("/usr/local/go/bin/go")
CONSOLE = Path(__file__).resolve().parents[2] / "console"


class ToolUnavailable(Exception):
    """A tool could not be installed: the message says which and why."""


@contextmanager
def _locked(name: str) -> Iterator[None]:
    """One installer at a time (pytest-xdist workers start together)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(command: list[str], cwd: Path, what: str, **environ: str) -> None:
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise ToolUnavailable(f"{what}: `{' '.join(command)}` failed ({done.returncode}):\n{tail}")


def spectral() -> Path:
    """The `spectral` command, pinned at SPECTRAL (npm install into the cache when missing)."""
    home = CACHE / f"spectral-{SPECTRAL}"
    binary = home / "node_modules" / ".bin" / "spectral"
    with _locked("spectral"):
        if not binary.exists():
            npm = shutil.which("npm")
            if npm is None:
                raise ToolUnavailable(
                    "Spectral needs npm (Node.js) to install: apt-get install npm, or see .ci/run"
                )
            home.mkdir(parents=True, exist_ok=True)
            package = f"@stoplight/spectral-cli@{SPECTRAL}"
            command = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(home), package]
            _run(command, home, f"installing Spectral {SPECTRAL}")
    return binary


def oasdiff() -> Path:
    """The `oasdiff` command, pinned at OASDIFF (go install into the cache when missing)."""
    return _go_install("oasdiff", "github.com/oasdiff/oasdiff", OASDIFF)


def oapi_codegen() -> Path:
    """The `oapi-codegen` command, pinned at OAPI_CODEGEN (go install into the cache)."""
    package = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
    return _go_install("oapi-codegen", package, OAPI_CODEGEN)


def kube_score() -> Path:
    """The `kube-score` command, pinned at KUBE_SCORE (go install into the cache)."""
    return _go_install("kube-score", "github.com/zegl/kube-score/cmd/kube-score", KUBE_SCORE)


def checkov() -> Path:
    """The `checkov` command, pinned at CHECKOV (a virtual environment in the cache)."""
    home = CACHE / f"checkov-{CHECKOV}"
    binary = home / "bin" / "checkov"
    with _locked("checkov"):
        if not binary.exists():
            python = shutil.which("python3") or sys.executable
            _run([python, "-m", "venv", "--clear", str(home)], CACHE, "making checkov's venv")
            pip = [str(home / "bin" / "pip"), "install", "--quiet", f"checkov=={CHECKOV}"]
            _run(pip, home, f"installing checkov {CHECKOV}")
    return binary


def _go_install(name: str, package: str, version: str) -> Path:
    """`name`, built by `go install package@version` into the cache when it is not there."""
    home = CACHE / f"{name}-{version}"
    binary = home / name
    with _locked(name):
        if not binary.exists():
            found = shutil.which("go")
            go = Path(found) if found else GO_FALLBACK
            if not go.exists():
                raise ToolUnavailable(
                    f"{name} is built with Go (go install from the Go module proxy): no `go` "
                    f"on PATH nor {GO_FALLBACK}"
                )
            home.mkdir(parents=True, exist_ok=True)
            command = [str(go), "install", f"{package}@{version}"]
            _run(
                command,
                home,
                f"installing {name} {version}",
                GOBIN=str(home),
                GOTOOLCHAIN="local",
                GOFLAGS="-buildvcs=false",
            )
    return binary


def console_modules() -> Path:
    """console/'s node_modules as its package-lock.json pins them (`npm ci` into the cache
    when missing, keyed by the lockfile's digest)."""
    lock = (CONSOLE / "package-lock.json").read_bytes()
    home = CACHE / f"console-{hashlib.sha256(lock).hexdigest()[:16]}"
    modules = home / "node_modules"
    with _locked("console"):
        if not (home / "done").exists():
            npm = shutil.which("npm")
            if npm is None:
                raise ToolUnavailable(
                    "the console's build needs npm (Node.js): apt-get install npm, or see .ci/run"
                )
            home.mkdir(parents=True, exist_ok=True)
            for name in ("package.json", "package-lock.json"):
                (home / name).write_bytes((CONSOLE / name).read_bytes())
            command = [npm, "ci", "--no-audit", "--no-fund"]
            _run(command, home, "installing the console's npm packages")
            (home / "done").write_text("npm ci finished\n")
    return modules


if __name__ == "__main__":
    print(f"spectral: {spectral()}")
    print(f"oasdiff: {oasdiff()}")
    print(f"oapi-codegen: {oapi_codegen()}")
    print(f"kube-score: {kube_score()}")
    print(f"checkov: {checkov()}")
    print(f"console node_modules: {console_modules()}")
