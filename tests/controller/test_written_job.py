"""The Job the controller makes is written as `gpuctl create` writes one: with its fingerprint
and its training spec's text, so the REST API shows the spec and `gpuctl diff` and `apply` of
that spec see the Job as gpuctl's own and unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from gpuctl import constants as c
from gpuctl.controller import resource
from gpuctl.controller.reconcile import Reconciler
from gpuctl.controller.workload import WORKLOAD_LABEL, Workload, label_value, render_job
from gpuctl.placement.affinity import pinned_node
from gpuctl.server.app import create_app
from gpuctl.spec.document import Document
from gpuctl.verbs.workset import Admit, OptionsOf, Workset
from tests.conftest import Env
from tests.controller.conftest import workload


def test_a_controller_made_job_shows_its_spec_and_is_gpuctls_own(
    crd_env: Env, tmp_path: Path
) -> None:
    made = crd_env.cluster.create(workload("w", 2, env=[{"name": "STEPS", "value": "10"}]))
    assert Reconciler(crd_env.cluster).reconcile(made).result == "scheduled"
    job = crd_env.cluster.get("Job", "w", "default")
    assert c.RENDER_HASH_ANNOTATION in job["metadata"]["annotations"]

    app = create_app(crd_env.cluster, None)
    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/jobs/default.w")
    assert answer.status_code == 200, answer.text
    text = answer.json()["yamlContent"]
    assert yaml.safe_load(text) == Workload.of(made).training_spec()

    spec = tmp_path / "w.yaml"
    spec.write_text(text)
    diff = crd_env.gpuctl("diff", "-f", str(spec))
    assert (diff.returncode, diff.stdout) == (0, ""), diff.stderr
    assert diff.stderr == "no changes: 1 object is as the files say\n"
    applied = crd_env.gpuctl("apply", "-f", str(spec))
    assert applied.returncode == 0, applied.stderr
    assert "job.batch/w unchanged" in applied.stdout
    after = crd_env.cluster.get("Job", "w", "default")
    assert after["metadata"]["uid"] == job["metadata"]["uid"]
    owner = after["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["uid"]) == (resource.KIND, made["metadata"]["uid"])


def test_the_job_is_rendered_from_a_workset_built_as_every_front_end_builds_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The controller's training spec goes in where the CLI's and the REST API's specs do
    (Workset.from_documents: checked, then rendered), and the Job is the Workset's Job."""
    built: list[Workset] = []
    from_documents = Workset.from_documents.__func__  # type: ignore[attr-defined]

    def recorded(
        cls: type[Workset],
        documents: list[Document],
        options: OptionsOf,
        admit: Admit | None = None,
    ) -> Workset:
        work: Workset = from_documents(cls, documents, options, admit)
        built.append(work)
        return work

    monkeypatch.setattr(Workset, "from_documents", classmethod(recorded))
    made = Workload.of(workload("w", 2))
    job: dict[str, Any] = render_job(made, "node-1")
    assert [[spec.document.data for spec in work.specs] for work in built] == [
        [made.training_spec()]
    ]
    (rendered,) = [m for m in built[0].manifests if m.kind == "Job"]
    assert job["metadata"]["name"] == rendered.obj["metadata"]["name"] == "w"


@pytest.mark.parametrize("priority", ["high", "medium", "low"])
def test_the_job_names_the_priority_class_of_its_workload(priority: str) -> None:
    made = Workload.of(
        {**workload("w", 1), "spec": {**workload("w", 1)["spec"], "priority": priority}}
    )
    job = render_job(made, "node-1")
    assert job["spec"]["template"]["spec"]["priorityClassName"] == f"gpuctl-{priority}"
    assert job["metadata"]["labels"][c.Labels.PRIORITY] == priority


def test_the_controllers_job_is_the_one_gpuctl_create_writes_for_its_spec(
    crd_env: Env, tmp_path: Path
) -> None:
    """The Job is written by the create verb: the same labels, annotations, pod template and
    PriorityClass as `gpuctl create` of the workload's training spec gives, which the verb
    installs when the cluster lacks it; only the controller's marks differ (the workload
    label and name, the owner, the pin to its node)."""
    crd_env.cluster.delete("PriorityClass", "gpuctl-high")
    made = crd_env.cluster.create(workload("w", 2, priority="high"))
    assert Reconciler(crd_env.cluster).reconcile(made).result == "scheduled"
    ours = crd_env.cluster.get("Job", "w", "default")
    assert crd_env.cluster.find("PriorityClass", "gpuctl-high") is not None
    node = crd_env.cluster.get(resource.KIND, "w", "default")["status"]["assignedNode"]
    assert pinned_node(ours) == node

    deleted = crd_env.gpuctl("delete", "job", "w", "--wait")
    assert deleted.returncode == 0, deleted.stderr
    spec = tmp_path / "w.yaml"
    spec.write_text(yaml.safe_dump(Workload.of(made).training_spec(), sort_keys=False))
    created = crd_env.gpuctl("create", "-f", str(spec))
    assert created.returncode == 0, created.stderr
    theirs = crd_env.cluster.get("Job", "w", "default")

    marks = {WORKLOAD_LABEL: label_value("w")}
    named = {c.WORKLOAD_NAME_ANNOTATION: "w"}
    for got, want in ((ours, theirs), (ours["spec"]["template"], theirs["spec"]["template"])):
        assert _written(got["metadata"]["labels"]) == {
            **_written(want["metadata"]["labels"]),
            **marks,
        }
        assert got["metadata"].get("annotations") == {
            **want["metadata"].get("annotations", {}),
            **named,
        }
    pod, their_pod = ours["spec"]["template"]["spec"], theirs["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == their_pod["priorityClassName"] == "gpuctl-high"
    assert {k: v for k, v in pod.items() if k != "affinity"} == {
        k: v for k, v in their_pod.items() if k != "affinity"
    }
    assert "ownerReferences" not in theirs["metadata"]


def _written(labels: dict[str, str]) -> dict[str, str]:
    """The labels as written: without the Job's uid the API server adds (each Job's own)."""
    return {key: value for key, value in labels.items() if not key.endswith("controller-uid")}
