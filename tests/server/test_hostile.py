"""`gpuctl serve` as a process, against clients that misbehave: big bodies it must not read
or hold, followed log streams of a workload that writes nothing, whose clients go away, and a
shutdown with streams open. The sandbox's pods here write one line an hour: quiet."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gpuctl.sandbox.config import SandboxConfig
from tests.support.ports import free_port

from ..conftest import GPUCTL, Env
from ..support.sandbox import SandboxCluster
from .conftest import QUOTA, SECRETS, inference

MIB = 1024 * 1024


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """Pods that write their first line, then one an hour: a workload that writes nothing."""
    return SandboxConfig.fast(log_interval_seconds=3600)


@dataclass
class Served:
    process: subprocess.Popen[str]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def threads(self) -> int:
        return int(self._status("Threads:"))

    @property
    def streams_open(self) -> int:
        metrics = httpx.get(f"{self.base}/metrics").text
        found = re.search(r"^gpuctl_api_log_streams_open ([0-9.]+)$", metrics, re.M)
        assert found, "no gpuctl_api_log_streams_open in /metrics"
        return int(float(found.group(1)))

    def _status(self, key: str) -> str:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return next(line.split()[1] for line in status.splitlines() if line.startswith(key))

    def call(self, who: str, method: str, path: str, **kwargs: object) -> httpx.Response:
        headers = {"Authorization": f"Bearer {SECRETS[who]}"}
        return httpx.request(method, f"{self.base}/api/v1{path}", headers=headers, **kwargs)  # type: ignore[arg-type]

    @property
    def rss(self) -> int:
        """The server's resident memory now, in bytes."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(kib) * 1024


@contextmanager
def served(env: Env, token_file: Path, *extra: str) -> Iterator[Served]:
    """`gpuctl serve --tokens` on a free port, answering; terminated afterwards."""
    port = free_port()
    process = subprocess.Popen(
        [
            *(str(GPUCTL), "serve", "--port", str(port), "--tokens", str(token_file)),
            *("--kubeconfig", str(env.kubeconfig), *extra),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/readyz")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "gpuctl serve did not start"
                time.sleep(0.1)
        yield Served(process, port)
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)


def _head(port: int, token: str | None, length: int | None) -> socket.socket:
    """A connection that has sent a POST's head only (a declared length, else chunked)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    lines = ["POST /api/v1/jobs HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines.append(
        f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    )
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return sock


def _status(sock: socket.socket) -> int:
    """The status code of the answer on `sock` (read with the socket's timeout)."""
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the server closed the connection without an answer"
        head += chunk
    return int(head.split(b" ", 2)[1])


def _send_chunks(sock: socket.socket, total: int) -> None:
    """Up to `total` bytes of a chunked body, 1 MiB a chunk, until the server stops reading."""
    chunk = b"%x\r\n" % MIB + b"x" * MIB + b"\r\n"
    try:
        for _ in range(total // MIB):
            sock.sendall(chunk)
    except OSError:
        pass  # the server answered and closed: it reads no more


def test_big_bodies_are_refused_unread_and_leave_the_memory_as_it_was(
    env: Env, token_file: Path
) -> None:
    with served(env, token_file) as server:
        before = server.rss
        for _ in range(5):  # 100 MB each, declared: the answer comes before any body byte
            with _head(server.port, None, 100 * 1000 * 1000) as anonymous:
                assert _status(anonymous) == 401
            with _head(server.port, SECRETS["admin"], 100 * 1000 * 1000) as declared:
                assert _status(declared) == 413
        for _ in range(5):  # chunked: read up to the cap only
            with _head(server.port, SECRETS["admin"], None) as chunked:
                _send_chunks(chunked, 40 * MIB)
                assert _status(chunked) == 413
        grown = server.rss - before
        answer = httpx.get(
            f"http://127.0.0.1:{server.port}/api/v1/nodes",
            headers={"Authorization": f"Bearer {SECRETS['alice']}"},
        )
        assert answer.status_code == 200
    assert grown < 30 * MIB, f"RSS grew {grown / MIB:.0f} MiB"


def _quiet_job(server: Served) -> str:
    """A Deployment of one pod that writes nothing after its first line, running."""
    made = server.call("admin", "POST", "/jobs", json={"yamlContent": inference("quiet", 1)})
    assert made.status_code == 201, made.text
    deadline = time.monotonic() + 60
    while server.call("admin", "GET", "/jobs/default.quiet").json()["status"] != "running":
        assert time.monotonic() < deadline, "the quiet job never ran"
        time.sleep(0.2)
    return "default.quiet"


def _follow(server: Served, who: str, job: str) -> tuple[socket.socket, int]:
    """A followed log stream, as `curl -N` opens one: the connection and the answer's status."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    head = (
        f"GET /api/v1/jobs/{job}/logs?follow=true&tail=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {SECRETS[who]}\r\n\r\n"
    )
    sock.sendall(head.encode())
    return sock, _status(sock)


def _eventually(check: Callable[[], bool], what: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_streams_of_a_quiet_workload_end_when_their_clients_leave(
    env: Env, token_file: Path
) -> None:
    with served(env, token_file, "--max-log-streams", "12") as server:
        job = _quiet_job(server)
        threads = server.threads
        held = [_follow(server, "admin", job) for _ in range(8)]
        assert [status for _, status in held] == [200] * 8
        assert server.streams_open == 8
        _, over = _follow(server, "admin", job)
        assert over == 429  # one user's cap: 8
        assert server.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).is_success
        _, other = _follow(server, "alice", "alice.none")
        assert other == 404  # not 429: another user's streams do not count against alice
        for sock, _ in held:
            sock.close()  # the clients go away; the workload writes nothing meanwhile
        _eventually(lambda: server.streams_open == 0, "the streams stayed open", 5)
        _eventually(lambda: server.threads <= threads, f"threads stayed: {server.threads}", 5)
        again = [_follow(server, "admin", job) for _ in range(8)]
        assert [status for _, status in again] == [200] * 8
        for sock, _ in again:
            sock.close()


def test_sigterm_ends_open_streams_and_the_server_exits(env: Env, token_file: Path) -> None:
    with served(env, token_file) as server:
        job = _quiet_job(server)
        held = [_follow(server, "admin", job)[0] for _ in range(6)]
        assert server.streams_open == 6
        with connect(
            f"ws://127.0.0.1:{server.port}/api/v1/jobs/{job}/logs?tail=0",
            additional_headers={"Authorization": f"Bearer {SECRETS['admin']}"},
        ) as websocket:
            _eventually(lambda: server.streams_open == 7, "the WebSocket stream did not open")
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(timeout=10)
            with pytest.raises(ConnectionClosed):
                websocket.recv(timeout=5)
        for sock in held:
            sock.close()
    assert server.process.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal


REFUSALS = [
    (None, "/jobs/default.quiet/logs", "Unauthorized: give a valid token"),
    ("nobody-token-00000", "/jobs/default.quiet/logs", "Unauthorized: give a valid token"),
    ("alice", "/jobs/default.quiet/logs", "JobNotFound: no job 'default.quiet'"),
    ("admin", "/jobs/default.gone/logs", "JobNotFound: "),
    ("admin", "/jobs/default.quiet/logs?pod=nope", "PodNotFound: job 'default.quiet' has no"),
    ("admin", "/jobs/default.quiet/logs?tail=-1", "InvalidRequest: query.tail: "),
    ("admin", "/jobs/default.quiet/logs?tail=lots", "InvalidRequest: query.tail: "),
    ("admin", "/jobs/default.quiet/logs?tail=100001", "InvalidRequest: query.tail: "),
]


def test_websocket_refusals_close_with_1008_and_the_reason_after_the_handshake(
    env: Env, token_file: Path
) -> None:
    with served(env, token_file) as server:
        _quiet_job(server)
        for who, path, reason in REFUSALS:
            headers = {"Authorization": f"Bearer {SECRETS.get(who, who)}"} if who else {}
            url = f"ws://127.0.0.1:{server.port}/api/v1{path}"
            with (
                connect(url, additional_headers=headers) as ws,  # the handshake succeeds
                pytest.raises(ConnectionClosed) as closed,
            ):
                ws.recv(timeout=10)
            received = closed.value.rcvd
            assert received is not None and received.code == 1008, path
            assert received.reason.startswith(reason), (path, received.reason)
            if "tail" in path:  # the rule and the words of the HTTP endpoint
                answer = server.call("admin", "GET", path)
                assert answer.status_code == 400
                assert received.reason == f"InvalidRequest: {answer.json()['message']}"[:123]


def test_a_client_that_leaves_mid_delete_leaves_the_job_gone_and_the_server_serving(
    env: Env, token_file: Path
) -> None:
    """`DELETE /jobs/{id}` whose client goes away while the server deletes the job's objects
    (each delete slowed to a second): the delete still runs to its end, so the job is gone
    (nothing left for GET /jobs to list as partial), the server answers the next requests, and
    the same job can be created again."""
    assert isinstance(env.sandbox, SandboxCluster)
    with served(env, token_file) as server:
        job = _quiet_job(server)
        env.sandbox.requests.clear()
        env.sandbox.faults.latency(1.0, method="DELETE", namespace="default")
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
        sock.sendall(
            f"DELETE /api/v1/jobs/{job} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {SECRETS['admin']}\r\n\r\n".encode()
        )
        _eventually(
            lambda: any(r.method == "DELETE" for r in env.sandbox.requests),
            "the server never started deleting the job's objects",
        )
        sock.close()  # the client leaves: the job's other objects are still being deleted
        env.sandbox.faults.clear()
        assert server.call("admin", "GET", "/jobs").status_code == 200  # served meanwhile
        _eventually(
            lambda: server.call("admin", "GET", f"/jobs/{job}").status_code == 404,
            "the job was left half deleted",
            20,
        )
        assert not [
            item
            for item in server.call("admin", "GET", "/jobs").json()["items"]
            if item["jobId"] == job
        ]
        assert httpx.get(f"{server.base}/readyz").status_code == 200
        assert server.process.poll() is None
        again = server.call("admin", "POST", "/jobs", json={"yamlContent": inference("quiet", 1)})
        assert again.status_code == 201, again.text
