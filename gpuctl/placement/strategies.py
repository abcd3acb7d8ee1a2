"""Where a GPU workload goes: four strategies that rank the nodes for a request of GPUs.

Pure: NodeGpus (gpuctl.placement.capacity, from live Node and Pod objects) in, a ranked and
explained list out. No cluster: the controller, `gpuctl controller plan` and
`gpuctl create`/`apply` with resources.placement share this one implementation.

Only nodes that take new pods (Ready, not cordoned, no NoSchedule/NoExecute taint) with enough
free GPUs are suitable.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from gpuctl.placement.capacity import NodeGpus, node_gpus

# The types and the reading the strategies work on, for callers of this module.
__all__ = [
    "BINPACK",
    "COST_OPTIMIZED",
    "LEAST_LOADED",
    "RANDOM",
    "STRATEGIES",
    "STRATEGY_NAMES",
    "Binpack",
    "Candidate",
    "CostOptimized",
    "LeastLoaded",
    "NodeGpus",
    "Placement",
    "Random",
    "Strategy",
    "fragmentation",
    "node_gpus",
    "place_open",
    "strategy",
]

LEAST_LOADED: Final = "leastLoaded"
RANDOM: Final = "random"
COST_OPTIMIZED: Final = "costOptimized"
BINPACK: Final = "binpack"


@dataclass(frozen=True)
class Candidate:
    """A node's verdict: its place in the ranking (1 = chosen), score and the reason."""

    node: NodeGpus
    suitable: bool
    score: float  # higher is better within the strategy's rule; 0 for unsuitable nodes
    reason: str
    rank: int = 0  # 1-based among suitable nodes; 0 for unsuitable ones


@dataclass(frozen=True)
class Placement:
    """A strategy's answer for one request: every node, best first, unsuitable ones last."""

    strategy: str
    gpus: int
    candidates: tuple[Candidate, ...]

    @property
    def chosen(self) -> NodeGpus | None:
        first = self.candidates[0] if self.candidates else None
        return first.node if first is not None and first.suitable else None

    @property
    def reason(self) -> str:
        """Why nothing was chosen (or what was): one line for a status message."""
        if self.chosen is not None:
            return f"{self.strategy} chose {self.chosen.name}: {self.candidates[0].reason}"
        if not self.candidates:
            return "the cluster has no nodes"
        most = max((cand.node.free for cand in self.candidates if not cand.node.problem), default=0)
        return (
            f"no Ready, schedulable node has {self.gpus} free GPU(s) "
            f"(the most free on one node: {most})"
        )


@dataclass(frozen=True)
class Strategy(ABC):
    """Ranks nodes for a request of `gpus` GPUs; the first suitable candidate is the choice.
    A strategy is one subclass with its `name`, listed in STRATEGIES."""

    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)
    name: ClassVar[str]

    @abstractmethod
    def place(self, nodes: Sequence[NodeGpus], gpus: int) -> Placement: ...


def _unsuitable_reason(node: NodeGpus, gpus: int) -> str:
    if node.problem:
        return node.problem
    if node.gpus == 0:
        return "no GPUs"
    return f"only {node.free} of {node.gpus} GPUs free, {gpus} needed"


def _rank(
    name: str,
    nodes: Sequence[NodeGpus],
    gpus: int,
    order: Callable[[NodeGpus], tuple[Any, ...]],
    score: Callable[[NodeGpus], float],
    why: Callable[[NodeGpus], str],
) -> Placement:
    """Suitable nodes sorted by `order` (ties by name), then the unsuitable ones by name."""
    fits: list[NodeGpus] = []
    unfit: list[NodeGpus] = []
    for node in nodes:  # one pass: no membership tests over a thousand nodes
        (fits if not node.problem and node.gpus > 0 and node.free >= gpus else unfit).append(node)
    rest = sorted(unfit, key=lambda n: n.name)
    ranked = sorted(fits, key=lambda n: (*order(n), n.name))
    candidates = [
        Candidate(node, True, score(node), why(node), rank)
        for rank, node in enumerate(ranked, start=1)
    ]
    candidates += [Candidate(node, False, 0.0, _unsuitable_reason(node, gpus)) for node in rest]
    return Placement(name, gpus, tuple(candidates))


def _free_words(node: NodeGpus) -> str:
    return f"{node.free} of {node.gpus} GPUs free"


@dataclass(frozen=True)
class LeastLoaded(Strategy):
    """The node with the most free GPUs (spreads work; the default)."""

    name: ClassVar[str] = LEAST_LOADED

    def place(self, nodes: Sequence[NodeGpus], gpus: int) -> Placement:
        return _rank(
            self.name, nodes, gpus, lambda n: (-n.free,), lambda n: float(n.free), _free_words
        )


@dataclass(frozen=True)
class Binpack(Strategy):
    """The node with the fewest free GPUs that still fit (keeps whole nodes free for big jobs)."""

    name: ClassVar[str] = BINPACK

    def place(self, nodes: Sequence[NodeGpus], gpus: int) -> Placement:
        def why(node: NodeGpus) -> str:
            return f"{_free_words(node)}, {node.free - gpus} left after placing"

        return _rank(
            self.name, nodes, gpus, lambda n: (n.free,), lambda n: float(gpus - n.free), why
        )


@dataclass(frozen=True)
class CostOptimized(Strategy):
    """Nodes labelled gpu-orchestrator/cheap-node=true first, then by most free GPUs."""

    name: ClassVar[str] = COST_OPTIMIZED

    def place(self, nodes: Sequence[NodeGpus], gpus: int) -> Placement:
        def why(node: NodeGpus) -> str:
            kind = "cheap node" if node.cheap else "not a cheap node"
            return f"{kind}, {_free_words(node)}"

        return _rank(
            self.name,
            nodes,
            gpus,
            lambda n: (not n.cheap, -n.free),
            lambda n: float(n.free + (1000 if n.cheap else 0)),
            why,
        )


@dataclass(frozen=True)
class Random(Strategy):
    """Any suitable node, uniformly at random (nodes that are all alike)."""

    name: ClassVar[str] = RANDOM

    def place(self, nodes: Sequence[NodeGpus], gpus: int) -> Placement:
        fits = sorted(
            (n for n in nodes if not n.problem and n.gpus > 0 and n.free >= gpus),
            key=lambda n: n.name,
        )
        pick = self.rng.choice(fits) if fits else None

        def order(node: NodeGpus) -> tuple[int]:
            return (0 if node is pick else 1,)

        def why(node: NodeGpus) -> str:
            drawn = "drawn" if node is pick else "not drawn"
            return f"{drawn} among {len(fits)} suitable node(s), {_free_words(node)}"

        return _rank(self.name, nodes, gpus, order, lambda n: 1.0 if n is pick else 0.0, why)


# name -> strategy class: a new strategy is one subclass of Strategy and one entry here.
STRATEGIES: Final[Mapping[str, type[Strategy]]] = {
    cls.name: cls for cls in (LeastLoaded, Random, CostOptimized, Binpack)
}
STRATEGY_NAMES: Final = tuple(STRATEGIES)


def strategy(name: str, rng: random.Random | None = None) -> Strategy:
    """The strategy called `name` (one of STRATEGY_NAMES); `rng` seeds `random`."""
    if name in STRATEGIES:
        return STRATEGIES[name](rng or random.Random())
    raise ValueError(f"unknown scheduling strategy {name!r}; one of: {', '.join(STRATEGY_NAMES)}")


def place_open(
    name: str, nodes: Sequence[NodeGpus], gpus: int, rng: random.Random | None = None
) -> Placement:
    """Where a request that names no pool goes (a GPUWorkload): strategy `name` over the nodes
    in no pool or in a pool that does not isolate its nodes, never into a pool whose nodes are
    kept for the pool's own jobs. `controller plan` and `controller run` both ask this, so the
    plan names the node the controller picks."""
    open_nodes = [node for node in nodes if not node.isolated]
    return strategy(name, rng).place(open_nodes, gpus)


def fragmentation(nodes: Sequence[NodeGpus], largest_request: int) -> int:
    """Free GPUs on Ready, schedulable nodes that cannot host the largest pending request
    (0 when nothing is pending)."""
    if largest_request <= 0:
        return 0
    return sum(n.free for n in nodes if not n.problem and 0 < n.free < largest_request)
