"""A ClusterAPI that sends every call on to another: the base of the connections that answer
some reads themselves (from a watch cache) and leave the rest to the cluster."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpuctl.cluster.api import ClusterAPI

Obj = dict[str, Any]


class Forwarding:
    """Every ClusterAPI call goes to `cluster`; a subclass overrides the reads it answers."""

    namespace: str

    @property
    def cluster(self) -> ClusterAPI:
        raise NotImplementedError

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[Obj]:
        return self.cluster.list(
            kind, namespace, label_selector=label_selector, field_selector=field_selector
        )

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj:
        return self.cluster.get(kind, name, namespace)

    def find(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        return self.cluster.find(kind, name, namespace)

    def served_versions(self, group: str) -> tuple[str, ...]:
        return self.cluster.served_versions(group)

    def create(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        return self.cluster.create(obj, dry_run=dry_run)

    def replace(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        return self.cluster.replace(obj, dry_run=dry_run)

    def patch(
        self, kind: str, name: str, namespace: str | None, patch: Any, *, patch_type: str = "merge"
    ) -> Obj:
        return self.cluster.patch(kind, name, namespace, patch, patch_type=patch_type)

    def delete(
        self,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Foreground",
        grace_period: int | None = None,
        dry_run: bool = False,
    ) -> None:
        self.cluster.delete(
            kind,
            name,
            namespace,
            propagation=propagation,
            grace_period=grace_period,
            dry_run=dry_run,
        )

    def watch(
        self,
        kind: str,
        namespace: str | None,
        *,
        resource_version: str,
        field_selector: str | None = None,
        label_selector: str | None = None,
        timeout_seconds: int = 30,
    ) -> Iterator[tuple[str, Obj]]:
        return self.cluster.watch(
            kind,
            namespace,
            resource_version=resource_version,
            field_selector=field_selector,
            label_selector=label_selector,
            timeout_seconds=timeout_seconds,
        )
