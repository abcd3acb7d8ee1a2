"""Every rendered object passes the official Kubernetes schemas in strict mode (unknown fields
are errors) for the oldest and the newest Kubernetes version gpuctl supports."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gpuctl.render import engine
from gpuctl.spec.kinds import Options

from .conftest import EXAMPLES
from .kubernetes_schemas import NEWEST, OLDEST, errors

VERSIONS = [OLDEST, NEWEST]
# Fields gpuctl renders that are newer than OLDEST, by (kind, field path) -> the first version
# that has them. An older API server drops such a field (an unknown field is a warning, not an
# error, unless the client asks for strict field validation, which gpuctl does not), and the
# object works as it did before the field existed. They are checked against NEWEST as usual.
NEWER_FIELDS = {
    # a drain may always evict an unhealthy pod (1.26 alpha, on by default from 1.27)
    ("PodDisruptionBudget", ("spec", "unhealthyPodEvictionPolicy")): "1.26.0",
}


def _as_sent_to(obj: dict[str, Any], version: str) -> dict[str, Any]:
    """`obj` as an API server of `version` keeps it: without the fields newer than it."""
    kept = copy.deepcopy(obj)
    for (kind, path), since in NEWER_FIELDS.items():
        if kept["kind"] == kind and _older(version, since):
            parent = kept
            for key in path[:-1]:
                parent = parent.get(key) or {}
            parent.pop(path[-1], None)
    return kept


def _older(version: str, than: str) -> bool:
    return tuple(map(int, version.split("."))) < tuple(map(int, than.split(".")))


def _rendered() -> list[engine.Manifest]:
    manifests = engine.render([str(EXAMPLES)], Options(priority_classes=True))
    return manifests + engine.render_priority_classes()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_example_objects_pass_strict_schema(example: Path, version: str) -> None:
    for manifest in engine.render([str(example)], Options(priority_classes=True)):
        assert errors(_as_sent_to(manifest.obj, version), version) == [], manifest.ref


def test_every_newer_field_is_unknown_to_the_oldest_version_and_known_to_the_newest() -> None:
    """The exceptions above are no wider than they must be."""
    budget = next(m for m in _rendered() if m.kind == "PodDisruptionBudget").obj
    assert errors(budget, NEWEST) == []
    assert "unhealthyPodEvictionPolicy" in " ".join(errors(budget, OLDEST))
    assert errors(_as_sent_to(budget, OLDEST), OLDEST) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_priority_classes_pass_strict_schema(version: str) -> None:
    for manifest in engine.render_priority_classes():
        assert errors(manifest.obj, version) == [], manifest.ref


def test_strict_schema_rejects_an_unknown_field() -> None:
    """The checker itself must be able to fail."""
    manifest = engine.render([str(EXAMPLES / "training.yaml")])[-1]  # the Job
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
