"""The input of a verb: checked specs rendered for one cluster, with the node labels that
pool files ask for. Built the same way by the CLI (from files) and the REST API (from text)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuctl.render import engine
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.spec.check import Spec, check_documents
from gpuctl.spec.document import Document
from gpuctl.spec.kinds import Options


@dataclass
class Workset:
    manifests: list[Manifest]
    node_labels: list[NodeLabels]

    @classmethod
    def of_specs(cls, specs: Sequence[Spec], options: Options) -> Workset:
        return cls(engine.render_specs(specs, options), engine.node_labels(specs))

    @classmethod
    def of_documents(cls, documents: Sequence[Document], options: Options) -> Workset:
        return cls.of_specs(check_documents(documents), options)
