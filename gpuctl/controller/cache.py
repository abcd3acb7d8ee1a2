"""What placement reads, kept current by watches instead of listed at every placement: the
nodes (those of the node selector), every pod, and the namespace's GPUWorkloads.

Each Informer lists once, then watches from the list's resourceVersion (client-go's
reflector): it watches again from the last version it saw when a watch ends, and lists again
when the server answers that version is gone (410) or another error occurs. Nodes and pods are
kept slimmed to the fields placement reads (a node's labels, spec, capacity and conditions; a
pod's node, phase and container resources), so 1,000 nodes and their pods stay small.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Final

from gpuctl.cluster.client import Cluster
from gpuctl.cluster.errors import KubeError, NotFound

log = logging.getLogger("gpuctl.controller.cache")

WATCH_SECONDS: Final = 300  # the server ends each watch after this; it is made again
RELIST_PAUSE_SECONDS: Final = 1.0  # after an error, before listing again

Transform = Callable[[dict[str, Any]], dict[str, Any]]


def _metadata(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    keep = ("name", "namespace", "uid", "labels", "resourceVersion", "deletionTimestamp")
    return {key: meta[key] for key in keep if key in meta}


def slim_node(node: dict[str, Any]) -> dict[str, Any]:
    status = node.get("status") or {}
    return {
        "metadata": _metadata(node),
        "spec": node.get("spec") or {},
        "status": {
            "allocatable": status.get("allocatable") or {},
            "capacity": status.get("capacity") or {},
            "conditions": [
                cond for cond in status.get("conditions") or [] if cond.get("type") == "Ready"
            ],
        },
    }


def slim_pod(pod: dict[str, Any]) -> dict[str, Any]:
    spec = pod.get("spec") or {}

    def containers(key: str) -> list[dict[str, Any]]:
        return [
            {"name": item.get("name"), "resources": item.get("resources") or {}}
            for item in spec.get(key) or []
        ]

    return {
        "metadata": _metadata(pod),
        "spec": {
            "nodeName": spec.get("nodeName"),
            "containers": containers("containers"),
            "initContainers": containers("initContainers"),
        },
        "status": {"phase": (pod.get("status") or {}).get("phase")},
    }


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


class Informer:
    """The objects of one kind (and namespace, and label selector), kept current."""

    def __init__(
        self,
        cluster: Cluster,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        transform: Transform | None = None,
    ) -> None:
        self.cluster = cluster
        self.kind = kind
        self.namespace = namespace
        self.label_selector = label_selector
        self.transform: Transform = transform or (lambda obj: obj)
        self.synced = threading.Event()
        self._lock = threading.Lock()
        self._objects: dict[tuple[str, str], dict[str, Any]] = {}

    def items(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._objects.values())

    def get(self, namespace: str, name: str) -> dict[str, Any] | None:
        """One object by namespace ("" for cluster-scoped kinds) and name."""
        with self._lock:
            return self._objects.get((namespace, name))

    def start(self, stop: threading.Event) -> threading.Thread:
        thread = threading.Thread(
            target=self._run, args=(stop,), name=f"informer-{self.kind}", daemon=True
        )
        thread.start()
        return thread

    def _run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                version = self._list()
                while not stop.is_set():
                    version = self._watch(version, stop)
            except NotFound:  # the kind is not served (yet): a CRD not installed
                self.replace_all([])
            except KubeError as exc:
                log.warning("%s: %s; listing again", self.kind, exc)
            stop.wait(RELIST_PAUSE_SECONDS)

    def _list(self) -> str:
        items, version = self.cluster.list_at_version(
            self.kind, self.namespace, label_selector=self.label_selector
        )
        self.replace_all(items)
        return version

    def replace_all(self, items: list[dict[str, Any]]) -> None:
        fresh = {_key(obj): self.transform(obj) for obj in items}
        with self._lock:
            self._objects = fresh
        self.synced.set()

    def _watch(self, version: str, stop: threading.Event) -> str:
        """Apply one watch's events; the version to watch from next."""
        events = self.cluster.watch(
            self.kind,
            self.namespace,
            resource_version=version,
            label_selector=self.label_selector,
            timeout_seconds=WATCH_SECONDS,
        )
        for event, obj in events:
            version = str((obj.get("metadata") or {}).get("resourceVersion") or version)
            if event == "BOOKMARK":
                continue
            with self._lock:
                if event == "DELETED":
                    self._objects.pop(_key(obj), None)
                else:
                    self._objects[_key(obj)] = self.transform(obj)
            if stop.is_set():
                break
        return version


class ClusterCache:
    """Nodes, pods and GPUWorkloads for placement, each kept by an Informer."""

    def __init__(
        self, cluster: Cluster, namespace: str, node_selector: str | None, kind: str
    ) -> None:
        self.namespace = namespace
        self.nodes = Informer(cluster, "Node", None, node_selector, slim_node)
        self.pods = Informer(cluster, "Pod", None, None, slim_pod)
        self.workloads = Informer(cluster, kind, namespace)
        self._stop = threading.Event()

    def start(self, timeout: float = 60.0) -> bool:
        """Start watching; True once all three have listed (within `timeout`)."""
        informers = (self.nodes, self.pods, self.workloads)
        for informer in informers:
            informer.start(self._stop)
        return all(informer.synced.wait(timeout) for informer in informers)

    def stop(self) -> None:
        self._stop.set()
