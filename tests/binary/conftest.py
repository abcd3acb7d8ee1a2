from __future__ import annotations

from pathlib import Path

import pytest

from .build import built_binary


@pytest.fixture(scope="session")
def binary() -> Path:
    """dist/gpuctl-linux-amd64 for the current sources (built once, cached by their hash)."""
    return built_binary()
