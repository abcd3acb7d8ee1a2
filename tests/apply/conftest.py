"""Apply-engine tests share the `env` fixture of tests/conftest.py."""

from tests.conftest import EXAMPLES, Env

__all__ = ["EXAMPLES", "Env"]
