"""The events `describe job` and GET /jobs/{id} read: by field selector, only those about the
job's objects (never the namespace's every event), the newest MAX_EVENTS of them."""

from __future__ import annotations

from typing import Any

from gpuctl.inventory import jobs
from gpuctl.verbs.apply import Apply
from tests.conftest import Env
from tests.support.sandbox import wait_for

from .test_jobs import spec


def _event(name: str, about: str, second: int, uid: str = "") -> dict[str, Any]:
    involved = {
        "kind": "Pod",
        "name": about,
        "namespace": "default",
        **({"uid": uid} if uid else {}),
    }
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": involved,
        "reason": "Unhealthy",
        "message": f"Readiness probe failed: {name}",
        "type": "Warning",
        "count": 1,
        "lastTimestamp": f"2026-11-28T10:{second // 60:02d}:{second % 60:02d}Z",
    }


def test_a_jobs_events_are_read_by_field_selector_and_capped(env: Env) -> None:
    # a pool no node is in keeps the pod Pending, with events: allow_pending accepts the job
    lonely = env.render(spec("training", "lonely", pool="no-such-pool"))
    Apply(env.cluster, allow_pending=True).run(lonely)
    pod = wait_for(
        lambda: jobs.pods_of(env.cluster, jobs.find_job(env.cluster, "lonely", "default")),
        what="lonely's pod",
    )[0]["metadata"]
    for index in range(150):  # another pod's events, many: none of them is read
        env.cluster.create(_event(f"noise-{index}", "somebody-else-0", index))
    extra = jobs.MAX_EVENTS + 20
    for index in range(extra):
        env.cluster.create(_event(f"mine-{index}", pod["name"], index, pod["uid"]))
    env.sandbox.requests.clear()
    details = jobs.gather(env.cluster, "lonely", "default")
    names = [e["metadata"]["name"] for e in details.events]
    assert not any(name.startswith("noise-") for name in names)
    mine = [name for name in names if name.startswith("mine-")]
    assert len(details.events) == jobs.MAX_EVENTS
    assert mine[-1] == f"mine-{extra - 1}" and "mine-0" not in mine  # the newest are kept
    listed = [r for r in env.sandbox.requests.api_calls() if r.resource == "events"]
    assert listed and all("fieldSelector=" in r.query for r in listed), listed
    assert len(listed) <= 2 + jobs.EVENT_OWNERS + jobs.EVENT_PODS
