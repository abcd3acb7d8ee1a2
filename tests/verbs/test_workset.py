"""Workset: the one way in from files (the CLI), text (the REST API, the controller) and
documents; specs are checked before the options (for the CLI: a cluster connection) are asked
for, and a front end's own refusal runs before anything is rendered."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from gpuctl.errors import SpecError
from gpuctl.spec.check import Spec
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs.workset import Workset
from tests.conftest import EXAMPLES

TRAINING = (EXAMPLES / "training.yaml").read_text()


def never() -> Options:
    raise AssertionError("options were asked for although the specs are invalid")


def test_from_files_reports_every_problem_before_asking_for_options(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: training\nversion: v0.1\n")
    with pytest.raises(SpecError):
        Workset.from_files([str(bad)], never)
    asked: list[str] = []

    def options() -> Options:
        asked.append("options")
        return Options(default_namespace="team-a")

    good = tmp_path / "good.yaml"
    good.write_text(TRAINING)
    work = Workset.from_files([str(good)], options)
    assert asked == ["options"]
    assert [spec.kind.name for spec in work.specs] == ["training"]
    assert work.manifests and all(m.namespace for m in work.manifests)


def test_from_text_lets_a_front_end_refuse_before_rendering() -> None:
    seen: list[int] = []

    def admit(specs: Sequence[Spec]) -> None:
        seen.append(len(specs))
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        Workset.from_text(TRAINING, "yamlContent", never, admit)
    assert seen == [1]
    work = Workset.from_text(TRAINING, "yamlContent", Options())
    assert work == Workset.from_documents(load_text("yamlContent", TRAINING), Options())
