"""Claims of placements made whose pods a read of the cluster does not show yet, and the open
capacity that successive placements take from one after the other.

A placement holds its GPUs from the moment it is made, not from the moment its pods exist:
otherwise two placements in a row would both take a node's last free GPUs. Two kinds of such
claims exist, and the capacity model counts both as used (`capacity.node_gpus`'s `promised`):

- recorded ones: an object says where it was placed (a GPUWorkload's `status.assignedNode`)
  and no pod of it exists yet (`unmade`);
- remembered ones: the placer made the placement but its read (a cache) may lag behind its own
  writes, so it remembers each placement until a read shows it, or PLACED_MEMORY_SECONDS pass
  (any read shows it by then) (`RecentPlacements`).

`OpenCapacity` is the nodes as successive placements leave them: `controller plan` and
`controller run` both place through it (so the plan names the node the run picks), and so do
create and apply for each pod of a workload with resources.placement (`place_pods`,
`fill_pinned`).
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from gpuctl.placement import strategies
from gpuctl.placement.capacity import NodeGpus

PLACED_MEMORY_SECONDS: Final = 30.0

# (namespace, name) of the placed object
Key = tuple[str, str]


@dataclass(frozen=True)
class Assignment:
    """A placement an object records: `gpus` GPUs on `node` for (namespace, name)."""

    key: Key
    node: str
    gpus: int


def unmade(assignments: Iterable[Assignment], made: Collection[Key]) -> dict[str, int]:
    """node -> GPUs of the assignments whose object has no pod yet (a key in `made` has one:
    its pod then claims the GPUs itself, and once finished claims nothing)."""
    claims: dict[str, int] = {}
    for assignment in assignments:
        if assignment.key not in made:
            claims[assignment.node] = claims.get(assignment.node, 0) + assignment.gpus
    return claims


def add_claims(*claims: Mapping[str, int]) -> dict[str, int]:
    """node -> the sum of every mapping's GPUs on it."""
    total: dict[str, int] = {}
    for mapping in claims:
        for node, gpus in mapping.items():
            total[node] = total.get(node, 0) + gpus
    return total


class RecentPlacements:
    """Placements made, remembered until a read shows them (thread-safe)."""

    def __init__(self, memory_seconds: float = PLACED_MEMORY_SECONDS) -> None:
        self.memory_seconds = memory_seconds
        self._lock = threading.Lock()
        self._placed: dict[Key, tuple[str, int, float]] = {}

    def add(self, key: Key, node: str, gpus: int, now: float) -> None:
        with self._lock:
            self._placed[key] = (node, gpus, now)

    def drop(self, key: Key) -> None:
        """Forget a placement undone (no pod will be made for it)."""
        with self._lock:
            self._placed.pop(key, None)

    def unseen(self, shown: Mapping[Key, str], now: float) -> dict[str, int]:
        """node -> GPUs of the placements a read does not show yet (`shown`: key -> the node
        the read says the object was placed on). Forgets those it shows on their node, and
        those older than memory_seconds."""
        claims: dict[str, int] = {}
        with self._lock:
            for key, (node, gpus, when) in list(self._placed.items()):
                if shown.get(key) == node or now - when > self.memory_seconds:
                    del self._placed[key]
                else:
                    claims[node] = claims.get(node, 0) + gpus
        return claims


@dataclass
class OpenCapacity:
    """The nodes as placement sees them, each placement made taking its GPUs at once."""

    nodes: list[NodeGpus]

    def take(self, node: str, gpus: int) -> None:
        """Count `gpus` more GPUs used on `node` (fewer when negative: a placement undone)."""
        for index, entry in enumerate(self.nodes):
            if entry.name == node:
                self.nodes[index] = dataclasses.replace(entry, used=entry.used + gpus)

    def place(self, strategy: str, gpus: int, rng: random.Random) -> strategies.Placement:
        """Where a request naming no pool goes by `strategy` (strategies.place_open), its
        GPUs taken on the node chosen."""
        placement = strategies.place_open(strategy, self.nodes, gpus, rng)
        if placement.chosen is not None:
            self.take(placement.chosen.name, gpus)
        return placement

    def fragmented(self, largest_request: int) -> int:
        """Free GPUs too few for the largest request waiting (strategies.fragmentation)."""
        return strategies.fragmentation(self.nodes, largest_request)


def place_pods(
    strategy: str,
    pods: int,
    gpus: int,
    distinct: bool,
    nodes: Sequence[NodeGpus],
    rng: random.Random,
) -> tuple[list[strategies.Placement], strategies.Placement | None]:
    """One placement per pod of `gpus` GPUs, each seeing the GPUs the previous ones took
    (`distinct`: at most one pod per node); (placements, the one that found no node, or None
    when every pod has one). create and apply with resources.placement ask this."""
    rule = strategies.strategy(strategy, rng)
    view = OpenCapacity(list(nodes))
    made: list[strategies.Placement] = []
    for _ in range(pods):
        placement = rule.place(view.nodes, gpus)
        node = placement.chosen
        if node is None:
            return made, placement
        made.append(placement)
        if distinct:
            view.nodes = [n for n in view.nodes if n.name != node.name]
        else:
            view.take(node.name, gpus)
    return made, None


def fill_pinned(
    pods: int, gpus: int, distinct: bool, pinned: Sequence[str], nodes: Sequence[NodeGpus]
) -> dict[str, int] | None:
    """node -> GPUs when the pinned nodes can host `pods` pods of `gpus` GPUs (filled in
    order, at most one pod per node when `distinct`); None when they cannot."""
    by_name = {n.name: n for n in nodes}
    if not pinned or any(name not in by_name or by_name[name].problem for name in pinned):
        return None
    placed: dict[str, int] = {}
    left = pods
    for name in pinned:
        room = by_name[name].free // gpus if gpus else left
        here = min(left, 1 if distinct else room, room)
        if here > 0:
            placed[name] = here * gpus
            left -= here
    return placed if left == 0 else None
