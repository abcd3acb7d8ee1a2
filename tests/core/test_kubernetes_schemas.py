"""Every rendered object passes the official Kubernetes schemas in strict mode (unknown fields
are errors) for the oldest and the newest Kubernetes version gpuctl supports."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuctl.render import engine
from gpuctl.spec.kinds import Options

from .conftest import EXAMPLES
from .kubernetes_schemas import NEWEST, OLDEST, errors

VERSIONS = [OLDEST, NEWEST]


def _rendered() -> list[engine.Manifest]:
    manifests = engine.render([str(EXAMPLES)], Options(priority_classes=True))
    return manifests + engine.render_priority_classes()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_example_objects_pass_strict_schema(example: Path, version: str) -> None:
    for manifest in engine.render([str(example)], Options(priority_classes=True)):
        assert errors(manifest.obj, version) == [], manifest.ref


@pytest.mark.parametrize("version", VERSIONS)
def test_priority_classes_pass_strict_schema(version: str) -> None:
    for manifest in engine.render_priority_classes():
        assert errors(manifest.obj, version) == [], manifest.ref


def test_strict_schema_rejects_an_unknown_field() -> None:
    """The checker itself must be able to fail."""
    manifest = engine.render([str(EXAMPLES / "training.yaml")])[0]
    broken = {**manifest.obj, "spec": {**manifest.obj["spec"], "bogus": 1}}
    assert errors(broken, NEWEST)


def test_every_example_kind_of_object_is_covered() -> None:
    kinds = {m.kind for m in _rendered()}
    assert {
        "Job",
        "Deployment",
        "StatefulSet",
        "Service",
        "HorizontalPodAutoscaler",
        "Namespace",
        "ResourceQuota",
        "ConfigMap",
        "PriorityClass",
    } <= kinds
