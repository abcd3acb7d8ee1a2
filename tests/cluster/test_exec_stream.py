"""Driving an exec stream: a command that ends before it has read all its stdin (tar stops at
the end-of-archive blocks) closes the stream while the client still writes; what it wrote and
its status still say how it went, and no status at all is a failure, never a success."""

from __future__ import annotations

import json

from websocket import WebSocketConnectionClosedException

from gpuctl.cluster.client import ERROR_CHANNEL, _drive

SUCCESS = json.dumps({"metadata": {}, "status": "Success"})


class _ClosesAfterFirstChunk:
    """The official client's WSClient as _drive uses it: the server closes the stream after
    the first chunk of stdin, having sent `stdout` and `status`."""

    def __init__(self, stdout: bytes, status: str) -> None:
        self.stdout, self.status = stdout, status
        self.written = 0
        self.closed = False

    def write_stdin(self, data: bytes) -> None:
        if self.written:
            raise WebSocketConnectionClosedException("socket is already closed.")
        self.written += 1

    def update(self, timeout: float = 0) -> None:
        pass

    def peek_stdout(self) -> bool:
        return bool(self.stdout)

    def read_stdout(self) -> bytes:
        out, self.stdout = self.stdout, b""
        return out

    def peek_stderr(self) -> bool:
        return False

    def read_stderr(self) -> bytes:
        return b""

    def close_channel(self, channel: int) -> None:
        raise WebSocketConnectionClosedException("socket is already closed.")

    def is_open(self) -> bool:
        return False

    def read_channel(self, channel: int) -> str:
        assert channel == ERROR_CHANNEL
        return self.status

    def close(self) -> None:
        self.closed = True


def test_a_command_that_ended_before_reading_all_stdin_reports_its_own_status() -> None:
    client = _ClosesAfterFirstChunk(b"done\n", SUCCESS)
    result = _drive(client, [b"a" * 512, b"\0" * 9728], timeout=10, what="pod/nb-0")
    assert (result.returncode, result.stdout, result.failure) == (0, b"done\n", "")
    assert client.closed


def test_a_stream_closed_without_a_status_is_a_failure() -> None:
    client = _ClosesAfterFirstChunk(b"", "")
    result = _drive(client, [b"a" * 512, b"\0" * 9728], timeout=10, what="pod/nb-0")
    assert result.returncode == 1
    assert result.failure == "the exec stream closed before the command's exit status came"
