"""What `--wait` says when a pod will not come up, on hand-made pods in the in-process fake
cluster, whatever moment of the kubelet's cycle the wait happens to look at."""

from __future__ import annotations

from typing import Any

import pytest

from gpuctl.cluster.errors import Forbidden
from gpuctl.cluster.fake import FakeCluster
from gpuctl.render import engine
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from gpuctl.verbs.errors import WaitTimeout
from gpuctl.verbs.wait import Wait, WaitFailed

IMAGE = "registry.example/missing-trainer:1"
SPEC = f"""kind: training
version: v0.1
job: {{name: pull}}
environment: {{image: "{IMAGE}"}}
resources: {{cpu: 1, memory: 1Gi}}
"""
RUNTIME_SAYS = f'failed to resolve reference "{IMAGE}": not found'


def job_manifests() -> list[engine.Manifest]:
    return engine.render_documents(load_text("spec.yaml", SPEC), Options())


def pulling_pod(reason: str, message: str) -> dict[str, Any]:
    waiting = {"reason": reason, "message": message}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pull-abcde", "namespace": "default", "labels": {"job-name": "pull"}},
        "status": {
            "phase": "Pending",
            "containerStatuses": [
                {"name": "pull", "image": IMAGE, "ready": False, "state": {"waiting": waiting}}
            ],
        },
    }


def failed_pull_event() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "type": "Warning",
        "reason": "Failed",
        "metadata": {"name": "pull-abcde.1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "pull-abcde"},
        "message": f'Failed to pull image "{IMAGE}": {RUNTIME_SAYS}',
        "lastTimestamp": "2026-11-25T00:00:00Z",
    }


class EventsForbidden(FakeCluster):
    """A cluster where the caller may not list events (a namespace-scoped role without them)."""

    def list(self, kind: str, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if kind == "Event":
            raise Forbidden("events is forbidden", status=403)
        return super().list(kind, *args, **kwargs)


def test_a_wait_that_first_sees_the_back_off_still_gives_the_runtimes_words() -> None:
    manifests = job_manifests()
    cluster = FakeCluster()
    cluster.add(*(m.obj for m in manifests))
    back_off = f'Back-off pulling image "{IMAGE}"'
    cluster.add(pulling_pod("ImagePullBackOff", back_off), failed_pull_event())
    with pytest.raises(WaitFailed) as failed:
        Wait(cluster, timeout=5, settle=0, poll=0.01).run(manifests)
    assert str(failed.value) == (
        f"job.batch/pull: container `pull` of pod pull-abcde cannot pull image {IMAGE} "
        f"(ImagePullBackOff): {RUNTIME_SAYS}"
    )


def test_who_may_not_list_events_waits_on_a_job_without_pods_until_the_timeout() -> None:
    manifests = job_manifests()
    cluster = EventsForbidden()
    cluster.add(*(m.obj for m in manifests))
    with pytest.raises(WaitTimeout, match=r"not running after 0s: job.batch/pull"):
        Wait(cluster, timeout=0.2, settle=0, poll=0.01).run(manifests)


def test_who_may_not_list_events_is_told_what_the_pod_status_says() -> None:
    manifests = job_manifests()
    cluster = EventsForbidden()
    cluster.add(*(m.obj for m in manifests), pulling_pod("ErrImagePull", RUNTIME_SAYS))
    with pytest.raises(WaitFailed, match=r"\(ErrImagePull\): failed to resolve reference"):
        Wait(cluster, timeout=5, settle=0, poll=0.01).run(manifests)
