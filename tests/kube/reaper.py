"""Stops a pytest session's control planes when the session's process ended without stopping
them (killed from outside: SIGKILL, a CI timeout, a helper's Ctrl-C twice), so that no etcd,
kube-apiserver, kwok or kubelet outlives the run that started it.

`watch` starts it beside the session, in a session of its own; it polls the session's process
once a second. When that process is gone (a pid is compared with its start time, so a reused
pid does not count) it runs `down` on every instance in the session's directory and removes
the directory. When the session ends normally, its `unconfigure` removes the directory first
and the reaper exits without touching anything.

Run: python -m tests.kube.reaper PID START_TIME DIRECTORY
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

POLL = 1.0


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), or None
    when no such process runs (a zombie, ended but not yet waited for, has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def watch(pid: int, directory: Path) -> subprocess.Popen[bytes]:
    """A reaper for the session `pid` whose control planes live under `directory`."""
    started = start_time(pid) or ""
    argv = [sys.executable, "-m", "tests.kube.reaper", str(pid), started, str(directory)]
    return subprocess.Popen(
        argv,
        cwd=Path(__file__).resolve().parents[2],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def reap(pid: int, started: str, directory: Path) -> bool:
    """Wait until the session ends; True when it ended without stopping its control planes
    (and they are stopped now), False when it cleaned up after itself."""
    while start_time(pid) == started and directory.exists():
        time.sleep(POLL)
    if not directory.exists():
        return False
    from tests.kube import controlplane

    for instance in sorted(p for p in directory.iterdir() if (p / "state.json").exists()):
        controlplane.down(instance)
    shutil.rmtree(directory, ignore_errors=True)
    return True


if __name__ == "__main__":
    reap(int(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
