"""Third-party checkers over every manifest gpuctl prints: kube-score and checkov, over the
render of every example with the PriorityClasses, the controller's install manifests (one
replica and two), and the monitoring manifests.

What fails is exactly what manifest_check_ignores.txt lists for that checker and set, each check
with the reason it does not apply: a new finding fails the test, and so does an ignore that
nothing needs any more.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import tools

from .conftest import EXAMPLES, run_gpuctl

IGNORES = Path(__file__).with_name("manifest_check_ignores.txt")
SETS: dict[str, list[tuple[str, ...]]] = {
    "specs": [
        *(("render", "-f", str(example)) for example in sorted(EXAMPLES.glob("*.yaml"))),
        ("priority-classes",),
    ],
    "controller": [("controller", "manifests"), ("controller", "manifests", "--replicas", "2")],
    "monitoring": [("monitoring", "manifests")],
}
Findings = dict[str, list[str]]  # check id -> `object: what` for each object that fails it


@dataclass(frozen=True)
class Ignore:
    checker: str
    check: str
    sets: tuple[str, ...]  # names in SETS
    reason: str


def ignores(checker: str) -> list[Ignore]:
    """`<checker> <check id> <set>[,<set>...]: <reason>` lines; # starts a comment."""
    result = []
    for number, line in enumerate(IGNORES.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        head, _, reason = text.partition(":")
        words = head.split()
        assert len(words) == 3 and reason.strip(), f"{IGNORES.name}:{number}: not understood"
        assert words[0] in CHECKERS, f"{IGNORES.name}:{number}: no checker {words[0]}"
        if words[0] == checker:
            result.append(Ignore(checker, words[1], tuple(words[2].split(",")), reason.strip()))
    return result


def printed(commands: list[tuple[str, ...]]) -> str:
    texts = []
    for command in commands:
        done = run_gpuctl(*command)
        assert done.returncode == 0, done.stderr
        texts.append(done.stdout)
    return "---\n".join(texts)


def kube_score_findings(manifests: Path) -> Findings:
    """Every check kube-score does not pass (skipped ones aside)."""
    done = subprocess.run(
        [str(tools.kube_score()), "score", "--output-format", "json", str(manifests)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    # exit 1 when anything fails: read on; `null` when no object is of a kind it scores
    assert done.stdout.startswith(("[", "null")), done.stderr
    found: Findings = {}
    for obj in json.loads(done.stdout) or []:
        for result in obj["checks"]:
            if result["skipped"] or result["grade"] >= 10:
                continue
            comments = "; ".join(comment["summary"] for comment in result["comments"] or [])
            found.setdefault(result["check"]["id"], []).append(f"{obj['object_name']}: {comments}")
    return found


def checkov_findings(manifests: Path) -> Findings:
    """Every Kubernetes check checkov fails."""
    command = [str(tools.checkov()), "--framework", "kubernetes", "--output", "json"]
    done = subprocess.run(
        [*command, "--quiet", "--file", str(manifests)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    # exit 1 when anything fails: read on; a report per framework, or one
    reports = json.loads(done.stdout or "null")
    assert reports is not None, done.stderr
    found: Findings = {}
    for report in reports if isinstance(reports, list) else [reports]:
        assert report["summary"]["parsing_errors"] == 0, report["summary"]
        for result in report["results"]["failed_checks"]:
            found.setdefault(result["check_id"], []).append(
                f"{result['resource']}: {result['check_name']}"
            )
    return found


CHECKERS: dict[str, Callable[[Path], Findings]] = {
    "kube-score": kube_score_findings,
    "checkov": checkov_findings,
}


def test_every_ignore_names_a_check_of_kube_score_and_a_set() -> None:
    listed = subprocess.run(
        [str(tools.kube_score()), "list"], capture_output=True, text=True, check=True
    ).stdout
    checks = {line.split(",", 1)[0] for line in listed.splitlines() if line}
    for ignore in ignores("kube-score"):
        assert ignore.check in checks, ignore
        assert set(ignore.sets) <= set(SETS), ignore
    for ignore in ignores("checkov"):
        assert ignore.check.startswith(("CKV_K8S_", "CKV2_K8S_")), ignore
        assert set(ignore.sets) <= set(SETS), ignore


@pytest.mark.parametrize("checker", list(CHECKERS))
@pytest.mark.parametrize("name", list(SETS))
def test_a_checker_finds_nothing_but_the_justified_ignores(
    checker: str, name: str, tmp_path: Path
) -> None:
    manifests = tmp_path / f"{name}.yaml"
    manifests.write_text(printed(SETS[name]))
    found = CHECKERS[checker](manifests)
    expected = {i.check for i in ignores(checker) if name in i.sets}
    unexplained = {check: found[check] for check in sorted(found.keys() - expected)}
    assert not unexplained, f"new {checker} findings in {name}: {unexplained}"
    stale = sorted(expected - found.keys())
    assert not stale, f"ignored for {checker} in {name} by {IGNORES.name}, nothing fails: {stale}"
