"""What a cluster connection offers, split the way Helm splits its `kube.Interface`: a core
protocol (`ClusterAPI`: get, find, list, create, replace, patch, delete, watch) that every
caller needs, and small ones for what only some callers need: status writes, subresource
patches, printed tables, versioned lists, log streams, exec streams and impersonation. A
caller names the narrowest protocol (or combination) it uses, so that what it asks of the
cluster is written in its signature and an in-process cluster can stand in for it.

`gpuctl.cluster.client.Cluster` is the real one (HTTP to a Kubernetes API server) and has them
all (`FullClusterAPI`); `gpuctl.cluster.fake.FakeCluster` is an in-process one for fast unit
tests of the verbs and the controller, with the core, status writes and (empty) log streams.
Objects are plain dicts, as the API server sends them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self

if TYPE_CHECKING:  # the client imports the kubernetes package: only its types are named here
    from gpuctl.cluster.client import ExecResult, Listed, LogEnds, TableRows


class ClusterAPI(Protocol):
    """The core: one object or a list of them, written or watched."""

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

    def served_versions(self, group: str) -> tuple[str, ...]:
        """The versions of API group `group` the cluster serves, from its API discovery
        (`GET /apis/<group>`); () where it serves none. Forbidden where the caller may not
        read discovery."""
        ...


class StatusWrites(Protocol):
    def patch_status(
        self, kind: str, name: str, namespace: str | None, status: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A merge patch of the object's status through its status subresource (a null value
        removes a field); the rest of the object is left as it is."""
        ...


class SubresourcePatches(Protocol):
    def patch_subresource(
        self,
        kind: str,
        name: str,
        namespace: str | None,
        subresource: str,
        patch: Any,
        *,
        patch_type: str = "merge",
    ) -> dict[str, Any]:
        """A patch of one of the object's subresources (such as a pod's "resize"); NotFound
        when the object, or the subresource on this cluster, is missing."""
        ...


class TableReads(Protocol):
    def list_table(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
    ) -> TableRows: ...


class VersionedLists(Protocol):
    def list_versioned(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Listed: ...

    def current_version(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> str: ...


class LogStreams(Protocol):
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
        ends: LogEnds | None = None,
        limit_bytes: int | None = None,
        timestamps: bool = False,
    ) -> Iterator[str]: ...


class PodExec(Protocol):
    def exec(
        self,
        pod: str,
        namespace: str,
        command: Sequence[str],
        *,
        container: str | None = None,
        stdin: Iterable[bytes] | None = None,
        timeout: float = ...,
    ) -> ExecResult: ...


class Impersonation(Protocol):
    # the (header, value) pairs that make every request the impersonated user's; () when the
    # connection acts with its own credentials
    impersonation: tuple[tuple[str, str], ...]

    def impersonating(self, user: str, groups: Sequence[str] = ()) -> Self: ...


class StatusCluster(ClusterAPI, StatusWrites, Protocol):
    """The core and status writes: what the GPUWorkload controller writes through."""


class LogCluster(ClusterAPI, LogStreams, Protocol):
    """The core and log streams: what reads jobs with their pods' logs."""


class ExecCluster(ClusterAPI, PodExec, Protocol):
    """The core and exec streams: what copies files into and out of pods."""


class SubresourceCluster(ClusterAPI, SubresourcePatches, Protocol):
    """The core and subresource patches: what resizes a pod in place."""


class TableCluster(ClusterAPI, TableReads, Protocol):
    """The core and printed tables: what lists jobs with their pods as `kubectl get` does."""


class ControllerCluster(StatusCluster, VersionedLists, Protocol):
    """What the GPUWorkload controller runs on: its watch caches and its writes."""


class FullClusterAPI(
    ClusterAPI,
    StatusWrites,
    SubresourcePatches,
    TableReads,
    VersionedLists,
    LogStreams,
    PodExec,
    Impersonation,
    Protocol,
):
    """Everything a connection to a real cluster offers (gpuctl.cluster.client.Cluster)."""
