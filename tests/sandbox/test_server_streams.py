"""The sandbox server's check for a client that went away, at any descriptor number."""

from __future__ import annotations

import os
import resource
import socket
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from gpuctl.sandbox.server import Handler


@pytest.fixture
def high_descriptors() -> Iterator[list[int]]:
    """Enough open descriptors that the next socket's number is over 1023, where select()
    stops working."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        pytest.fail(f"the open-file limit ({soft}) is too low for this test: ulimit -n 4096")
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    yield held
    for fd in held:
        os.close(fd)


def test_a_client_gone_is_noticed_on_a_descriptor_over_1023(high_descriptors: list[int]) -> None:
    server_end, client_end = socket.socketpair()
    try:
        assert server_end.fileno() > 1023
        handler = SimpleNamespace(connection=server_end)
        assert Handler._client_gone(handler) is False  # type: ignore[arg-type]
        client_end.close()
        assert Handler._client_gone(handler) is True  # type: ignore[arg-type]
    finally:
        server_end.close()
        client_end.close()
