"""Set and remove the g8s.host/ labels on nodes: `gpuctl label node` and the REST API's node
label endpoints. Each write is a merge patch guarded by the node's resourceVersion, read and
checked again when another writer got there first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.client import Conflict, KubeError, NotFound
from gpuctl.errors import GpuctlError, UsageError
from gpuctl.inventory.nodes import NodeNotFound, labels_of, name_of
from gpuctl.verbs.common import ObjectResult, VerbResult
from gpuctl.verbs.errors import LabelConflict, LabelNotFound, LabelRefused, Overwritable

ATTEMPTS = 3  # a label write raced by another writer is read and checked again

# A label name after the prefix, and a label value (Kubernetes' syntax, at most 63 characters).
_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = re.compile(rf"{re.escape(c.USER_NODE_LABEL_PREFIX)}{_NAME}")
_VALUE = re.compile(rf"({_NAME})?")


@dataclass(frozen=True)
class LabelChange:
    """`KEY=VALUE` to set, or `KEY` (or kubectl's `KEY-`) to remove (value None)."""

    key: str
    value: str | None

    @classmethod
    def parse(cls, text: str, delete: bool) -> LabelChange:
        if "=" in text:
            if delete:
                raise UsageError(f"{text!r}: --delete takes a KEY without =VALUE")
            key, value = text.split("=", 1)
            change = cls(key, value)
        elif delete or text.endswith("-"):
            change = cls(text[:-1] if text.endswith("-") and not delete else text, None)
        else:
            raise UsageError(f"{text!r}: give KEY=VALUE to set a label, or KEY --delete")
        change.check()
        return change

    def check(self) -> None:
        """Only g8s.host/ keys: they must not collide with other people's labels."""
        if not self.key.startswith(c.USER_NODE_LABEL_PREFIX):
            raise LabelRefused(
                f"label key {self.key!r} refused: keys gpuctl writes on nodes must start with "
                f"{c.USER_NODE_LABEL_PREFIX} (so they never collide with other tools' labels), "
                f"e.g. {c.Labels.GPU_TYPE_USER}"
            )
        if not _KEY.fullmatch(self.key):
            raise LabelRefused(
                f"label key {self.key!r} refused: after {c.USER_NODE_LABEL_PREFIX} give at most "
                "63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
            )
        if self.value is not None and not _VALUE.fullmatch(self.value):
            raise LabelRefused(
                f"label value {self.value!r} refused: at most 63 letters, digits, '-', '_' or "
                "'.', starting and ending with a letter or digit"
            )


def patch_labels(
    cluster: ClusterAPI,
    node: dict[str, Any],
    labels: dict[str, str | None],
    taints: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A merge patch on metadata.labels (None removes a key), and with `taints` the node's whole
    spec.taints in the same patch, only if the node has not changed since it was read: the
    resourceVersion makes a concurrent writer a Conflict, not a loss."""
    patch: dict[str, Any] = {
        "metadata": {
            "resourceVersion": (node.get("metadata") or {}).get("resourceVersion"),
            "labels": labels,
        }
    }
    if taints is not None:
        patch["spec"] = {"taints": taints}
    return cluster.patch("Node", name_of(node), None, patch)


def change_label(
    cluster: ClusterAPI, name: str, change: LabelChange, overwrite: bool
) -> ObjectResult:
    """Set or remove one label on one node; what became of the node (labeled, unlabeled, or
    not labeled when it already has the value). Raises GpuctlError."""
    for _ in range(ATTEMPTS):
        node = cluster.find("Node", name)
        if node is None:
            raise NodeNotFound(f"node/{name} not found")
        current = labels_of(node).get(change.key)
        if change.value is None:
            if current is None:
                raise LabelNotFound(f"node/{name} has no label {change.key}")
        elif current == change.value:
            return _node(name, "not labeled", f"(already {change.key}={current})")
        elif current is not None and not overwrite:
            raise LabelConflict(
                f"node/{name}: {change.key} already has the value {current!r} (conflict, 409)",
                remedy="replace it",
            )
        try:
            patch_labels(cluster, node, {change.key: change.value})
        except Conflict:
            continue  # changed under us: read and check again
        return _node(name, "unlabeled" if change.value is None else "labeled")
    raise GpuctlError(f"node/{name} kept changing while it was being labelled; try again")


def _node(name: str, outcome: str, detail: str = "") -> ObjectResult:
    return ObjectResult("Node", name, None, outcome, detail=detail)


def label_nodes(
    cluster: ClusterAPI, names: Sequence[str], change: LabelChange, overwrite: bool
) -> VerbResult:
    """Each node on its own, as kubectl does: one result a node labelled, one error line a
    node that was not (with the cluster's error behind it, when there is one)."""
    result = VerbResult()
    for name in names:
        try:
            result.objects.append(change_label(cluster, name, change, overwrite))
        except NotFound as exc:
            result.fail(f"node/{name} not found", exc)
        except Overwritable as exc:
            result.refuse(str(exc), exc.remedy)
        except GpuctlError as exc:
            line = str(exc) if str(exc).startswith("node/") else f"node/{name}: {exc}"
            result.fail(line, exc if isinstance(exc, KubeError) else None)
    return result
