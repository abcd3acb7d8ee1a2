"""The SDK when the server goes away: a followed log stream whose server is killed raises
LogStreamBroken (over the WebSocket and over the chunked stream) instead of hanging or ending
as if the job had finished; a server that never answers is ConnectionFailed at the deadline."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest
from gpuctl_client import Client, ConnectionFailed, LogStreamBroken, RetryPolicy
from gpuctl_client.logs import Via
from sdk_helpers import FAST_RETRIES, spec

from gpuctl.sandbox.config import SandboxConfig
from tests.conftest import Env
from tests.server.conftest import SECRETS
from tests.server.test_hostile import served
from tests.support.ports import free_port


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """Training pods that run ten minutes, writing a line every 0.2 s."""
    return SandboxConfig.fast(job_run_seconds=600.0, log_interval_seconds=0.2)


@pytest.mark.parametrize("via", ["websocket", "chunked"])
def test_a_follow_whose_server_is_killed_raises(env: Env, token_file: Path, via: Via) -> None:
    with served(env, token_file) as server:
        client = Client(server.base, SECRETS["admin"], retry=FAST_RETRIES)
        job = client.jobs.create(spec("long")).job_id
        lines: list[str] = []
        ended: list[BaseException | None] = []

        def read() -> None:
            try:
                for line in client.jobs.follow(job, via=via):
                    lines.append(line)
                    if len(lines) == 3:
                        os.kill(server.process.pid, signal.SIGKILL)
                ended.append(None)
            except BaseException as exc:
                ended.append(exc)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(120)
        assert not reader.is_alive(), "the follow hung after the server was killed"
        client.close()
    assert len(lines) >= 3 and lines[0].endswith(": started")
    (error,) = ended
    assert isinstance(error, LogStreamBroken), repr(error)
    assert job in str(error) and "may still be running" in str(error)


def test_no_server_is_connection_failed_at_the_deadline() -> None:
    with Client(f"http://127.0.0.1:{free_port()}", "t", retry=RetryPolicy(deadline=1.0)) as c:
        with pytest.raises(ConnectionFailed) as failed:
            c.jobs.get("default.a")
        with pytest.raises(ConnectionFailed):
            list(c.jobs.follow("default.a"))
    assert "no answer from the server" in str(failed.value)
