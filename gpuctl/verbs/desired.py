"""What a gpuctl write sends for a spec's documents, for a writer that is not create or apply
(the GPUWorkload controller): each rendered object with its fingerprint and, on a job's
workload, the spec text it came from (`plan.desired_object`). `gpuctl diff` and `apply` of
the same spec then recognise the objects as gpuctl's own, and `GET /jobs/{id}` shows the spec.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl.render.engine import Manifest, render_documents
from gpuctl.spec.document import Document
from gpuctl.spec.kinds import Options
from gpuctl.verbs.plan import desired_object


@dataclass(frozen=True)
class Desired:
    manifest: Manifest  # as rendered: what the fingerprint is of
    obj: dict[str, Any]  # what is sent: the rendered object with gpuctl's annotations


def desired_objects(documents: Sequence[Document], options: Options) -> list[Desired]:
    """Check and render `documents` (SpecError names every problem), in install order."""
    return [Desired(m, desired_object(m)) for m in render_documents(documents, options)]
