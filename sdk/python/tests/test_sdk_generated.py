"""The committed generated code is what the committed contract generates (`make sdk` after a
change of docs/openapi.json), and the package depends on neither gpuctl nor kubernetes."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SDK = Path(__file__).resolve().parents[1]


def test_the_generated_code_is_what_the_contract_generates() -> None:
    done = subprocess.run(
        [sys.executable, str(SDK / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_package_imports_only_httpx_attrs_and_optionally_websockets() -> None:
    allowed = {"httpx", "attrs", "websockets", "gpuctl_client"}
    imported: set[str] = set()
    for path in (SDK / "gpuctl_client").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {name for name in imported if name not in sys.stdlib_module_names}
    assert third_party <= allowed, third_party - allowed
