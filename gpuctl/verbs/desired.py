"""What a gpuctl write sends for a Workset, for a writer that is not create or apply (the
GPUWorkload controller): each rendered object with its fingerprint and, on a job's
workload, the spec text it came from (`plan.desired_object`). `gpuctl diff` and `apply` of
the same spec then recognise the objects as gpuctl's own, and `GET /jobs/{id}` shows the spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuctl.render.engine import Manifest
from gpuctl.verbs.plan import desired_object
from gpuctl.verbs.workset import Workset


@dataclass(frozen=True)
class Desired:
    manifest: Manifest  # as rendered: what the fingerprint is of
    obj: dict[str, Any]  # what is sent: the rendered object with gpuctl's annotations


def desired_objects(work: Workset) -> list[Desired]:
    """The Workset's rendered objects, in install order, as gpuctl writes them."""
    return [Desired(manifest, desired_object(manifest)) for manifest in work.manifests]
