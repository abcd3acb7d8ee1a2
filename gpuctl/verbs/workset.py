"""The input of a verb: checked specs rendered for one cluster, with the node labels that
pool files ask for. The one way in for every front end: the CLI builds it from files
(`from_files`), the REST API from a request's text (`from_text`), the controller from its
resource's text or documents (`from_text`, `from_documents`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpuctl.errors import SpecError
from gpuctl.render import engine
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.spec.check import Spec, check_documents, load_specs
from gpuctl.spec.document import Document, load_text
from gpuctl.spec.kinds import Options

# The render options, or how to get them once the specs passed their checks (the CLI connects
# to the cluster for its default namespace only then).
OptionsOf = Options | Callable[[], Options]
Admit = Callable[[Sequence[Spec]], None]  # raises when a front end refuses checked specs


@dataclass
class Workset:
    manifests: list[Manifest]
    node_labels: list[NodeLabels]
    specs: list[Spec] = field(default_factory=list)

    @classmethod
    def from_specs(cls, specs: Sequence[Spec], options: OptionsOf) -> Workset:
        """Rendered for the cluster `options` names; what render refuses whatever the options
        (a node in two pools) is refused before they are asked for (the CLI connects then)."""
        problems = engine.node_pool_problems(specs)
        if problems:
            raise SpecError(problems)
        rendered = engine.render_specs(specs, _options(options))
        return cls(rendered, engine.node_labels(specs), list(specs))

    @classmethod
    def from_files(cls, paths: Sequence[str], options: OptionsOf) -> Workset:
        """Every file checked first: when anything is wrong, every problem of every file at
        once (what only rendering finds too), before `options` is asked for."""
        return cls.from_specs(load_specs(paths, engine.render_problems), options)

    @classmethod
    def from_text(
        cls, text: str, source: str, options: OptionsOf, admit: Admit | None = None
    ) -> Workset:
        """The specs of one YAML text (`source` names it in problems), checked, then shown to
        `admit` (a front end's own refusals), then rendered."""
        return cls.from_documents(load_text(source, text), options, admit)

    @classmethod
    def from_documents(
        cls, documents: Sequence[Document], options: OptionsOf, admit: Admit | None = None
    ) -> Workset:
        specs = check_documents(documents)
        if admit is not None:
            admit(specs)
        return cls.from_specs(specs, options)


def _options(options: OptionsOf) -> Options:
    return options if isinstance(options, Options) else options()
