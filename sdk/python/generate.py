"""Writes gpuctl_client/_generated from the API's committed contract, docs/openapi.json, with
openapi-python-client (the version pyproject.toml pins: `make sdk` runs this).

Two things around the generator, both for the contract's `POST /jobs`, which takes JSON or the
spec itself as `application/yaml`: the YAML body is sent as raw bytes (`content_type_overrides`,
as it sends application/octet-stream), and its endpoint template gets the `Unset` import that
up to 0.29.1 it leaves out for an operation taking two media types (upstream issue 1451). No
post hooks: the output is the generator's own, the same wherever it runs (no formatter's
version in it); ruff and mypy leave that folder out.

    python sdk/python/generate.py            # rewrite the folder
    python sdk/python/generate.py --check    # exit 1 when it differs from a fresh generation
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTRACT = HERE.parents[1] / "docs" / "openapi.json"
TARGET = HERE / "gpuctl_client" / "_generated"
GENERATOR_VERSION = "0.29.1"
CONFIG = """\
content_type_overrides:
  application/yaml: application/octet-stream
post_hooks: []
"""
IMPORT_LINE = "from ...types import Response, UNSET\n"


def _template_folder(work: Path) -> Path:
    import openapi_python_client

    have = getattr(openapi_python_client, "__version__", None)
    if have is None:
        from importlib.metadata import version

        have = version("openapi-python-client")
    if have != GENERATOR_VERSION:
        sys.exit(f"openapi-python-client {have} is installed; this needs {GENERATOR_VERSION}")
    original = (
        Path(openapi_python_client.__file__).parent / "templates" / "endpoint_module.py.jinja"
    )
    text = original.read_text(encoding="utf-8")
    if IMPORT_LINE not in text:
        sys.exit("the generator's endpoint template changed: look again at the Unset import")
    folder = work / "templates"
    folder.mkdir()
    patched = text.replace(IMPORT_LINE, "from ...types import Response, UNSET, Unset\n")
    (folder / "endpoint_module.py.jinja").write_text(patched, encoding="utf-8")
    return folder


def generate(into: Path) -> None:
    """The generated package, written to `into` (which must not exist); exits on any warning."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        templates = _template_folder(work)
        config = work / "generator.yaml"
        config.write_text(CONFIG, encoding="utf-8")
        command = Path(sys.executable).parent / "openapi-python-client"
        done = subprocess.run(
            [
                *(str(command), "generate", "--path", str(CONTRACT)),
                *("--output-path", str(into), "--meta", "none"),
                *("--config", str(config), "--custom-template-path", str(templates)),
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        output = done.stdout + done.stderr
        if done.returncode != 0 or "warning" in output.lower():
            sys.exit(f"openapi-python-client failed or warned:\n{output}")


def differences(left: Path, right: Path) -> list[str]:
    """The files that differ, or are in one folder only (relative paths)."""
    found: list[str] = []
    compared = filecmp.dircmp(left, right, ignore=["__pycache__"])
    stack = [(compared, Path())]
    while stack:
        node, where = stack.pop()
        found += [str(where / name) for name in node.left_only + node.right_only]
        found += [
            str(where / name)
            for name in node.common_files
            if (Path(node.left) / name).read_bytes() != (Path(node.right) / name).read_bytes()
        ]
        stack += [(sub, where / name) for name, sub in node.subdirs.items()]
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch) / "_generated"
        generate(fresh)
        if args.check:
            changed = differences(fresh, TARGET) if TARGET.exists() else ["(all)"]
            if changed:
                sys.exit(
                    "gpuctl_client/_generated is not what docs/openapi.json generates: run "
                    f"`make sdk` and commit the diff; differing: {', '.join(changed)}"
                )
            return
        shutil.rmtree(TARGET, ignore_errors=True)
        shutil.copytree(fresh, TARGET, ignore=shutil.ignore_patterns("__pycache__"))


if __name__ == "__main__":
    main()
