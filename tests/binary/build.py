"""The single-file binary, built once per set of sources and kept in a cache.

`make binary` and this module run the same PyInstaller spec (packaging/gpuctl.spec). A build
takes about a minute, so the result is kept under ~/.cache/gpuctl-binary/<key>/, where the key
is a hash of everything that goes into it: gpuctl's sources, templates/, schemas/, the spec, the
installed distributions and the Python version. Concurrent test workers wait on a file lock
for the one that builds."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "packaging" / "gpuctl.spec"
NAME = "gpuctl-linux-amd64"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpuctl-binary"


def source_key() -> str:
    """A hash of what the binary is built from."""
    digest = hashlib.sha256(sys.version.encode())
    files = [SPEC, *sorted((REPO / "gpuctl").rglob("*.py"))]
    for folder in ("templates", "schemas"):
        files += sorted(p for p in (REPO / folder).rglob("*") if p.is_file())
    for path in files:
        digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes())
    installed = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions())
    digest.update("\n".join(installed).encode())
    return digest.hexdigest()[:16]


def build(target_dir: Path) -> float:
    """Build the binary into `target_dir`; the seconds it took."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gpuctl-pyinstaller-") as work:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "PyInstaller",
                "--noconfirm",
                "--log-level",
                "WARN",
                "--distpath",
                str(target_dir),
                "--workpath",
                work,
                str(SPEC),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"PyInstaller failed:\n{done.stdout}\n{done.stderr}")
    return time.monotonic() - start


def built_binary() -> Path:
    """The binary for the current sources, built now if the cache does not have it."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    key = source_key()
    binary = root / key / NAME
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.is_file():
            return binary
        for old in root.iterdir():  # keep one build: the sources changed since the others
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        seconds = build(root / f"{key}.partial")
        (root / f"{key}.partial").rename(root / key)
        (root / key / "build-seconds").write_text(f"{seconds:.1f}\n")
    return binary
