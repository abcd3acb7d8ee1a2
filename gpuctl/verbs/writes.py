"""What `create` and `apply` share: their options, and their opening (the pool files' nodes
checked, the jobs' placement checked, the workloads that ask for a placement strategy pinned,
the PriorityClasses their pods name installed or left out, the pools split from the rest),
before each writes in its own way."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpuctl.cluster.api import ClusterAPI
from gpuctl.render.engine import Manifest, NodeLabels
from gpuctl.verbs import priorities
from gpuctl.verbs.common import (
    DEFAULT_TIMEOUT,
    DryRun,
    ObjectResult,
    Progress,
    VerbResult,
    no_progress,
)
from gpuctl.verbs.pinning import Pin, Pinning
from gpuctl.verbs.pool_labels import PoolLabels
from gpuctl.verbs.preflight import Placement, placement_or_refuse
from gpuctl.verbs.wait import Wait


@dataclass
class Opening:
    """What the checks found, and the manifests to write (pinned), pools apart."""

    labels: PoolLabels
    placement: Placement
    manifests: list[Manifest]
    pins: list[Pin]
    pools: list[Manifest]
    others: list[Manifest]
    priority_classes: list[ObjectResult]  # the PriorityClasses created for the jobs' pods


@dataclass
class WriteVerb:
    """The options `create` and `apply` share."""

    cluster: ClusterAPI
    dry_run: DryRun = DryRun.NONE
    timeout: float = DEFAULT_TIMEOUT
    progress: Progress = no_progress
    node_labels: Sequence[NodeLabels] = ()  # what pool files label on their nodes
    overwrite: bool = False  # a pool may take nodes of another pool
    wait: Wait | None = None  # after writing, wait until the workloads are up
    on_written: Callable[[VerbResult], None] | None = None  # told before the wait starts
    rng: random.Random = field(default_factory=random.Random)  # resources.placement: random
    # accept a request no node could ever hold (it waits, Pending, for nodes that join)
    allow_pending: bool = False

    def open(
        self,
        manifests: list[Manifest],
        *,
        keep_live: bool,
        nothing: str,
    ) -> Opening:
        """Check the pool files' nodes (and, with `keep_live`, what the pools had before) and
        the jobs' placement, then pin the workloads that ask for a placement strategy (with
        `keep_live`, keeping a live pin that still fits). A refusal raises before anything is
        written; `nothing` is its message's ending ("nothing was created")."""
        labels = PoolLabels(self.cluster, manifests, self.node_labels, self.overwrite)
        labels.check(with_previous=keep_live)
        placement = placement_or_refuse(
            self.cluster,
            manifests,
            self.node_labels,
            allow_pending=self.allow_pending,
            nothing=nothing,
        )
        pinning = Pinning(self.cluster, self.node_labels, keep_live=keep_live, rng=self.rng)
        pinned, pins = pinning.run(manifests, nothing)
        classes = priorities.check(
            self.cluster, pinned, may_install=self.dry_run is DryRun.NONE, keep_live=keep_live
        )
        placement.warnings += classes.warnings
        pools, others = labels.split(classes.manifests)
        return Opening(labels, placement, classes.manifests, pins, pools, others, classes.created)
