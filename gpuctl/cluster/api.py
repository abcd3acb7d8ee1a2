"""The part of a cluster connection that the verbs and the inventory use.

`gpuctl.cluster.client.Cluster` is the real one (HTTP to a Kubernetes API server);
`gpuctl.cluster.fake.FakeCluster` is an in-process one for fast unit tests of the verbs.
Objects are plain dicts, as the API server sends them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol


class ClusterAPI(Protocol):
    namespace: str  # the namespace the kubeconfig context names

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]: ...

    def find(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None: ...

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[dict[str, Any]]: ...

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]: ...

    def replace(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]: ...

    def patch(
        self,
        kind: str,
        name: str,
        namespace: str | None,
        patch: Any,
        *,
        patch_type: str = "merge",
    ) -> dict[str, Any]: ...

    def delete(
        self,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Foreground",
        grace_period: int | None = None,
        dry_run: bool = False,
    ) -> None: ...

    def watch(
        self,
        kind: str,
        namespace: str | None,
        *,
        resource_version: str,
        field_selector: str | None = None,
        label_selector: str | None = None,
        timeout_seconds: int = 30,
    ) -> Iterator[tuple[str, dict[str, Any]]]: ...

    def logs(
        self,
        pod: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        since_seconds: int | None = None,
        follow: bool = False,
        previous: bool = False,
    ) -> Iterator[str]: ...
