"""The reaper of tests/kube/reaper.py: it cleans up after a session that was killed, and leaves
alone a session that cleaned up after itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.kube import controlplane, reaper
from tests.support.sandbox import wait_for


def state_dir(root: Path) -> Path:
    """An instance directory as `up` leaves it, with a recorded process that is not one of the
    control plane's binaries (so `down` must not signal it)."""
    instance = root / "cp"
    instance.mkdir(parents=True)
    controlplane.State(str(instance), {}, {"etcd": 1}, "token").save()
    return instance


def test_a_killed_session_has_its_control_planes_stopped_and_its_directory_removed(
    tmp_path: Path,
) -> None:
    instance = state_dir(tmp_path / "session")
    session = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    watcher = reaper.watch(session.pid, tmp_path / "session")
    session.kill()
    session.wait()
    assert watcher.wait(timeout=30) == 0
    assert not instance.exists()


def test_a_session_that_cleaned_up_is_left_alone(tmp_path: Path) -> None:
    instance = state_dir(tmp_path / "session")
    session = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    watcher = reaper.watch(session.pid, tmp_path / "session")
    try:
        wait_for(lambda: reaper.start_time(watcher.pid) is not None, 10, 0.05, "the reaper")
        assert watcher.poll() is None  # it watches while the session runs
        (instance / "state.json").unlink()
        instance.rmdir()
        (tmp_path / "session").rmdir()
        assert watcher.wait(timeout=30) == 0
    finally:
        session.kill()
        session.wait()


def test_a_reused_pid_does_not_count_as_the_session(tmp_path: Path) -> None:
    state_dir(tmp_path / "session")
    # the reaper is given a start time that is not the running process's: the session is gone
    assert reaper.reap(os.getpid(), "0", tmp_path / "session")
    assert not (tmp_path / "session").exists()
