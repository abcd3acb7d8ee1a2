"""The console's build: the files in gpuctl/server/console_dist (committed, so that `pip
install .` gives a working console on a machine without Node) are what console/'s sources
build to with the pinned packages; its unit tests (Vitest) pass; its first page stays within
the JavaScript budget."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from .conftest import BUILT, run_node

JS_BUDGET = 300 * 1024  # bytes of JavaScript, gzipped, that the first page loads


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()
    }


def test_committed_console_is_the_build_of_its_sources(console_copy: Path) -> None:
    run_node(["vite", "build", "--logLevel", "error"], console_copy)
    rebuilt = _files(console_copy.parent / "gpuctl" / "server" / "console_dist")
    committed = _files(BUILT)
    assert sorted(rebuilt) == sorted(committed), (
        "gpuctl/server/console_dist is not the build of console/: run `npm ci && npm run build`"
        " in console/ and commit the result"
    )
    changed = [name for name in rebuilt if rebuilt[name] != committed[name]]
    assert changed == [], f"rebuild console/ (npm run build) and commit: {changed} differ"


def test_console_type_checks_and_unit_tests_pass(console_copy: Path) -> None:
    run_node(["tsc", "--noEmit"], console_copy)
    done = run_node(["vitest", "run", "--reporter=dot"], console_copy)
    assert re.search(r"Tests\s+\d+ passed", done.stdout), done.stdout


def first_page_scripts(root: Path) -> list[Path]:
    """The scripts index.html loads: its module script and what it preloads."""
    index = (root / "index.html").read_text()
    found = re.findall(r'<script[^>]*\ssrc="/([^"]+)"', index)
    found += re.findall(r'<link[^>]*rel="modulepreload"[^>]*href="/([^"]+)"', index)
    return [root / name for name in found]


def test_first_page_javascript_is_within_budget() -> None:
    scripts = first_page_scripts(BUILT)
    assert scripts, "index.html loads no script"
    # what the first page loads: its scripts and every chunk they import statically (the
    # pages' heavy parts, the editor and the charts, are `import()`ed when their page opens)
    first = set().union(*(static_imports(script) for script in scripts))
    assert first <= set(BUILT.glob("assets/*.js"))
    gzipped = sum(len(gzip.compress(path.read_bytes(), 9)) for path in first)
    assert gzipped <= JS_BUDGET, f"{gzipped} bytes of JavaScript gzipped, over {JS_BUDGET}"


def test_built_console_has_no_inline_script_or_outside_resource() -> None:
    index = (BUILT / "index.html").read_text()
    assert re.findall(r"<script(?![^>]*\ssrc=)[^>]*>", index) == []
    assert "<style" not in index and " style=" not in index
    for path in BUILT.rglob("*"):
        if path.suffix in (".html", ".css"):
            text = path.read_text()
            assert not re.search(r"(src|href)=\"(https?:)?//", text), path
            assert not re.search(r"url\((['\"]?)(https?:)?//", text), path
            assert "@import" not in text, path


def static_imports(script: Path) -> set[Path]:
    """`script` and the chunks it imports statically, transitively (an `import()` is not one:
    it loads when the page that needs it opens)."""
    seen: set[Path] = set()
    todo = [script]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for name in re.findall(r'(?:\bfrom|\bimport)\s*"\./([^"]+\.js)"', current.read_text()):
            todo.append(current.parent / name)
    return seen


def test_new_job_editor_is_a_chunk_the_first_page_does_not_load() -> None:
    first = set().union(*(static_imports(script) for script in first_page_scripts(BUILT)))
    [editor] = sorted(BUILT.glob("assets/NewJob-*.js"))
    assert editor not in first
    assert not [path.name for path in first if "cm-editor" in path.read_text()]  # CodeMirror
    assert "cm-editor" in editor.read_text()
