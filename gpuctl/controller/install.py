"""`gpuctl controller install`: what `gpuctl controller manifests` prints, as manifests for the
apply verb (created, updated in place or left unchanged like any other gpuctl object), and the
wait until the API server serves the GPUWorkload resource.

A namespace that already exists and is not gpuctl's (`default`, or one an administrator made)
is used as it is: apply does not take over objects gpuctl did not make, so it is left out.
"""

from __future__ import annotations

import time
from typing import Any

import yaml

from gpuctl.cluster.api import ClusterAPI
from gpuctl.controller import resource
from gpuctl.errors import GpuctlError
from gpuctl.render.engine import Manifest
from gpuctl.spec.document import Document
from gpuctl.verbs.plan import is_managed

ESTABLISHED_TIMEOUT = 60.0


def install_manifests(
    cluster: ClusterAPI, namespace: str, image: str, replicas: int
) -> list[Manifest]:
    """The controller's objects in the order to apply them; an existing namespace gpuctl did
    not make is left out (it is used, not managed)."""
    objects = resource.manifests(namespace, image, replicas)
    live_namespace = cluster.find("Namespace", namespace)
    if live_namespace is not None and not is_managed(live_namespace):
        objects = [obj for obj in objects if obj["kind"] != "Namespace"]
    origin = Document("<gpuctl controller manifests>", 0, 1, None)
    return [
        Manifest(obj, yaml.safe_dump(obj, sort_keys=False), origin, "controller manifests")
        for obj in objects
    ]


def crd_established(crd: dict[str, Any]) -> bool:
    conditions = (crd.get("status") or {}).get("conditions") or []
    return any(
        cond.get("type") == "Established" and cond.get("status") == "True" for cond in conditions
    )


def wait_established(cluster: ClusterAPI, timeout: float = ESTABLISHED_TIMEOUT) -> None:
    """Return once the API server serves GPUWorkloads (the CRD's Established condition)."""
    deadline = time.monotonic() + timeout
    while True:
        crd = cluster.find("CustomResourceDefinition", resource.CRD_NAME)
        if crd is not None and crd_established(crd):
            return
        if time.monotonic() > deadline:
            raise GpuctlError(
                f"customresourcedefinition {resource.CRD_NAME} is not Established after "
                f"{timeout:.0f}s; see `kubectl describe crd {resource.CRD_NAME}`"
            )
        time.sleep(0.2)
