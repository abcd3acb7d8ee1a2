"""Ids and names are checked whole: Python's `$` also matches before a trailing newline, so
every check uses fullmatch; an id with a newline names nothing."""

from __future__ import annotations

import pytest

from gpuctl.controller.workload import _DNS_LABEL
from gpuctl.server.auth import ANONYMOUS
from gpuctl.server.errors import ApiError
from gpuctl.server.idempotency import KEY
from gpuctl.server.kubeauth import home_of
from gpuctl.server.routes.jobs import locate
from gpuctl.server.webhooks.store import ID
from gpuctl.spec import jobref
from gpuctl.verbs.copy import parse_remote
from gpuctl.verbs.errors import LabelRefused
from gpuctl.verbs.node_labels import LabelChange

from .conftest import Api, training


def test_a_job_id_with_a_trailing_newline_is_no_job(api: Api) -> None:
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": training("web")})
    assert made.status_code == 201, made.text
    assert api.call("admin", "GET", "/jobs/default.web").status_code == 200
    for path in (
        "/jobs/default.web%0A",
        "/jobs/default.web%0A/logs",
        "/jobs/default.web%0A/manifests",
        "/jobs/default.web%0A/metrics",
    ):
        answer = api.call("admin", "GET", path)
        assert answer.status_code == 404, (path, answer.text)
        assert answer.json()["error"] == "JobNotFound"
    assert api.call("admin", "DELETE", "/jobs/default.web%0A").status_code == 404
    assert api.call("admin", "GET", "/jobs/default.web").status_code == 200  # not deleted
    # (the sandbox finds no object named "web\n"; a real cluster's label selectors trim the
    # newline and find the job's pods: the id itself must be refused)
    with pytest.raises(ApiError) as refused:
        locate(ANONYMOUS, api.env.cluster, "default.web\n")
    assert refused.value.code == "JobNotFound"
    assert jobref.parse_or_none("default.web\n") is None  # the one parser of job references


def test_names_in_paths_with_a_trailing_newline_are_refused(api: Api) -> None:
    for path in ("/nodes/gpu-a100-0%0A", "/pools/training%0A", "/quotas/alice%0A"):
        assert api.call("admin", "GET", path).status_code == 400, path
    assert api.call("admin", "GET", "/webhooks/wh0123456789abcdef%0A").status_code == 404


def test_a_node_label_with_a_trailing_newline_is_refused(api: Api) -> None:
    for body in (
        {"key": "g8s.host/gpu-type\n", "value": "a100"},
        {"key": "g8s.host/gpu-type", "value": "a100\n"},
    ):
        answer = api.call("admin", "POST", "/nodes/gpu-a100-0/labels", json=body)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "InvalidLabel"
    with pytest.raises(LabelRefused):
        LabelChange("g8s.host/team\n", "a").check()


@pytest.mark.parametrize("name", ["alice", "system:serviceaccount:team-a:runner"])
def test_every_other_id_check_is_whole(name: str) -> None:
    assert home_of(name) is not None and home_of(name + "\n") is None
    assert ID.fullmatch("wh0123456789abcdef") and not ID.fullmatch("wh0123456789abcdef\n")
    assert KEY.fullmatch("key-1") and not KEY.fullmatch("key-1\n")
    assert _DNS_LABEL.fullmatch("web") and not _DNS_LABEL.fullmatch("web\n")
    assert parse_remote("nb:/work/x") is not None and parse_remote("nb:/work/x\n") is None
