"""Job references: `NAME`, `NAMESPACE/NAME` and `NAMESPACE.NAME`, and -n beside them."""

from __future__ import annotations

import pytest

from gpuctl.spec import jobref
from gpuctl.spec.jobref import BadJobReference, JobKey, NamespaceConflict


@pytest.mark.parametrize(
    ("text", "namespace", "name"),
    [
        ("web", None, "web"),
        ("team-a/web", "team-a", "web"),
        ("team-a.web", "team-a", "web"),
        ("a.b", "a", "b"),  # names hold no dot: a dot always ends the namespace
        ("web-7d9f8-x2k4q", None, "web-7d9f8-x2k4q"),  # a pod's name is a reference too
        ("n" * 63 + "." + "j" * 63, "n" * 63, "j" * 63),
    ],
)
def test_the_three_forms(text: str, namespace: str | None, name: str) -> None:
    assert jobref.parse(text) == jobref.JobRef(namespace, name, text)


@pytest.mark.parametrize(
    "text",
    ["", "a/b/c", "a.b.c", "a/b.c", "Web", "team-a/", ".web", "/web", "-web", "w" * 64, "a:b"],
)
def test_anything_else_is_no_reference(text: str) -> None:
    with pytest.raises(BadJobReference, match="is not a job reference: give NAME, NAMESPACE/"):
        jobref.parse(text)
    assert jobref.parse_or_none(text) is None


def test_the_namespace_is_the_references_else_ns_else_the_default() -> None:
    assert jobref.locate("web", None, "default") == JobKey("default", "web")
    assert jobref.locate("web", "team-a", "default") == JobKey("team-a", "web")
    assert jobref.locate("team-a/web", None, "default") == JobKey("team-a", "web")
    assert jobref.locate("team-a.web", "team-a", "default") == JobKey("team-a", "web")
    assert jobref.locate("team-a.web", None, "default").id == "team-a.web"


def test_a_reference_and_n_that_disagree_are_an_error() -> None:
    with pytest.raises(NamespaceConflict) as raised:
        jobref.locate("team-a/web", "team-b", "default")
    assert str(raised.value) == (
        "job 'team-a/web' is in namespace team-a, but -n says team-b: give the namespace once"
    )
    assert raised.value.exit_code == 2


def test_several_are_located_in_order_once_each_and_checked_before_any() -> None:
    keys = jobref.locate_all(["b", "default/a", "default.b", "c"], None, "default")
    assert keys == [JobKey("default", "b"), JobKey("default", "a"), JobKey("default", "c")]
    with pytest.raises(BadJobReference):
        jobref.locate_all(["a", "B"], None, "default")
