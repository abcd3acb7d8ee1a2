"""kube-score over every manifest gpuctl prints: the render of every example with the
PriorityClasses, the controller's install manifests (one replica and two), and the monitoring
manifests.

What fails is exactly what kube_score_ignores.txt lists for that set, each check with the reason
it does not apply: a new finding fails the test, and so does an ignore that nothing needs any
more.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import tools

from .conftest import EXAMPLES, run_gpuctl

IGNORES = Path(__file__).with_name("kube_score_ignores.txt")
SETS: dict[str, list[tuple[str, ...]]] = {
    "specs": [
        *(("render", "-f", str(example)) for example in sorted(EXAMPLES.glob("*.yaml"))),
        ("priority-classes",),
    ],
    "controller": [("controller", "manifests"), ("controller", "manifests", "--replicas", "2")],
    "monitoring": [("monitoring", "manifests")],
}


@dataclass(frozen=True)
class Ignore:
    check: str
    sets: tuple[str, ...]  # names in SETS
    reason: str


def ignores() -> list[Ignore]:
    """`<check id> <set>[,<set>...]: <reason>` lines; # starts a comment."""
    result = []
    for number, line in enumerate(IGNORES.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        head, _, reason = text.partition(":")
        check, _, sets = head.strip().partition(" ")
        assert reason.strip() and sets.strip(), f"{IGNORES.name}:{number}: no set or reason"
        result.append(Ignore(check, tuple(sets.strip().split(",")), reason.strip()))
    return result


def printed(commands: list[tuple[str, ...]]) -> str:
    texts = []
    for command in commands:
        done = run_gpuctl(*command)
        assert done.returncode == 0, done.stderr
        texts.append(done.stdout)
    return "---\n".join(texts)


def findings(manifests: Path) -> dict[str, list[str]]:
    """check id -> `object: what` for every check kube-score does not pass (skipped ones
    aside)."""
    done = subprocess.run(
        [str(tools.kube_score()), "score", "--output-format", "json", str(manifests)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    # exit 1 when anything fails: read on; `null` when no object is of a kind it scores
    assert done.stdout.startswith(("[", "null")), done.stderr
    found: dict[str, list[str]] = {}
    for obj in json.loads(done.stdout) or []:
        for result in obj["checks"]:
            if result["skipped"] or result["grade"] >= 10:
                continue
            comments = "; ".join(comment["summary"] for comment in result["comments"] or [])
            found.setdefault(result["check"]["id"], []).append(f"{obj['object_name']}: {comments}")
    return found


def test_every_ignore_names_a_check_of_kube_score_and_a_set() -> None:
    listed = subprocess.run(
        [str(tools.kube_score()), "list"], capture_output=True, text=True, check=True
    ).stdout
    checks = {line.split(",", 1)[0] for line in listed.splitlines() if line}
    for ignore in ignores():
        assert ignore.check in checks, ignore
        assert set(ignore.sets) <= set(SETS), ignore


@pytest.mark.parametrize("name", list(SETS))
def test_kube_score_finds_nothing_but_the_justified_ignores(name: str, tmp_path: Path) -> None:
    manifests = tmp_path / f"{name}.yaml"
    manifests.write_text(printed(SETS[name]))
    found = findings(manifests)
    expected = {i.check for i in ignores() if name in i.sets}
    unexplained = {check: found[check] for check in sorted(found.keys() - expected)}
    assert not unexplained, f"new kube-score findings in {name}: {unexplained}"
    stale = sorted(expected - found.keys())
    assert not stale, f"ignored for {name} in {IGNORES.name}, but nothing fails them: {stale}"
