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
from gpuctl.spec.kinds import Options

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


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_the_priority_classes_the_pods_name_come_first(example: Path) -> None:
    """`gpuctl render | kubectl apply -f -` on a cluster without gpuctl's PriorityClasses: the
    API server refuses a pod naming a class it lacks, so render prints each class the pods
    name, once, before the workloads, and no other."""
    manifests = engine.render([str(example)])
    named = [
        m.obj["spec"]["template"]["spec"].get("priorityClassName") for m in _workloads(manifests)
    ]
    classes = [m for m in manifests if m.kind == "PriorityClass"]
    assert sorted(m.name for m in classes) == sorted(set(filter(None, named)))
    for manifest in classes:
        assert manifest.obj == _installed(manifest.name)
        first_workload = min(manifests.index(m) for m in _workloads(manifests))
        assert manifests.index(manifest) < first_workload


def test_render_names_no_priority_class_without_them() -> None:
    manifests = engine.render([str(EXAMPLES)], Options(priority_classes=False))
    assert not [m for m in manifests if m.kind == "PriorityClass"]
    assert all(
        "priorityClassName" not in m.obj["spec"]["template"]["spec"] for m in _workloads(manifests)
    )


def _workloads(manifests: list[engine.Manifest]) -> list[engine.Manifest]:
    return [m for m in manifests if m.kind in ("Job", "Deployment", "StatefulSet")]


def _installed(name: str) -> dict[str, Any]:
    """The class as `gpuctl priority-classes install` makes it."""
    return next(m.obj for m in engine.render_priority_classes() if m.name == name)
