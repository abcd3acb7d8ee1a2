"""Where the shipped data lives: templates/ and schemas/.

In the repository (and an editable install) they sit at the top level, beside the package; a
wheel carries them inside the package (pyproject's force-include). Both layouts resolve here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]


@cache
def data_dir(name: str) -> Path:
    """The folder `name` (`templates` or `schemas`) for this installation."""
    for candidate in (PACKAGE_DIR / name, PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"gpuctl is installed without its {name}/ folder")


def templates_dir() -> Path:
    return data_dir("templates")


def schemas_dir() -> Path:
    return data_dir("schemas")
