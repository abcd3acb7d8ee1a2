"""Log reads through HTTP on the `cluster` fixture (the sandbox and the local real control
plane, whose kwok pods serve a few fixed lines): `lastTimestamp` is that of the last line
returned, as Kubernetes stamps it, and one user's reads and follows are capped together (429
with Retry-After in the error shape). What needs the sandbox's own log lines (pods writing
while read, endless logs) is in test_log_bounds.py."""

from __future__ import annotations

import re

from tests.support.sandbox import wait_for

from .conftest import ClusterApi, inference

STAMPED = re.compile(r"^\d{4}-\d\d-\d\dT")


def _web(api: ClusterApi, replicas: int) -> str:
    """Start the service `web` and wait until it runs: its job id."""
    made = api.call("admin", "POST", "/jobs", json={"yamlContent": inference("web", replicas)})
    assert made.status_code == 201, made.text
    web = api.job_id("web")
    wait_for(
        lambda: api.call("admin", "GET", f"/jobs/{web}").json()["status"] == "running",
        timeout=60,
        what="web running",
    )
    return web


def test_last_timestamp_is_that_of_the_last_line_and_lines_carry_none(
    cluster_api: ClusterApi,
) -> None:
    api = cluster_api
    web = _web(api, replicas=1)
    body = wait_for(
        lambda: (b := api.call("admin", "GET", f"/jobs/{web}/logs?tail=3").json())["logs"] and b,
        what="a line of the pod",
    )
    assert not any(STAMPED.match(line) for line in body["logs"])
    pod = api.call("admin", "GET", f"/jobs/{web}").json()["k8sResources"]["pods"][0]
    stamped = list(
        api.cluster.logs(pod, api.namespace, tail=3, timestamps=True)  # what Kubernetes says
    )
    stamps = {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in stamped}
    assert body["lastTimestamp"] == stamps[body["logs"][-1]]
    empty = api.call("admin", "GET", f"/jobs/{web}/logs?tail=0").json()
    assert empty == {"logs": [], "lastTimestamp": None, "truncated": False}


def test_one_users_reads_and_follows_are_capped_together(cluster_api: ClusterApi) -> None:
    api = cluster_api
    web = _web(api, replicas=1)
    streams = api.client.app.state.log_streams  # type: ignore[attr-defined]
    held = [streams.take("ops") for _ in range(streams.per_user)]  # the admin's user
    try:
        over = api.call("admin", "GET", f"/jobs/{web}/logs?tail=1")
        assert over.status_code == 429
        assert over.headers["Retry-After"] == "5"
        assert over.json() == {
            "error": "TooManyStreams",
            "message": "at most 8 log reads and streams of one user at once (ops)",
        }
    finally:
        for stream in held:
            streams.give_back(stream)
    again = api.call("admin", "GET", f"/jobs/{web}/logs?tail=1")
    assert again.status_code == 200 and streams.open == 0  # the read gave its slot back
