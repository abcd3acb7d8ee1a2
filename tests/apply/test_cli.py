"""create, apply, diff and delete through the installed `gpuctl` against a simulated cluster."""

from __future__ import annotations

from pathlib import Path

from .conftest import EXAMPLES, Env

TRAINING = str(EXAMPLES / "training.yaml")
TRAINING_TEXT = (EXAMPLES / "training.yaml").read_text()
QUOTA = str(EXAMPLES / "quota.yaml")
COMPUTE = (EXAMPLES / "compute.yaml").read_text().replace("pool: test-pool", "pool: default")
# The test sandbox has no training-pool: the training example is created with --allow-pending
# (it waits for the pool's nodes) where a test needs a job, not its pods.
PENDING = "--allow-pending"


def test_create_then_create_again_names_the_existing_job(env: Env) -> None:
    first = env.gpuctl("create", "-f", TRAINING, PENDING)
    assert first.returncode == 0, first.stderr
    assert first.stdout == (
        "configmap/qwen2-7b-llamafactory-sft-deepspeed created\n"
        "job.batch/qwen2-7b-llamafactory-sft created\n"
    )
    live = env.cluster.get("ConfigMap", "qwen2-7b-llamafactory-sft-deepspeed", "default")
    again = env.gpuctl("create", "-f", TRAINING, PENDING)
    assert again.returncode == 1
    assert again.stderr.splitlines()[-2:] == [
        "error: job qwen2-7b-llamafactory-sft already exists in namespace default: use apply "
        "to change it, or delete it first",
        "error: nothing was created",
    ]
    assert again.stdout == ""
    kept = env.cluster.get("ConfigMap", "qwen2-7b-llamafactory-sft-deepspeed", "default")
    assert kept["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]


def test_create_leaves_nothing_of_a_document_half_created(env: Env) -> None:
    manifests = env.render(COMPUTE)
    deployment = next(m for m in manifests if m.kind == "Deployment")
    env.cluster.create(deployment.obj)  # the Service would be created, then this collides
    done = env.gpuctl("create", "-f", "-", stdin=COMPUTE)
    assert done.returncode == 1
    assert "nothing was created" in done.stderr
    assert "svc-test-nginx" not in env.objects("Service")


def test_create_many_documents_and_namespaces_first(env: Env) -> None:
    done = env.gpuctl("create", "-f", QUOTA, "-f", TRAINING, "-f", "-", PENDING, stdin=COMPUTE)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["namespace/alice created", "namespace/bob created"]
    assert "resourcequota/team-resource-quota created" in lines
    assert "deployment.apps/test-nginx created" in lines


def test_apply_reports_each_object_and_is_idempotent(env: Env) -> None:
    first = env.gpuctl("apply", "-f", "-", stdin=COMPUTE)
    assert first.stdout.splitlines() == [
        "service/svc-test-nginx created",
        "deployment.apps/test-nginx created",
        "poddisruptionbudget.policy/test-nginx created",
    ]
    second = env.gpuctl("apply", "-f", "-", stdin=COMPUTE)
    assert second.stdout.splitlines() == [
        "service/svc-test-nginx unchanged",
        "deployment.apps/test-nginx unchanged",
        "poddisruptionbudget.policy/test-nginx unchanged",
    ]
    third = env.gpuctl("apply", "-f", "-", stdin=COMPUTE.replace("replicas: 2", "replicas: 1"))
    assert third.stdout.splitlines() == [
        "service/svc-test-nginx unchanged",
        "deployment.apps/test-nginx configured",
        "poddisruptionbudget.policy/test-nginx pruned",
    ]


def test_apply_dry_run_server_writes_nothing(env: Env) -> None:
    done = env.gpuctl("apply", "--dry-run=server", "-f", TRAINING, PENDING)
    assert done.stdout == (
        "configmap/qwen2-7b-llamafactory-sft-deepspeed created (server dry run)\n"
        "job.batch/qwen2-7b-llamafactory-sft created (server dry run)\n"
    )
    assert env.objects("Job") == {}


def test_diff_exit_codes_and_an_immutable_change(env: Env) -> None:
    missing = env.gpuctl("diff", "-f", TRAINING)
    assert missing.returncode == 1 and "+kind: Job" in missing.stdout
    env.gpuctl("apply", "-f", TRAINING, PENDING)
    same = env.gpuctl("diff", "-f", TRAINING)
    assert (same.returncode, same.stdout) == (0, ""), same.stderr
    assert same.stderr == "no changes: 2 objects are as the files say\n"
    changed = env.gpuctl("diff", "-f", "-", stdin=TRAINING_TEXT.replace("gpu: 4", "gpu: 2"))
    assert changed.returncode == 1
    assert "-            nvidia.com/gpu: '4'" in changed.stdout
    assert "+            nvidia.com/gpu: '2'" in changed.stdout


def test_delete_by_file_keeps_namespaces_unless_asked(env: Env) -> None:
    env.gpuctl("apply", "-f", QUOTA)
    done = env.gpuctl("delete", "-f", QUOTA, "--wait")
    assert done.returncode == 0, done.stderr
    assert "namespace" not in done.stdout
    assert env.cluster.find("Namespace", "alice") is not None
    assert env.cluster.find("ResourceQuota", "team-resource-quota", "alice") is None
    env.gpuctl("apply", "-f", QUOTA)
    done = env.gpuctl("delete", "-f", QUOTA, "--include-namespaces")
    assert "namespace/alice deleted" in done.stdout


def test_the_missing_pool_refusal_suggests_commands_that_work(env: Env, tmp_path: Path) -> None:
    job = COMPUTE.replace("pool: default", "pool: new-pool")
    refused = env.gpuctl("create", "-f", "-", stdin=job)
    assert refused.returncode == 1
    assert "resources.pool: pool new-pool does not exist" in refused.stderr
    assert "then gpuctl create -f POOL.yaml" in refused.stderr and "add node" not in refused.stderr
    assert "nothing was created" in refused.stderr and "--allow-pending" in refused.stderr
    assert "test-nginx" not in env.objects("Deployment")
    made = env.gpuctl("create", "-f", "-", PENDING, stdin=job)  # it waits for the pool
    assert made.returncode == 0, made.stderr
    assert "pool new-pool does not exist" in made.stderr
    pool = tmp_path / "pool.yaml"
    pool.write_text("kind: pool\nversion: v0.1\nmetadata: {name: new-pool}\nnodes: {}\n")
    assert env.gpuctl("create", "-f", str(pool)).returncode == 0  # as the message says
    again = env.gpuctl("apply", "-f", "-", stdin=job)
    assert again.returncode == 1 and "nothing was changed" in again.stderr
    assert "gpuctl add node NODE --pool new-pool" in again.stderr
    added = env.gpuctl("add", "node", "gpu-a100-0", "--pool", "new-pool")
    assert added.returncode == 0, added.stderr  # and so does this one
    fits = env.gpuctl("apply", "-f", "-", stdin=job)
    assert fits.returncode == 0, fits.stderr


def test_delete_of_what_is_already_gone_says_not_found_per_object(env: Env) -> None:
    env.gpuctl("apply", "-f", "-", stdin=COMPUTE)
    env.cluster.delete("Service", "svc-test-nginx", "default")
    done = env.gpuctl("delete", "-f", "-", stdin=COMPUTE)
    assert done.returncode == 1  # as kubectl delete -f
    assert set(done.stdout.splitlines()) == {  # two replicas: with a disruption budget
        "deployment.apps/test-nginx deleted",
        "poddisruptionbudget.policy/test-nginx deleted",
    }
    assert done.stderr == "error: service/svc-test-nginx not found\n"
    again = env.gpuctl("delete", "-f", "-", stdin=COMPUTE)
    assert again.returncode == 1 and again.stdout == ""
    assert "error: deployment.apps/test-nginx not found" in again.stderr.splitlines()
    assert "error: service/svc-test-nginx not found" in again.stderr.splitlines()
    quiet = env.gpuctl("delete", "-f", "-", "--ignore-not-found", stdin=COMPUTE)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    by_name = env.gpuctl("delete", "job", "test-nginx", "--ignore-not-found")
    assert (by_name.returncode, by_name.stdout, by_name.stderr) == (0, "", "")


def test_delete_job_by_name_takes_its_service_and_pods(env: Env) -> None:
    env.gpuctl("apply", "-f", "-", stdin=COMPUTE)
    done = env.gpuctl("delete", "job", "test-nginx", "--wait", "--force")
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.splitlines()) == {
        "deployment.apps/test-nginx deleted",
        "service/svc-test-nginx deleted",
        "poddisruptionbudget.policy/test-nginx deleted",
    }
    assert env.cluster.list("Pod", "default", label_selector="app=test-nginx") == []
    missing = env.gpuctl("delete", "job", "test-nginx")
    assert missing.returncode == 1
    assert "no job named 'test-nginx' in namespace default" in missing.stderr


def test_unreachable_cluster_is_one_line(env: Env) -> None:
    env.sandbox.sandbox.stop()
    done = env.gpuctl("apply", "-f", TRAINING)
    assert done.returncode == 1
    assert "cannot reach the cluster" in done.stderr and "connection refused" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_invalid_spec_never_touches_the_cluster(env: Env, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(TRAINING_TEXT.replace("gpu: 4", "gpu: four"))
    env.sandbox.requests.clear()
    done = env.gpuctl("apply", "-f", str(bad))
    assert done.returncode == 1 and "resources.gpu" in done.stderr
    assert len(env.sandbox.requests) == 0


def test_wait_fails_fast_on_image_pull(env: Env) -> None:
    spec = COMPUTE.replace("nginx:latest", "nginx:does-not-exist")
    done = env.gpuctl("create", "-f", "-", "--wait", "--timeout", "30s", stdin=spec)
    assert done.returncode == 1
    assert "cannot pull image nginx:does-not-exist (" in done.stderr, done.stderr


POOL_FILE = "kind: pool\nversion: v0.1\nmetadata: {name: first-pool}\nnodes: {cpu-0: {}}\n"


def test_create_removes_the_pools_and_their_labels_when_a_workload_then_fails(env: Env) -> None:
    """Pools are created and labelled first; a workload that then fails takes them back out:
    nothing was created, no node keeps the pool's label."""
    job = COMPUTE.replace("pool: default", "pool: first-pool")
    deployment = next(m for m in env.render(job) if m.kind == "Deployment")
    foreign = {**deployment.obj, "metadata": {**deployment.obj["metadata"], "labels": {}}}
    env.cluster.create(foreign)  # collides (not gpuctl's job: that is refused before any write)
    done = env.gpuctl("create", "-f", "-", stdin=POOL_FILE + "---\n" + job)
    assert done.returncode == 1
    assert "nothing was created (removed again: " in done.stderr
    assert "configmap/pool-first-pool" in done.stderr
    assert env.cluster.find("ConfigMap", "pool-first-pool", "gpuctl-system") is None
    labels = env.cluster.get("Node", "cpu-0")["metadata"].get("labels") or {}
    assert "runwhere.ai/pool" not in labels


def test_apply_keeps_the_pools_it_applied_when_a_workload_then_fails_and_says_so(
    env: Env,
) -> None:
    job = COMPUTE.replace("pool: default", "pool: first-pool")
    deployment = next(m for m in env.render(job) if m.kind == "Deployment")
    foreign = {**deployment.obj, "metadata": {**deployment.obj["metadata"], "labels": {}}}
    env.cluster.create(foreign)  # not gpuctl's: apply will not take it over
    done = env.gpuctl("apply", "-f", "-", stdin=POOL_FILE + "---\n" + job)
    assert done.returncode == 1
    assert (
        "the pools were applied first and stay so (namespace/gpuctl-system created, "
        "configmap/pool-first-pool created, node/cpu-0 labeled); then nothing was changed: "
        "deployment.apps/test-nginx already exist"
    ) in done.stderr, done.stderr
    assert env.cluster.find("ConfigMap", "pool-first-pool", "gpuctl-system") is not None
    labels = env.cluster.get("Node", "cpu-0")["metadata"].get("labels") or {}
    assert labels.get("runwhere.ai/pool") == "first-pool"
