"""Notebooks as read from a cluster: the notebook jobs of a namespace, or one by name."""

from __future__ import annotations

from typing import Any

from gpuctl import workloads
from gpuctl.cluster.api import ClusterAPI
from gpuctl.constants import Labels
from gpuctl.errors import GpuctlError
from gpuctl.inventory import jobs

NOTEBOOK = "notebook"
NOTEBOOK_KIND = workloads.STATEFUL_SET.kind  # the workload kind a notebook renders


class NotANotebook(GpuctlError):
    pass


def selector() -> str:
    return jobs.selector(kind=NOTEBOOK)


def list_notebooks(cluster: ClusterAPI, namespace: str, name: str | None) -> list[dict[str, Any]]:
    """The notebook `name`, or every notebook in the namespace."""
    if name:
        return [find_notebook(cluster, name, namespace)]
    found = cluster.list(NOTEBOOK_KIND, namespace, label_selector=selector())
    for obj in found:
        obj.setdefault("kind", NOTEBOOK_KIND)
    return sorted(found, key=lambda o: str(o["metadata"]["name"]))


def find_notebook(cluster: ClusterAPI, name: str, namespace: str) -> dict[str, Any]:
    job = jobs.find_job(cluster, name, namespace)
    labels = (job.get("metadata") or {}).get("labels") or {}
    if job["kind"] != NOTEBOOK_KIND or labels.get(Labels.JOB_TYPE) != NOTEBOOK:
        kind = labels.get(Labels.JOB_TYPE, job["kind"].lower())
        raise NotANotebook(f"{name} is a {kind} job, not a notebook")
    return job
