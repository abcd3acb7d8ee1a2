"""POST /jobs with resources.placement: the verb pins the job and the answer says where and
why; a job no node fits is a 422 with nothing created. (The sandbox's default nodes:
gpu-a100-0 and gpu-a100-1 with 8 GPUs, gpu-t4-0 with 4, cpu-0.)

On the sandbox only: placement weighs every node in no pool, which on the shared control plane
other tests add and fill. Placement on the real control plane, in pools of nodes of the test's
own: tests/apply/test_placement_scenarios.py."""

from __future__ import annotations

from .conftest import Api, inference, training


def placed(name: str, gpu: int) -> str:
    return training(name, gpu).replace("  gpu: ", "  placement: binpack\n  gpu: ")


def test_post_jobs_pins_the_job_and_says_where(api: Api) -> None:
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": placed("packed", 2)})
    assert answer.status_code == 201, answer.text
    assert answer.json()["message"] == (
        "job.batch/packed created on node gpu-t4-0 (binpack: 4 of 4 GPUs free, 2 left after "
        "placing)"
    )
    job = api.env.cluster.get("Job", "packed", "default")
    terms = job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"][-1]["values"] == ["gpu-t4-0"]


def test_post_jobs_refuses_a_job_no_node_could_ever_hold(api: Api) -> None:
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": placed("huge", 9)})
    assert answer.status_code == 422
    body = answer.json()
    assert (body["error"], body["field"]) == ("Unschedulable", "resources.gpu")
    assert body["message"].endswith(
        "(allowPending=true accepts it anyway, to wait for nodes that join)"
    )
    assert body["problems"] == [
        "yamlContent:10:8: resources.gpu: a pod asks for 9 nvidia.com/gpu, more than any node in "
        "default-pool (the nodes in no pool) has: the largest, gpu-a100-0, has 8 (split it "
        "over nodes: node_count: 2 with gpu: 8)"
    ]
    assert api.env.cluster.list("Job", None) == []
    batch = api.call(
        "admin", "POST", "/jobs/batch", json={"yamlContents": [placed("huge", 9), placed("ok", 1)]}
    )
    assert batch.status_code == 207
    (failed,) = batch.json()["failed"]
    assert (failed["index"], failed["error"], failed["field"]) == (
        0,
        "Unschedulable",
        "resources.gpu",
    )


def test_allow_pending_accepts_what_no_node_could_hold_with_a_warning(api: Api) -> None:
    spec = training("typed", 1).replace("  gpu: 1", "  gpu: 1\n  gpu-type: H900")
    refused = api.call("admin", "POST", "/jobs", json={"yamlContent": spec})
    assert (refused.status_code, refused.json()["field"]) == (422, "resources.gpu-type")
    answer = api.call("admin", "POST", "/jobs?allowPending=true", json={"yamlContent": spec})
    assert answer.status_code == 201, answer.text
    (warning,) = answer.json()["warnings"]
    assert "no node has GPU type 'H900'" in warning and "accepted as pending was allowed" in warning
    assert api.env.cluster.find("Job", "typed", "default") is not None


def test_post_jobs_refuses_a_job_the_busy_cluster_cannot_place_now(api: Api) -> None:
    for name in ("a", "b"):  # services: their pods keep both 8-GPU nodes busy
        service = inference(name, replicas=1, gpu=8).replace(
            "  gpu:", "  placement: binpack\n  gpu:"
        )
        assert api.call("admin", "POST", "/jobs", json={"yamlContent": service}).status_code == 201
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": placed("c", 5)})
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["error"] == "Refused"  # possible on the empty cluster: placement says why not now
    assert body["message"].startswith(
        "nothing was created: job.batch/c: binpack found no node for 1 pod of 5 GPU(s)"
    )
    assert api.env.cluster.find("Job", "c", "default") is None
