"""ETags on GET /jobs and GET /jobs/{jobId}: a polling client gets 304 with no body while
what it sees is unchanged, and never for a body it did not see."""

from __future__ import annotations

import pytest

from gpuctl.server.etags import matches, tag_of
from tests.support.sandbox import wait_for

from .conftest import QUOTA, Api, inference


@pytest.fixture(autouse=True)
def _namespaces(api: Api) -> None:
    """alice's and bob's namespaces, made with their quota."""
    assert api.call("admin", "POST", "/quotas", json={"yamlContent": QUOTA}).status_code == 201


def _create(api: Api, who: str, name: str) -> None:
    """A service of one pod (it keeps running), once it runs."""
    text = inference(name, replicas=1)
    answer = api.call(who, "POST", "/jobs", json={"yamlContent": text})
    assert answer.status_code == 201, answer.text
    path = f"/jobs/{who}.{name}"
    wait_for(lambda: api.call(who, "GET", path).json()["ready"] == "1/1", timeout=60, what=path)


def _steady(api: Api, who: str, path: str) -> str:
    """The tag of `path` once two reads in a row give it (the sandbox has settled)."""

    def same_twice() -> str:
        first = str(api.call(who, "GET", path).headers["etag"])
        return first if api.call(who, "GET", path).headers["etag"] == first else ""

    return wait_for(same_twice, timeout=60, what=f"{path} to settle")


def test_the_list_answers_304_with_no_body_for_its_own_tag(api: Api) -> None:
    _create(api, "alice", "etag-a")
    tag = _steady(api, "alice", "/jobs")
    assert tag.startswith('W/"')
    again = api.call("alice", "GET", "/jobs", headers={"If-None-Match": tag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == tag


def test_another_tenants_tag_never_answers_304_for_a_different_body(api: Api) -> None:
    _create(api, "alice", "etag-alice")
    _create(api, "bob", "etag-bob")
    alices = api.call("alice", "GET", "/jobs")
    bobs = api.call("bob", "GET", "/jobs", headers={"If-None-Match": alices.headers["etag"]})
    assert bobs.status_code == 200
    assert [item["jobId"] for item in bobs.json()["items"]] == ["bob.etag-bob"]
    assert bobs.headers["etag"] != alices.headers["etag"]
    one = api.call("alice", "GET", "/jobs/alice.etag-alice")
    other = api.call(
        "bob", "GET", "/jobs/alice.etag-alice", headers={"If-None-Match": one.headers["etag"]}
    )
    assert other.status_code == 404


def test_a_new_job_changes_the_lists_tag(api: Api) -> None:
    _create(api, "alice", "etag-one")
    before = _steady(api, "alice", "/jobs")
    _create(api, "alice", "etag-two")
    after = api.call("alice", "GET", "/jobs", headers={"If-None-Match": before})
    assert after.status_code == 200
    assert after.headers["etag"] != before
    assert {item["name"] for item in after.json()["items"]} == {"etag-one", "etag-two"}


def test_a_changed_job_changes_its_tag(api: Api) -> None:
    _create(api, "alice", "etag-job")
    tag = _steady(api, "alice", "/jobs/alice.etag-job")
    assert (
        api.call("alice", "GET", "/jobs/alice.etag-job", headers={"If-None-Match": tag}).status_code
        == 304
    )
    api.env.cluster.patch("Deployment", "etag-job", "alice", {"spec": {"replicas": 2}})
    changed = api.call("alice", "GET", "/jobs/alice.etag-job", headers={"If-None-Match": tag})
    assert changed.status_code == 200, changed.json()
    assert changed.headers["etag"] != tag


@pytest.mark.parametrize(
    "header", ["garbage", 'W/"', '"unterminated', "W/abc", '"a" junk', '"0000", W/"1111"', ""]
)
def test_a_garbage_or_foreign_if_none_match_is_a_200(api: Api, header: str) -> None:
    _create(api, "alice", "etag-g")
    answer = api.call("alice", "GET", "/jobs", headers={"If-None-Match": header})
    assert answer.status_code == 200
    assert answer.json()["total"] == 1


def test_if_none_match_takes_a_list_and_weak_or_strong_forms(api: Api) -> None:
    tag = tag_of(b"{}")
    strong = tag.removeprefix("W/")
    assert matches(tag, tag)
    assert matches(strong, tag)
    assert matches(f'"other", {tag}', tag)
    assert matches("*", tag)
    assert not matches(None, tag)
    assert not matches(f"{tag} trailing", tag)
    assert tag_of(b'{"a":1}') != tag
