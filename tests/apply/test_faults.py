"""The fault matrix: a failure at any step of apply leaves the cluster holding exactly the old
objects or exactly the new ones — never neither, never both halves — and says which."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuctl.cluster.client import Cluster
from gpuctl.constants import RENDER_HASH_ANNOTATION, SPEC_ANNOTATION
from gpuctl.render.engine import Manifest
from gpuctl.verbs.apply import Apply
from gpuctl.verbs.errors import ApplyFailed
from gpuctl.verbs.plan import fingerprint

from .conftest import EXAMPLES, Env

TRAINING = (
    (EXAMPLES / "training-distributed.yaml")
    .read_text()
    .replace("pool: training-pool", "pool: default")
)
INFERENCE = (
    (EXAMPLES / "inference.yaml")
    .read_text()
    .replace("pool: inference-pool", "pool: default")
    .replace("gpu-type: A100-100G", "gpu-type: A100-80G")
    .replace("gpu-share: 2Gi", "")
)
COMPUTE = (EXAMPLES / "compute.yaml").read_text().replace("pool: test-pool", "pool: default")

OLD = TRAINING + "---\n" + INFERENCE
# Every kind of step: the headless Service and the Job change (update + replace), the
# inference Service and Deployment change in place, and the compute objects are new.
NEW = (
    TRAINING.replace("gpu: 4", "gpu: 2").replace("full fine-tuning", "full fine-tuning v2")
    + "---\n"
    + INFERENCE.replace("replicas: 2", "replicas: 3").replace(
        "Llama 3 8B inference with vLLM", "v2"
    )
    + "---\n"
    + COMPUTE
)

# (method, resource, how many matching requests pass first): each write apply makes, in
# order. The first PUTs and POSTs are the server-side dry runs.
STEPS = {
    "dry-run-update": ("PUT", "services", 0),
    "dry-run-create": ("POST", "jobs", 0),
    "update-service": ("PUT", "services", 2),
    "create-service": ("POST", "services", 1),
    "update-deployment": ("PUT", "deployments", 1),
    "create-deployment": ("POST", "deployments", 1),
    "delete-job": ("DELETE", "jobs", 0),
    # single-object reads of the Job: the plan's, the plan's again under the lock, then the wait
    "wait-for-deletion": ("GET", "jobs", 2),
    "create-job": ("POST", "jobs", 1),
}
FAULTS = ["403", "409", "422", "500", "timeout", "drop"]


def _state(cluster: Cluster, manifests: list[Manifest]) -> dict[tuple[str, str], str | None]:
    result = {}
    for manifest in manifests:
        live = cluster.find(manifest.kind, manifest.name, manifest.namespace or None)
        annotations = ((live or {}).get("metadata") or {}).get("annotations") or {}
        result[(manifest.kind, manifest.name)] = (
            None if live is None else annotations.get(RENDER_HASH_ANNOTATION, "?")
        )
    return result


def _expected(manifests: list[Manifest], every: list[Manifest]) -> dict[Any, str | None]:
    present = {(m.kind, m.name): fingerprint(m.obj) for m in manifests}
    return {(m.kind, m.name): present.get((m.kind, m.name)) for m in every}


def _inject(env: Env, step: str, fault: str) -> Any:
    method, resource, after = STEPS[step]
    verb = "get" if method == "GET" else None  # object reads, not lists or watches
    faults = env.sandbox.faults
    rule: Any
    if fault == "timeout":
        rule = faults.timeout(method, resource, seconds=4, verb=verb)
    elif fault == "drop":
        rule = faults.drop(method, resource, verb=verb)
    else:
        rule = faults.fail(method, resource, status=int(fault), verb=verb)
    rule.after = after
    return rule


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("step", list(STEPS))
def test_a_fault_leaves_old_or_new_never_a_mix(
    env: Env, tmp_path: Path, step: str, fault: str
) -> None:
    cluster = Cluster.connect(str(env.kubeconfig), read_timeout=1.5)
    old, new = env.render(OLD), env.render(NEW)
    every = {(m.kind, m.name): m for m in old + new}
    Apply(cluster).run(old)
    rule = _inject(env, step, fault)

    error = None
    try:
        Apply(cluster, timeout=20).run(new)
    except ApplyFailed as exc:
        error = str(exc)

    assert rule.hits == 1, f"the fault at {step} never fired"
    state = _state(cluster, list(every.values()))
    is_old = state == _expected(old, list(every.values()))
    is_new = state == _expected(new, list(every.values()))
    assert is_old or is_new, f"mixed state after {step}/{fault}: {state} ({error})"
    print(step, fault, "->", "old" if is_old else "new", error)
    if is_old:
        assert error is not None, "the old state is back, yet apply reported success"
        assert "nothing was changed" in error or "rolled back" in error, error
    else:
        assert error is None, f"the new state is in place, yet apply failed: {error}"


def test_a_failure_after_a_text_only_change_puts_the_old_text_back(env: Env) -> None:
    """The inference spec gains a comment (its Deployment keeps its objects, only the spec
    text kept on it is patched), then creating the changed training Job fails: the rollback
    re-creates the old Job and puts the old text back."""
    cluster = Cluster.connect(str(env.kubeconfig))
    Apply(cluster).run(env.render(OLD))
    deployment = env.render(INFERENCE)[-1]
    old_text = cluster.get("Deployment", deployment.name, "default")["metadata"]["annotations"][
        SPEC_ANNOTATION
    ]
    commented = INFERENCE.replace("replicas: 2", "replicas: 2  # enough for now")
    new = env.render(commented + "---\n" + TRAINING.replace("gpu: 4", "gpu: 2"))
    env.sandbox.faults.fail("POST", "jobs", status=500).after = 1  # the dry run passes
    env.sandbox.requests.clear()
    with pytest.raises(ApplyFailed, match="rolled back") as failed:
        Apply(cluster, timeout=20).run(new)
    patches = env.sandbox.requests.matching(verb="patch", resource="deployments")
    assert len(patches) == 2, failed.value  # the new text, then the old one back
    kept = cluster.get("Deployment", deployment.name, "default")["metadata"]["annotations"]
    assert kept[SPEC_ANNOTATION] == old_text
    assert _state(cluster, env.render(OLD)) == _expected(env.render(OLD), env.render(OLD))
