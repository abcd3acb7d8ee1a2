"""gpuctl apply: create what is missing, keep what is unchanged, update in place what can be,
replace the rest by delete-then-create; a Service keeps its nodePort; namespaces stay."""

from __future__ import annotations

import time

import pytest

from gpuctl.constants import RENDER_HASH_ANNOTATION, SPEC_ANNOTATION
from gpuctl.errors import GpuctlError
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.common import DryRun
from gpuctl.verbs.errors import ApplyFailed
from gpuctl.verbs.wait import Wait

from .conftest import EXAMPLES, Env

TRAINING = (EXAMPLES / "training.yaml").read_text()
INFERENCE = (EXAMPLES / "inference.yaml").read_text()
QUOTA = (EXAMPLES / "quota.yaml").read_text()
# The test sandbox has no training-pool or inference-pool: jobs that ask for them are applied
# with allow_pending (they wait for the pool's nodes); these tests are about the objects only.


def test_first_apply_creates_everything_with_a_fingerprint(env: Env) -> None:
    lines = Apply(env.cluster, allow_pending=True).run(env.render(INFERENCE)).lines()
    assert lines == [
        "service/svc-llama3-8b-inference created",
        "deployment.apps/llama3-8b-inference created",
        "poddisruptionbudget.policy/llama3-8b-inference created",  # two replicas
    ]
    deployment = env.objects("Deployment")["llama3-8b-inference"]
    assert deployment["metadata"]["annotations"][RENDER_HASH_ANNOTATION].startswith("sha256:")


def test_unchanged_apply_only_reads(env: Env) -> None:
    Apply(env.cluster, allow_pending=True).run(env.render(TRAINING + "---\n" + INFERENCE))
    env.sandbox.requests.clear()
    lines = (
        Apply(env.cluster, allow_pending=True)
        .run(env.render(TRAINING + "---\n" + INFERENCE))
        .lines()
    )
    # the DeepSpeed ConfigMap, the inference Service, Deployment and disruption budget, the
    # training Job
    assert all(line.endswith(" unchanged") for line in lines) and len(lines) == 5
    assert env.sandbox.requests.only_reads(), env.sandbox.requests.writes()


def test_a_changed_job_is_replaced_and_its_pods_are_gone_first(env: Env) -> None:
    Apply(env.cluster, allow_pending=True).run(
        env.render(TRAINING.replace("A100-100G", "A100-80G"))
    )
    old = env.objects("Job")["qwen2-7b-llamafactory-sft"]
    lines = (
        Apply(env.cluster, allow_pending=True)
        .run(env.render(TRAINING.replace("gpu: 4", "gpu: 2")))
        .lines()
    )
    assert lines == [
        "configmap/qwen2-7b-llamafactory-sft-deepspeed unchanged",
        "job.batch/qwen2-7b-llamafactory-sft replaced",
    ]
    new = env.objects("Job")["qwen2-7b-llamafactory-sft"]
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
    limits = new["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == "2"
    # foreground deletion was waited for: the old job's pods were gone before the new job
    for pod in env.cluster.list(
        "Pod", "default", label_selector="job-name=qwen2-7b-llamafactory-sft"
    ):
        owner = pod["metadata"]["ownerReferences"][0]["uid"]
        assert owner == new["metadata"]["uid"]


def test_a_spec_edited_only_in_its_text_keeps_the_job_and_stores_the_new_text(env: Env) -> None:
    """A comment added: the objects render the same, so the Job is neither replaced nor
    restarted; only the spec text kept on it is patched (what GET /jobs/{id} answers)."""
    name = "qwen2-7b-llamafactory-sft"
    Apply(env.cluster, allow_pending=True).run(env.render(TRAINING))
    old = env.objects("Job")[name]
    edited = "# lr from Tuesday's sweep\n" + TRAINING
    shown = env.gpuctl("diff", "-f", "-", stdin=edited)
    assert shown.returncode == 1
    assert shown.stdout == (
        f"# default/job.batch/{name}: will be configured (only the spec text kept with it)\n"
    )
    env.sandbox.requests.clear()
    lines = Apply(env.cluster, allow_pending=True).run(env.render(edited)).lines()
    assert lines == [f"configmap/{name}-deepspeed unchanged", f"job.batch/{name} configured"]
    job_writes = [r for r in env.sandbox.requests.writes() if r.resource == "jobs"]
    assert [(r.verb, r.name) for r in job_writes] == [("patch", name)]
    new = env.objects("Job")[name]
    assert new["metadata"]["uid"] == old["metadata"]["uid"]
    assert new["metadata"]["annotations"][SPEC_ANNOTATION] == edited
    env.sandbox.requests.clear()
    again = Apply(env.cluster, allow_pending=True).run(env.render(edited)).lines()
    assert all(line.endswith(" unchanged") for line in again)
    assert env.sandbox.requests.only_reads()


def test_a_changed_deployment_is_updated_in_place_and_keeps_its_node_port(env: Env) -> None:
    Apply(env.cluster, allow_pending=True).run(env.render(INFERENCE))
    before = env.objects("Deployment")["llama3-8b-inference"]
    port = env.objects("Service")["svc-llama3-8b-inference"]["spec"]["ports"][0]["nodePort"]
    changed = INFERENCE.replace("replicas: 2", "replicas: 3").replace("port: 8000", "port: 8080")
    lines = Apply(env.cluster, allow_pending=True).run(env.render(changed)).lines()
    assert lines == [
        "service/svc-llama3-8b-inference configured",
        "deployment.apps/llama3-8b-inference configured",
        "poddisruptionbudget.policy/llama3-8b-inference unchanged",
    ]
    after = env.objects("Deployment")["llama3-8b-inference"]
    assert after["metadata"]["uid"] == before["metadata"]["uid"]
    assert after["spec"]["replicas"] == 3
    service = env.objects("Service")["svc-llama3-8b-inference"]
    assert service["spec"]["ports"][0]["nodePort"] == port
    assert service["spec"]["ports"][0]["port"] == 8080


def test_namespaces_are_never_deleted_or_replaced(env: Env) -> None:
    Apply(env.cluster).run(env.render(QUOTA))
    uid = env.cluster.get("Namespace", "alice")["metadata"]["uid"]
    lines = Apply(env.cluster).run(env.render(QUOTA.replace("gpu: 4", "gpu: 2"))).lines()
    assert "namespace/alice unchanged" in lines
    assert "resourcequota/team-resource-quota configured" in lines
    assert env.cluster.get("Namespace", "alice")["metadata"]["uid"] == uid


def test_objects_not_made_by_gpuctl_are_not_taken_over(env: Env) -> None:
    job = env.render(TRAINING)[-1].obj  # the Job (after its DeepSpeed ConfigMap)
    foreign = {**job, "metadata": {**job["metadata"], "labels": {"team": "x"}}}
    env.cluster.create(foreign)
    with pytest.raises(ApplyFailed, match="not managed by gpuctl"):
        Apply(env.cluster, allow_pending=True).run(env.render(TRAINING))
    assert env.cluster.get("Job", "qwen2-7b-llamafactory-sft", "default")["metadata"]["labels"] == {
        "team": "x"
    }


@pytest.mark.parametrize("mode", [DryRun.CLIENT, DryRun.SERVER])
def test_dry_runs_write_nothing(env: Env, mode: DryRun) -> None:
    Apply(env.cluster, allow_pending=True).run(env.render(TRAINING))
    env.sandbox.requests.clear()
    lines = (
        Apply(env.cluster, dry_run=mode, allow_pending=True)
        .run(env.render(TRAINING.replace("gpu: 4", "gpu: 2") + "---\n" + INFERENCE))
        .lines()
    )
    assert f"job.batch/qwen2-7b-llamafactory-sft replaced{mode.suffix}" in lines
    assert "service/svc-llama3-8b-inference created" + mode.suffix in lines
    writes = env.sandbox.requests.writes()
    assert all("dryRun=All" in request.query for request in writes), writes
    assert (mode is DryRun.CLIENT) == (not writes)
    assert "llama3-8b-inference" not in env.objects("Deployment")


def test_server_refusal_before_any_delete_changes_nothing(env: Env) -> None:
    Apply(env.cluster, allow_pending=True).run(env.render(TRAINING))
    old = env.objects("Job")["qwen2-7b-llamafactory-sft"]
    env.sandbox.requests.clear()
    env.sandbox.faults.fail("POST", "jobs", status=422, message="spec.template: Invalid value")
    with pytest.raises(ApplyFailed, match="nothing was changed"):
        Apply(env.cluster, allow_pending=True).run(env.render(TRAINING.replace("gpu: 4", "gpu: 2")))
    assert (
        env.objects("Job")["qwen2-7b-llamafactory-sft"]["metadata"]["uid"] == old["metadata"]["uid"]
    )
    assert not [r for r in env.sandbox.requests.writes() if "dryRun" not in r.query]


def test_wait_running_succeeds_and_fails_fast_on_a_bad_image(env: Env) -> None:
    good = env.render(
        INFERENCE.replace("pool: inference-pool", "pool: default")
        .replace("gpu-type: A100-100G", "gpu-type: A100-80G")
        .replace("gpu-share: 2Gi", "")
    )
    Apply(env.cluster).run(good)
    Wait(env.cluster, timeout=20, settle=0).run(good)
    bad = env.render(
        (EXAMPLES / "compute.yaml")
        .read_text()
        .replace("nginx:latest", "nginx:does-not-exist")
        .replace("pool: test-pool", "pool: default")
    )
    Apply(env.cluster).run(bad)
    started = time.monotonic()
    env.sandbox.requests.clear()
    with pytest.raises(GpuctlError, match=r"ErrImagePull|ImagePullBackOff"):
        Wait(env.cluster, timeout=20, settle=0).run(bad)
    assert time.monotonic() - started < 10
    _events_read_by_object(env)


def _events_read_by_object(env: Env) -> None:
    """The wait read events only about the objects it waits for (by field selector), never
    the namespace's every event."""
    lists = [r for r in env.sandbox.requests.api_calls() if r.resource == "events"]
    assert lists and all("involvedObject." in r.query for r in lists), lists


def test_wait_running_quotes_the_scheduler_when_nothing_fits(env: Env) -> None:
    too_big = env.render(
        TRAINING.replace("gpu: 4", "gpu: 64").replace("pool: training-pool", "pool: default")
    )
    Apply(env.cluster, allow_pending=True).run(too_big)  # no node holds 64 GPUs: it waits
    with pytest.raises(GpuctlError, match="unschedulable: 0/4 nodes are available"):
        Wait(env.cluster, timeout=20, settle=0, unschedulable_grace=0.5).run(too_big)


STORAGE_COMMENT = "# directories of the node, mounted at the same path"  # examples/compute.yaml's


def test_wait_running_names_the_quota_that_refuses_a_deployments_pods(env: Env) -> None:
    quota = QUOTA.replace("cpu: 10", "cpu: 1", 1)  # alice: 1 CPU
    Apply(env.cluster).run(env.render(quota))
    web = (
        (EXAMPLES / "compute.yaml")
        .read_text()
        .replace("pool: test-pool", "pool: default")
        .replace("job:\n", "job:\n  namespace: alice\n")
        .split(STORAGE_COMMENT)[0]  # no host paths: the namespace enforces Pod Security baseline
    )  # two replicas of 2 CPUs each
    manifests = env.render(web)
    Apply(env.cluster).run(manifests)
    env.sandbox.requests.clear()
    with pytest.raises(
        GpuctlError, match=r"cannot create its pods: .*exceeded quota: team-resource-quota"
    ):
        Wait(env.cluster, timeout=20, settle=0).run(manifests)
    _events_read_by_object(env)
