"""Every bundled example renders, and its output is pinned by a reviewed YAML snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from gpuctl.constants import Labels
from gpuctl.render import engine
from gpuctl.render.engine import INSTALL_ORDER

from .conftest import EXAMPLES

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))


class YAMLSnapshot(SingleFileSnapshotExtension):
    """One readable .yaml file per example under __snapshots__/."""

    _write_mode = WriteMode.TEXT
    file_extension = "yaml"


@pytest.fixture
def snapshot_yaml(snapshot: Any) -> Any:
    return snapshot.use_extension(YAMLSnapshot)


def test_there_is_an_example_of_every_kind() -> None:
    kinds = {yaml.safe_load_all(p.read_text()).__next__()["kind"] for p in EXAMPLE_FILES}
    assert {"training", "inference", "notebook", "compute", "pool", "resource", "quota"} <= kinds


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_example_renders_as_snapshot(example: Path, snapshot_yaml: Any) -> None:
    text = engine.to_yaml(engine.render([str(example)]))
    assert text == snapshot_yaml


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_object_is_labelled_and_ordered(example: Path) -> None:
    manifests = engine.render([str(example)])
    assert manifests
    order = [INSTALL_ORDER.index(m.kind) for m in manifests]
    assert order == sorted(order), "namespaces and services must come before workloads"
    for manifest in manifests:
        assert manifest.obj["metadata"]["labels"][Labels.MANAGED_BY] == "gpuctl"
        template = manifest.obj.get("spec", {}).get("template")
        if template:
            pod_labels = template["metadata"]["labels"]
            assert pod_labels[Labels.MANAGED_BY] == "gpuctl"
            for key in (Labels.JOB_TYPE, Labels.PRIORITY, Labels.POOL, Labels.NAMESPACE):
                assert key in pod_labels
