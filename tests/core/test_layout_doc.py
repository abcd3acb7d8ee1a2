"""The design pages stay true to the code: docs/design/layout.md's layer list names every
package and top-level module of gpuctl once and nothing else, every import goes to the
importer's own layer or an earlier one, no other part of gpuctl imports the sandbox, the
repository sketch names every test folder, and every module, class, function or file that a
design page names in backticks (`gpuctl.cluster.lease.Lease`, `gpuctl/cluster/cache.py`,
`tests/conftest.py`) exists."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

from .conftest import REPO

GPUCTL = REPO / "gpuctl"
DESIGN = REPO / "docs" / "design"
LAYOUT = (DESIGN / "layout.md").read_text(encoding="utf-8")
SANDBOX = "sandbox/"
ROOTS = "gpuctl|tests|benchmarks|docs|examples|schemas|templates|console|sdk|packaging|\\.ci"
PATH_SPAN = re.compile(rf"(?:{ROOTS})/[\w./-]*")
DOTTED_SPAN = re.compile(r"gpuctl(?:\.[A-Za-z_]\w*)+")


def layers(text: str) -> list[list[str]]:
    """The members of each numbered item of the `## Layers` section: the code spans of its
    bold lead (`3. **`workloads/`**: ...`), in order."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    leads = re.findall(r"^\d+\. \*\*(.+?)\*\*", section, re.M)
    return [re.findall(r"`([^`]+)`", lead) for lead in leads]


def units(root: Path = GPUCTL) -> set[str]:
    """Every package (`cli/`) and top-level module (`errors.py`) of gpuctl."""
    packages = {f"{path.parent.name}/" for path in root.glob("*/__init__.py")}
    modules = {path.name for path in root.glob("*.py") if path.name != "__init__.py"}
    return packages | modules


def unit_of(name: str, root: Path = GPUCTL) -> str | None:
    """The package or top-level module that the dotted module name `gpuctl.X...` lies in;
    None for gpuctl itself (its `__version__`)."""
    parts = name.split(".")
    if parts[0] != "gpuctl" or len(parts) < 2:
        return None
    if (root / parts[1] / "__init__.py").exists():
        return f"{parts[1]}/"
    if (root / f"{parts[1]}.py").exists():
        return f"{parts[1]}.py"
    return None


def imported(path: Path, root: Path = GPUCTL) -> Iterator[str]:
    """The dotted names of the gpuctl modules `path` imports, at any depth of its code."""
    package = path.relative_to(root.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def layer_problems(text: str, root: Path = GPUCTL) -> list[str]:
    """What the layer list gets wrong about the packages and modules under `root`."""
    listed = [member for layer in layers(text) for member in layer]
    problems = [f"{m}: listed twice" for m in sorted(set(listed)) if listed.count(m) > 1]
    present = units(root)
    problems += [f"{m}: no such package or module" for m in sorted(set(listed) - present)]
    problems += [f"{m}: in no layer" for m in sorted(present - set(listed))]
    return problems


def import_problems(text: str, root: Path = GPUCTL) -> list[str]:
    """Each import of a later layer's module, and each import of the sandbox from outside."""
    rank = {member: index for index, layer in enumerate(layers(text)) for member in layer}
    problems = set()
    for path in sorted(root.rglob("*.py")):
        source = unit_of(".".join(path.relative_to(root.parent).with_suffix("").parts), root)
        for name in imported(path, root):
            target = unit_of(name, root)
            if source is None or target is None or target == source:
                continue
            where = path.relative_to(root.parent).as_posix()
            if target == SANDBOX:
                problems.add(f"{where} imports {name}: nothing outside the sandbox may")
            elif rank.get(target, -1) > rank.get(source, -1):
                problems.add(f"{where} imports {name}, of a later layer")
    return sorted(problems)


def _resolves(dotted: str) -> bool:
    """Whether `gpuctl.a.b.C.d` is a module, or a name inside the longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def name_problems(text: str, repo: Path = REPO) -> list[str]:
    """Every code span that names a file or a gpuctl module, class or function that is not
    there."""
    problems = []
    for span in re.findall(r"`([^`\n]+)`", text):
        if PATH_SPAN.fullmatch(span) and not (repo / span.rstrip("/")).exists():
            problems.append(f"{span}: no such file or folder")
        elif DOTTED_SPAN.fullmatch(span) and not _resolves(span):
            problems.append(f"{span}: no such module or name")
    return problems


def sketch_problems(text: str, tests: Path = REPO / "tests") -> list[str]:
    """The repository sketch's test folders against tests/: each folder named, none extra."""
    sketch = text.split("## The rest of the repository", 1)[1].split("```")[1]
    named = set(re.findall(r"^  (\w+)/ ", sketch, re.M))
    present = {path.parent.name for path in tests.glob("*/__init__.py")}
    return [f"tests/{n}/: no such folder" for n in sorted(named - present)] + [
        f"tests/{n}/: not in the sketch" for n in sorted(present - named)
    ]


def test_the_layer_list_names_every_package_once() -> None:
    assert len(layers(LAYOUT)) >= 8
    assert layer_problems(LAYOUT) == []


def test_every_import_goes_to_its_own_layer_or_an_earlier_one() -> None:
    assert import_problems(LAYOUT) == []


def test_the_repository_sketch_names_every_test_folder() -> None:
    assert sketch_problems(LAYOUT) == []


def test_every_name_on_a_design_page_exists() -> None:
    pages = sorted(DESIGN.glob("*.md"))
    assert DESIGN / "layout.md" in pages
    problems = [
        f"{page.name}: {problem}"
        for page in pages
        for problem in name_problems(page.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_the_checks_catch_a_layout_that_drifted() -> None:
    dropped = LAYOUT.replace("**`verbs/`**", "**`verb/`**")
    assert layer_problems(dropped) == ["verb/: no such package or module", "verbs/: in no layer"]
    swapped = LAYOUT.replace("**`cluster/`**", "**`verbz/`**").replace(
        "**`verbs/`**", "**`cluster/`**"
    )
    swapped = swapped.replace("**`verbz/`**", "**`verbs/`**")
    assert any("of a later layer" in problem for problem in import_problems(swapped))
    assert name_problems("`gpuctl/cluster/nothing.py` `gpuctl.cluster.lease.Nothing`") == [
        "gpuctl/cluster/nothing.py: no such file or folder",
        "gpuctl.cluster.lease.Nothing: no such module or name",
    ]
    assert name_problems("`gpuctl.cluster.lease.Lease` `gpuctl.runwhere.ai/x` `/api/v1`") == []
    sketch = LAYOUT.replace("  realpods/", "  realpod/")
    assert sketch_problems(sketch) == [
        "tests/realpod/: no such folder",
        "tests/realpods/: not in the sketch",
    ]
