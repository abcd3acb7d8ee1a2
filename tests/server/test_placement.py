"""POST /jobs with resources.placement: the verb pins the job and the answer says where and
why; a job no node fits is a 422 with nothing created. (The sandbox's default nodes:
gpu-a100-0 and gpu-a100-1 with 8 GPUs, gpu-t4-0 with 4, cpu-0.)"""

from __future__ import annotations

from .conftest import Api, training


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


def test_post_jobs_refuses_a_job_no_node_fits(api: Api) -> None:
    answer = api.call("admin", "POST", "/jobs", json={"yamlContent": placed("huge", 9)})
    assert answer.status_code == 422
    body = answer.json()
    assert body["error"] == "Refused"
    assert body["message"].startswith(
        "nothing was created: job.batch/huge: binpack found no node for 1 pod of 9 GPU(s)"
    )
    assert api.env.cluster.list("Job", None) == []
