"""`gpuctl controller run` as installed, on the sandbox and on the real control plane (the
`cluster` fixture): each strategy's node, over-capacity retries on the backoff schedule then
Failed, deletion cleans up, a restart duplicates nothing, of two replicas only the Lease
holder acts, and a node that goes NotReady under a placed, not yet running workload gets the
workload placed again."""

from __future__ import annotations

import json
import re
import signal
import time

import yaml

from gpuctl.controller import resource
from gpuctl.controller.workload import label_value
from gpuctl.placement.affinity import pinned_node
from tests.controller.scene import CHEAP, MANUAL_CONDITIONS, Scene
from tests.support.sandbox import wait_for


def placement_nodes(scene: Scene) -> tuple[str, str, str]:
    """big: 8 GPUs, mid: 6 (cheap), small: 4 (cheap), and a node without GPUs."""
    big = scene.add_node("big", 8)
    mid = scene.add_node("mid", 6, labels=CHEAP)
    small = scene.add_node("small", 4, labels=CHEAP)
    scene.add_node("cpu", 0)
    return big, mid, small


def test_each_strategy_places_on_its_node_and_the_scheduler_agrees(scene: Scene) -> None:
    big, mid, small = placement_nodes(scene)
    expected = {"ll": big, "bp": small, "co": mid}
    with scene.controller() as running:
        for name, strategy in (("ll", "leastLoaded"), ("bp", "binpack"), ("co", "costOptimized")):
            scene.create(name, 2, strategy)
            status = scene.wait_phase(name, "Scheduled")
            assert (status["assignedNode"], status["jobName"]) == (expected[name], name)
            job = scene.client.get("Job", name, scene.namespace)
            assert pinned_node(job) == expected[name]
            assert "nodeName" not in job["spec"]["template"]["spec"]
            assert scene.pod_node(name) == expected[name]  # the real scheduler's own choice
        scene.create("rnd", 1, "random")
        assert scene.wait_phase("rnd", "Scheduled")["assignedNode"] in {big, mid, small}
        for strategy in ("leastLoaded", "binpack", "costOptimized", "random"):
            series = f'warp_gpuworkload_scheduled_total{{strategy="{strategy}"}}'
            assert running.metric(series) == 1
    assert scene.jobs() == ["bp", "co", "ll", "rnd"]


def test_over_capacity_retries_on_the_backoff_schedule_then_fails(scene: Scene) -> None:
    placement_nodes(scene)
    with scene.controller() as running:
        started = time.monotonic()
        scene.create("huge", 9, retryPolicy={"maxRetries": 2, "backoffSeconds": 1})
        pending = scene.wait_phase("huge", "Pending")
        assert pending["reason"] == "NoSuitableNode"
        assert "no Ready, schedulable node has 9 free GPU(s)" in pending["message"]
        status = scene.wait_phase("huge", "Failed", timeout=20)
        elapsed = time.monotonic() - started
        assert running.metric("warp_gpuworkload_retries_total") == 2
        assert running.metric('warp_gpuworkload_failed_total{reason="NoSuitableNode"}') == 3
    # retry 1 after 1 s, retry 2 after 2 s (each plus at most 10 %), then Failed
    assert 3.0 <= elapsed < 3.3 + 5, elapsed
    assert (status["reason"], status["retries"]) == ("RetriesExhausted", 2)
    assert status["message"].endswith("gave up after 2 retries")
    assert scene.jobs() == []


def test_deleting_a_workload_deletes_its_job_and_pods(scene: Scene) -> None:
    placement_nodes(scene)
    with scene.controller():
        scene.create("w", 2)
        scene.wait_phase("w", "Scheduled")
        assert scene.jobs() == ["w"]
        scene.cluster.kubectl("delete", "gpuworkload", "w")
        wait_for(lambda: scene.jobs() == [], timeout=30, what="the Job's deletion")
        wait_for(
            lambda: (
                not scene.client.list(
                    "Pod", scene.namespace, label_selector="gpu.warp.dev/workload=w"
                )
            ),
            timeout=30,
            what="the pods' deletion",
        )


def test_a_restarted_controller_creates_no_duplicate_job(scene: Scene) -> None:
    placement_nodes(scene)
    with scene.controller() as running:
        scene.create("first", 2)
        before = scene.wait_phase("first", "Scheduled")
        running.process.kill()  # no clean shutdown: the Lease is still held
        running.process.wait()
    # the same pod comes back, as a new candidate: it leads once the killed one's Lease expired
    with scene.controller() as running:
        scene.create("second", 2)
        scene.wait_phase("second", "Scheduled")
        assert scene.jobs() == ["first", "second"]
        assert scene.status("first") == before
        assert running.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') == 1


def test_of_two_replicas_only_the_leader_acts_and_a_standby_takes_over(scene: Scene) -> None:
    placement_nodes(scene)
    series = 'warp_gpuworkload_scheduled_total{strategy="leastLoaded"}'
    with scene.controller("replica-a") as first, scene.controller("replica-b") as second:
        lease = scene.client.get("Lease", resource.NAME, scene.namespace)
        assert lease["spec"]["holderIdentity"].startswith("replica-a_")
        assert first.metric("warp_gpuworkload_leader") == 1
        assert second.metric("warp_gpuworkload_leader") == 0
        scene.create("one", 1)
        scene.wait_phase("one", "Scheduled")
        assert first.metric(series) == 1
        assert second.metric(series) is None

        first.process.send_signal(signal.SIGTERM)  # a clean stop gives the Lease up
        assert first.process.wait(timeout=20) == 0
        wait_for(
            lambda: str(
                scene.client.get("Lease", resource.NAME, scene.namespace)["spec"].get(
                    "holderIdentity"
                )
            ).startswith("replica-b_"),
            timeout=15,
            what="replica-b to lead",
        )
        scene.create("two", 1)
        scene.wait_phase("two", "Scheduled")
        assert second.metric(series) == 1
        lease = scene.client.get("Lease", resource.NAME, scene.namespace)
        assert lease["spec"]["leaseTransitions"] == 1
    assert scene.jobs() == ["one", "two"]


def test_a_node_gone_notready_under_a_waiting_job_gets_the_workload_placed_again(
    scene: Scene,
) -> None:
    """`first` has the most GPUs but too little CPU for the Job's pod, which waits unbound;
    the node then goes NotReady: the Job is deleted and the workload lands on `second`."""
    first = scene.add_node("first", 8, cpu="1", labels=MANUAL_CONDITIONS)
    second = scene.add_node("second", 4)
    with scene.controller() as running:
        scene.create("w", 2, cpu="4")
        placed = scene.wait_phase("w", "Scheduled")
        assert placed["assignedNode"] == first
        old_uid = scene.client.get("Job", "w", scene.namespace)["metadata"]["uid"]
        time.sleep(1.5)  # a few node checks: nothing changes while the node is Ready
        assert scene.status("w") == placed
        scene.make_not_ready(first)
        wait_for(
            lambda: scene.status("w").get("assignedNode") == second,
            timeout=30,
            what=f"w placed again on {second} (status now {scene.status('w')})",
        )
        status = scene.wait_phase("w", "Scheduled")
        assert status["replacements"] == 1
        job = scene.client.get("Job", "w", scene.namespace)
        assert job["metadata"]["uid"] != old_uid
        assert pinned_node(job) == second
        assert scene.pod_node("w") == second
        assert running.metric("warp_gpuworkload_replaced_total") == 1
        assert running.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') == 2


def test_a_name_over_63_characters_is_placed_and_its_placement_logged(scene: Scene) -> None:
    """The Job's workload label holds a hash-shortened name the API server takes; the full
    name is in an annotation; the placement is in the controller's log at its default level."""
    big, _, _ = placement_nodes(scene)
    name = "w-" + "long-model-name-" * 4 + "end"  # 69 characters
    with scene.controller() as running:
        scene.create(name, 2)
        status = scene.wait_phase(name, "Scheduled")
        job = scene.client.get("Job", status["jobName"], scene.namespace)
        assert job["metadata"]["labels"]["gpu.warp.dev/workload"] == label_value(name)
        assert job["metadata"]["annotations"]["gpu.warp.dev/workload-name"] == name
        assert scene.pod_node(name) == big
        assert running.metric('warp_gpuworkload_failed_total{reason="APIError"}') is None
        wait_for(
            lambda: f"{scene.namespace}/{name} Scheduled (Scheduled): Job " in running.output(),
            timeout=5,
            what=f"the placement in the log:\n{running.output()}",
        )


def test_fragmented_gpus_fall_to_zero_when_the_pending_workload_is_deleted(scene: Scene) -> None:
    placement_nodes(scene)
    with scene.controller() as running:
        scene.create("huge", 9, retryPolicy={"maxRetries": 5, "backoffSeconds": 300})
        scene.wait_phase("huge", "Pending")
        wait_for(
            lambda: running.metric("warp_gpuworkload_fragmented_gpus") == 8 + 6 + 4,
            timeout=10,
            what="18 fragmented GPUs",
        )
        scene.cluster.kubectl("delete", "gpuworkload", "huge")
        wait_for(
            lambda: running.metric("warp_gpuworkload_fragmented_gpus") == 0,
            timeout=10,
            what="0 fragmented GPUs once no workload waits",
        )


def test_a_workload_applied_with_a_status_block_is_placed_once_and_replaced_never(
    scene: Scene,
) -> None:
    """The API server drops `.status` from a create (the CRD has a status subresource): a
    status block in the applied file (the gpu-orchestrator document's example has one) is
    not the controller's to act on."""
    big, _, _ = placement_nodes(scene)
    document = {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": "with-status", "namespace": scene.namespace},
        "spec": {"modelName": "llama2", "gpuCount": 2},
        "status": {"phase": "Scheduled", "assignedNode": "node-gone", "jobName": "with-status"},
    }
    path = scene.cluster.workdir / "with-status.yaml"
    path.write_text(yaml.safe_dump(document))
    with scene.controller() as running:
        scene.cluster.kubectl("apply", "-f", str(path))
        status = scene.wait_phase("with-status", "Scheduled")
        assert (status["assignedNode"], status.get("replacements")) == (big, None)
        assert scene.pod_node("with-status") == big
        assert running.metric("warp_gpuworkload_replaced_total") == 0
        assert running.metric('warp_gpuworkload_scheduled_total{strategy="leastLoaded"}') == 1


def test_json_logs_are_one_object_a_line(scene: Scene) -> None:
    placement_nodes(scene)
    with scene.controller(extra=("--log-format", "json")) as running:
        scene.create("logged", 1)
        scene.wait_phase("logged", "Scheduled")
    lines = [json.loads(line) for line in running.output().splitlines()]
    assert lines and all({"ts", "level", "logger", "msg"} <= line.keys() for line in lines)
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", line["ts"]) for line in lines
    )
    leading = [line for line in lines if line["msg"].startswith("became the leader")]
    assert leading and leading[0]["level"] == "info"
    assert leading[0]["logger"] == "gpuctl.controller.leader"
