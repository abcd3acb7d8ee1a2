"""The one module that talks to the Kubernetes API (through the official `kubernetes` client).

Small and kubectl-shaped: get, list, create, replace, patch, delete, watch, on plain dicts.
Requests go through the client's own ApiClient (kubeconfig, auth, TLS, proxies) the way its
DynamicClient does, but with a fixed table of the resources gpuctl uses instead of discovery,
and with JSON decoded straight to dicts by orjson (the typed models cost ~1 ms an object; the
standard json module takes three times orjson's time over a 2,000-pod Table; an object holding
a number orjson cannot read is left out of its list, see gpuctl.cluster.decoding). `list_table`
asks for what `kubectl get` asks for: the server's printed Table, cells and metadata only.

Errors become the small exceptions below, in plain words. Only what is safe is retried, with
exponential backoff and jitter: reads on connection errors, 429 and 5xx; writes only when the
request cannot have reached the server (connection refused) or the server said 429.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import urllib3

from gpuctl import constants as c
from gpuctl.cluster import decoding
from gpuctl.cluster.decoding import UnreadableObject
from gpuctl.cluster.errors import (
    AlreadyExists,
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    KubeError,
    NotFound,
    ServerError,
    Unreachable,
    _error,
)
from gpuctl.cluster.resources import (
    RESOURCES,
    Resource,
    at_version,
    clean,
    kueue_version,
    ref,
    resource,
)
from gpuctl.errors import GpuctlError

__all__ = [
    "RESOURCES",
    "AlreadyExists",
    "Cluster",
    "Conflict",
    "ExecResult",
    "ExecTimeout",
    "Forbidden",
    "Gone",
    "Invalid",
    "KubeError",
    "NotFound",
    "Resource",
    "ServerError",
    "Unreachable",
    "UnreadableObject",
    "clean",
    "ref",
    "resource",
]


def _kubernetes_without_extras() -> None:
    """Let the `kubernetes` package's config and client load without its __init__, which also
    imports the dynamic client (and through it kubernetes_validate and jsonschema), watch,
    stream, leaderelection and informer: a fifth of the package's import time, on every
    command, for modules gpuctl never uses. The package module is made as the import system
    makes it, only its __init__ waits until something asks the package for a name it has not
    loaded yet (PEP 562 module __getattr__), so `import kubernetes` elsewhere still works."""
    if "kubernetes" in sys.modules:
        return
    spec = importlib.util.find_spec("kubernetes")
    if spec is None or spec.loader is None:
        return  # not installed: the imports below say so
    package = importlib.util.module_from_spec(spec)
    loader, pending = spec.loader, [True]

    def load_the_rest(name: str) -> Any:
        if pending:
            pending.clear()
            loader.exec_module(package)
            if name in vars(package):
                return vars(package)[name]
        raise AttributeError(f"module 'kubernetes' has no attribute {name!r}")

    package.__getattr__ = load_the_rest  # type: ignore[method-assign]
    sys.modules["kubernetes"] = package


_kubernetes_without_extras()

from kubernetes.client.api_client import ApiClient  # noqa: E402
from kubernetes.client.configuration import Configuration  # noqa: E402
from kubernetes.config import kube_config  # noqa: E402
from kubernetes.config.config_exception import ConfigException  # noqa: E402
from kubernetes.config.incluster_config import load_incluster_config  # noqa: E402

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 30.0  # for one answer (`serve --cluster-timeout` sets its own)
WATCH_GRACE = 5.0  # a watch's read time-out: its server-side timeoutSeconds and this
EXEC_TIMEOUT = 3600.0  # a copy of a large directory may take long
ERROR_CHANNEL = 3  # the exec stream channel that carries the closing Status
ATTEMPTS = 4  # one try and three retries
BACKOFF = 0.2  # seconds, doubled each retry, with full jitter
PAGE_SIZE = 500  # objects a list page: kubectl's --chunk-size
# How long an answer of API discovery (which versions of a group are served) is kept, per
# connection: a command asks once; a long-lived server or controller sees Kueue installed,
# upgraded or removed within this time.
DISCOVERY_TTL = 60.0


# ---------------------------------------------------------------------------- kubeconfig


class KubeconfigError(GpuctlError):
    """The kubeconfig cannot be used: missing, malformed, or without the context asked for."""


_NOT_A_KUBECONFIG = "not a kubeconfig (expected a mapping with clusters, users and contexts)"
_NO_CONFIG_HINT = "set KUBECONFIG or --kubeconfig, or start a simulated cluster: gpuctl sandbox up"


def _kubeconfig_path(kubeconfig: str | None) -> str:
    return kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"


def _chosen_context(path: str, context: str | None) -> tuple[str, dict[str, Any]]:
    """(the file names as shown, the kubeconfig entry of `context`, else of current-context),
    or a KubeconfigError saying why there is none."""
    files = [os.path.expanduser(part) for part in path.split(os.pathsep) if part]
    shown = ", ".join(files) or path
    if not any(os.path.exists(name) for name in files):
        raise KubeconfigError(f"{shown}: no such file ({_NO_CONFIG_HINT})")
    contexts, active = _read_contexts(path, shown)
    names = [str(item.get("name")) for item in contexts]
    listed = f"contexts: {', '.join(names)}" if names else "it has no contexts"
    if context is not None and context not in names:
        raise KubeconfigError(f"{shown}: no context named {context!r} ({listed})")
    if context is None and not active:
        raise KubeconfigError(
            f"{shown}: its current-context names no context (give --context; {listed})"
        )
    return shown, next((item for item in contexts if item.get("name") == context), active) or {}


def context_name(kubeconfig: str | None = None, context: str | None = None) -> str:
    """The name of the kubeconfig context `Cluster.connect(kubeconfig, context)` would use:
    `context` when it exists there, else the current-context (KubeconfigError otherwise)."""
    return str(_chosen_context(_kubeconfig_path(kubeconfig), context)[1].get("name"))


def _load_kubeconfig(path: str, context: str | None, config: Configuration) -> tuple[str, str]:
    """Fill `config` from the kubeconfig file(s) at `path` (KUBECONFIG's list separator
    allowed) and the context; (that context's name, the namespace it names, "default" when
    none)."""
    shown, chosen = _chosen_context(path, context)
    try:
        kube_config.load_kube_config(config_file=path, context=context, client_configuration=config)
    except (ConfigException, OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise KubeconfigError(
            f"{shown}: context {chosen.get('name')!r} cannot be used: {_one_line(exc)}"
        ) from exc
    return str(chosen.get("name")), str((chosen.get("context") or {}).get("namespace") or "default")


def _read_contexts(path: str, shown: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The contexts of a kubeconfig (its files merged) and its current one, or a
    KubeconfigError saying why it cannot be read."""
    import yaml

    KubeConfigMerger = kube_config.KubeConfigMerger

    try:
        merged = KubeConfigMerger(path).config
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{mark.name}:{mark.line + 1}:{mark.column + 1}" if mark else shown
        raise KubeconfigError(f"{where}: not valid YAML: {exc.problem}") from exc
    except yaml.YAMLError as exc:
        raise KubeconfigError(f"{shown}: not valid YAML: {_one_line(exc)}") from exc
    except OSError as exc:
        raise KubeconfigError(f"{shown}: cannot read: {exc.strerror or exc}") from exc
    except ConfigException as exc:
        raise KubeconfigError(f"{shown}: not a usable kubeconfig: {_one_line(exc)}") from exc
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise KubeconfigError(f"{shown}: {_NOT_A_KUBECONFIG}") from exc
    value = merged.value if merged is not None else None
    listed = value.get("contexts") if isinstance(value, dict) else None
    # each merged entry is the client's ConfigNode (the entry in `.value`, its file in `.name`)
    entries = [getattr(c, "value", c) for c in listed] if isinstance(listed, list) else [None]
    contexts: list[dict[str, Any]] = [c for c in entries if isinstance(c, dict)]
    if not isinstance(value, dict) or len(contexts) != len(entries):
        raise KubeconfigError(f"{shown}: {_NOT_A_KUBECONFIG}")
    current = value.get("current-context")
    active = next((c for c in contexts if current and c.get("name") == current), None)
    return contexts, active


def _one_line(exc: BaseException) -> str:
    """The client's message on one line, without its "Invalid kube-config file." preamble."""
    text = " ".join(str(exc).split())
    for preamble in ("Invalid kube-config file. ", "Invalid kube-config. "):
        text = text.removeprefix(preamble)
    return text or type(exc).__name__


# ------------------------------------------------------------------------------ cluster


# kubectl's Accept header for `get`: a meta.k8s.io/v1 Table, else the plain list.
TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json"


class TableRow(NamedTuple):  # a tuple: made by the thousand, cheaper than a frozen dataclass
    """One object of a printed list: the server's cells by column name (Name, Ready, Status...)
    and `object`, {kind, metadata}; or, from a server that prints no Tables, cells None and the
    whole object."""

    cells: dict[str, Any] | None
    object: dict[str, Any]


TableRows = list[TableRow]
Query = list[tuple[str, str]]
Pages = list[dict[str, Any]]  # a list request's answers, one a page
Listed = tuple[list[dict[str, Any]], str]  # objects and the list's resourceVersion


def _objects(page: dict[str, Any], kind: str, res: Resource) -> list[dict[str, Any]]:
    """A list page's items, each with its kind and apiVersion (list items leave them out)."""
    items: list[dict[str, Any]] = page.get("items") or []
    for item in items:
        item.setdefault("kind", kind)
        item.setdefault("apiVersion", res.api_version)
    return items


def _backoff(attempt: int) -> float:
    return random.uniform(0, BACKOFF * (2**attempt))  # full jitter (AWS architecture blog)


class Discovery:
    """Answers of API discovery, each with when it was read (time.monotonic): one per
    connection, shared with its impersonating copies (discovery is the same for everyone)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.groups: dict[str, tuple[float, tuple[str, ...]]] = {}

    def held(self, group: str) -> tuple[str, ...] | None:
        with self.lock:
            found = self.groups.get(group)
        if found is None or time.monotonic() - found[0] >= DISCOVERY_TTL:
            return None
        return found[1]

    def keep(self, group: str, versions: tuple[str, ...]) -> None:
        with self.lock:
            self.groups[group] = (time.monotonic(), versions)


class Cluster:
    """A connection to one cluster, the namespace its kubeconfig context names, and that
    context's name (None for a pod's service account)."""

    def __init__(
        self,
        api: ApiClient,
        namespace: str,
        server: str,
        read_timeout: float = READ_TIMEOUT,
        context: str | None = None,
    ) -> None:
        self.api = api
        self.namespace = namespace
        self.server = server
        self.read_timeout = read_timeout  # for one answer; watches add their own duration
        self.context = context
        self.impersonation: tuple[tuple[str, str], ...] = ()  # headers sent with every request
        self.discovery = Discovery()

    def impersonating(self, user: str, groups: Sequence[str] = ()) -> Cluster:
        """This connection (its credentials and connection pool), with every request made as
        `user` in `groups` (Kubernetes user impersonation: `Impersonate-User`, and one
        `Impersonate-Group` header per group), so the cluster's RBAC decides for them. The
        credentials need the `impersonate` verb on users and groups (and serviceaccounts)."""
        other = Cluster(self.api, self.namespace, self.server, self.read_timeout, self.context)
        other.discovery = self.discovery
        other.impersonation = (
            ("Impersonate-User", user),
            *(("Impersonate-Group", group) for group in groups),
        )
        return other

    @classmethod
    def connect(
        cls,
        kubeconfig: str | None = None,
        context: str | None = None,
        read_timeout: float = READ_TIMEOUT,
    ) -> Cluster:
        """Load credentials the kubectl way: --kubeconfig, KUBECONFIG (several files merge),
        ~/.kube/config, else the pod's service account when running in a cluster.

        A kubeconfig that is missing, malformed or without the context asked for is a
        KubeconfigError naming the file (and the contexts it has)."""
        config = Configuration()
        chosen = None
        if kubeconfig or context or not _in_cluster():
            chosen, namespace = _load_kubeconfig(_kubeconfig_path(kubeconfig), context, config)
        else:
            try:
                load_incluster_config(client_configuration=config)
                with open("/var/run/secrets/kubernetes.io/serviceaccount/namespace") as handle:
                    namespace = handle.read().strip() or "default"
            except (ConfigException, OSError) as exc:
                raise KubeconfigError(f"the pod's service account cannot be used: {exc}") from exc
        config.retries = urllib3.Retry(total=0, redirect=0, raise_on_status=False)
        config.connection_pool_maxsize = 16
        return cls(ApiClient(config), namespace, config.host, read_timeout, chosen)

    # -- plumbing -----------------------------------------------------------------------

    def _send(
        self,
        method: str,
        path: str,
        what: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        stream: bool = False,
        read_timeout: float | None = None,
        accept: str = "application/json",
        kind: str = "",
    ) -> Any:
        """One request with the retry policy; the decoded JSON (or the raw stream). An object
        holding a number gpuctl cannot read is left out of a list (of `kind` objects) with a
        warning, and is the error UnreadableObject as a whole answer (gpuctl.cluster.decoding)."""
        safe_to_repeat = method == "GET"
        for attempt in range(ATTEMPTS):
            try:
                response = self._request(
                    method,
                    path,
                    query,
                    body,
                    (accept, content_type),
                    read_timeout or self.read_timeout,
                )
            except urllib3.exceptions.HTTPError as exc:
                # a time-out is never repeated: a server that did not answer in time (frozen,
                # or overloaded) is reported at once rather than after every retry's wait
                repeat = (safe_to_repeat and not _timed_out(exc)) or _refused(exc)
                if repeat and attempt + 1 < ATTEMPTS:
                    time.sleep(_backoff(attempt))
                    continue
                raise _unreachable(self.server, what, exc) from exc
            status = response.status
            if 200 <= status < 300:
                if stream:
                    return response
                data = response.data
                return decoding.loads(data, kind) if data else {}
            body_bytes = response.data
            retry = status == 429 or (safe_to_repeat and status >= 500)
            retry = retry and b"ResourceVersionTooLarge" not in body_bytes  # asking again: the same
            if retry and attempt + 1 < ATTEMPTS:
                delay = _retry_after(response) or _backoff(attempt)
                time.sleep(delay)
                continue
            raise _error(status, body_bytes, what)
        raise AssertionError("unreachable")  # pragma: no cover

    def _request(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]] | None,
        body: Any,
        media_types: tuple[str, str],
        read_timeout: float,
    ) -> urllib3.BaseHTTPResponse:
        """`media_types`: what the answer may be (Accept) and what the body is (Content-Type)."""
        headers = {"Accept": media_types[0], "Content-Type": media_types[1]}
        verb, url, serialized, payload, form = self.api.param_serialize(
            method,
            path,
            query_params=query or [],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        sent: Mapping[str, str] = serialized
        if self.impersonation:  # a header given more than once: urllib3's multi-valued dict
            several = urllib3.HTTPHeaderDict(serialized)
            for name, value in self.impersonation:
                several.add(name, value)
            sent = several
        response = self.api.call_api(
            verb, url, sent, payload, form, _request_timeout=(CONNECT_TIMEOUT, read_timeout)
        )
        raw: urllib3.BaseHTTPResponse = response.response
        return raw

    # -- discovery ----------------------------------------------------------------------

    def served_versions(self, group: str) -> tuple[str, ...]:
        """The versions of API group `group` the cluster serves (`GET /apis/<group>`, an
        APIGroup); () where the group is not served. Kept DISCOVERY_TTL seconds."""
        held = self.discovery.held(group)
        if held is not None:
            return held
        try:
            answer = self._send("GET", f"/apis/{group}", f"API group {group}")
        except NotFound:
            versions: tuple[str, ...] = ()
        else:
            listed = answer.get("versions") or []
            versions = tuple(str(entry.get("version") or "") for entry in listed)
        self.discovery.keep(group, versions)
        return versions

    def _resource(self, kind: str) -> Resource:
        """The resource of `kind` as this cluster serves it: Kueue's at the version its
        discovery prefers (constants.KUEUE_VERSIONS); where discovery is refused or Kueue is
        not served, the table's (a request then answers as the cluster does: NotFound)."""
        res = resource(kind)
        if res.group != c.KUEUE_GROUP:
            return res
        try:
            version = kueue_version(self.served_versions(res.group))
        except Forbidden:
            version = None
        return at_version(res, version) if version else res

    # -- verbs --------------------------------------------------------------------------

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        res = self._resource(kind)
        result: dict[str, Any] = self._send("GET", res.path(namespace, name), ref(kind, name))
        return result

    def find(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        """The object, or None when it does not exist."""
        try:
            return self.get(kind, name, namespace)
        except NotFound:
            return None

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every matching object (all namespaces when `namespace` is None), page by page."""
        return self.list_versioned(
            kind, namespace, label_selector=label_selector, field_selector=field_selector
        )[0]

    def list_versioned(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Listed:
        """The list and its resourceVersion (the snapshot its pages were taken from), where a
        watch of the same objects starts so that it misses no change."""
        res = self._resource(kind)
        items: list[dict[str, Any]] = []
        pages = self._pages(res, namespace, label_selector, field_selector, kind=kind)
        for page in pages:
            items += _objects(page, kind, res)
        version = str((pages[0].get("metadata") or {}).get("resourceVersion") or "")
        return items, version

    def current_version(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> str:
        """The resourceVersion a list of these objects would be at now, from a list of at most
        one object (a cheap sign of life, and of which cluster answers)."""
        res = self._resource(kind)
        query: Query = [("limit", "1")]
        if label_selector:
            query.append(("labelSelector", label_selector))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        page = self._send("GET", res.path(namespace), res.plural, query=query)
        return str((page.get("metadata") or {}).get("resourceVersion") or "")

    def list_table(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
    ) -> TableRows:
        """Every matching object as the server prints it for `kubectl get`: a Table of cells
        by column name, with only each object's metadata (includeObject=Metadata), a fraction
        of the objects' size. A server that answers with a plain list (no Table printing) gives
        rows without cells, carrying the whole objects instead, as kubectl then prints them."""
        res = self._resource(kind)
        rows: TableRows = []
        pages = self._pages(
            res,
            namespace,
            label_selector,
            None,
            accept=TABLE_ACCEPT,
            extra=[("includeObject", "Metadata")],
            kind=kind,
        )
        for page in pages:
            if page.get("kind") != "Table":
                rows += [TableRow(None, item) for item in _objects(page, kind, res)]
                continue
            names = [column["name"] for column in page.get("columnDefinitions") or []]
            for row in page.get("rows") or []:
                cells = dict(zip(names, row.get("cells") or [], strict=False))
                metadata = (row.get("object") or {}).get("metadata") or {}
                rows.append(TableRow(cells, {"kind": kind, "metadata": metadata}))
        return rows

    def _pages(
        self,
        res: Resource,
        namespace: str | None,
        label_selector: str | None,
        field_selector: str | None,
        *,
        accept: str = "application/json",
        extra: Query | None = None,
        kind: str = "",
    ) -> Pages:
        """A list request's answers, PAGE_SIZE objects a page (kubectl's chunk size), all from
        the snapshot of the first page. When the server has compacted that snapshot away before
        the last page (410 Gone on a continue token) the list is asked for again in one piece,
        as client-go's pager does."""
        query = [*(extra or [])]
        if label_selector:
            query.append(("labelSelector", label_selector))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        pages: Pages = []
        token = ""
        while True:
            paging = [("limit", str(PAGE_SIZE))] + ([("continue", token)] if token else [])
            try:
                page = self._send(
                    "GET",
                    res.path(namespace),
                    res.plural,
                    query=query + paging,
                    accept=accept,
                    kind=kind,
                )
            except Gone:
                if not token:
                    raise
                whole = self._send(
                    "GET", res.path(namespace), res.plural, query=query, accept=accept, kind=kind
                )
                return [whole]
            pages.append(page)
            token = (page.get("metadata") or {}).get("continue") or ""
            if not token:
                return pages

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        res, namespace, name = self._locate(obj)
        query = [("dryRun", "All")] if dry_run else []
        result: dict[str, Any] = self._send(
            "POST", res.path(namespace), ref(obj["kind"], name), query=query, body=obj
        )
        return result

    def replace(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """PUT: needs metadata.resourceVersion; a stale one is a Conflict."""
        res, namespace, name = self._locate(obj)
        query = [("dryRun", "All")] if dry_run else []
        result: dict[str, Any] = self._send(
            "PUT", res.path(namespace, name), ref(obj["kind"], name), query=query, body=obj
        )
        return result

    def patch(
        self,
        kind: str,
        name: str,
        namespace: str | None,
        patch: Any,
        *,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> dict[str, Any]:
        """PATCH the object, or its `subresource` (such as "status") when given."""
        content_type = {
            "merge": "application/merge-patch+json",
            "strategic": "application/strategic-merge-patch+json",
            "json": "application/json-patch+json",
        }[patch_type]
        result: dict[str, Any] = self._send(
            "PATCH",
            self._resource(kind).path(namespace, name) + (f"/{subresource}" if subresource else ""),
            ref(kind, name),
            body=patch,
            content_type=content_type,
        )
        return result

    def patch_status(
        self, kind: str, name: str, namespace: str | None, status: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A merge patch of the object's status subresource."""
        return self.patch(kind, name, namespace, {"status": status}, subresource="status")

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
        return self.patch(
            kind, name, namespace, patch, patch_type=patch_type, subresource=subresource
        )

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
        """Ask for deletion; foreground propagation keeps the object until its pods are gone."""
        body: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "DeleteOptions",
            "propagationPolicy": propagation,
        }
        if grace_period is not None:
            body["gracePeriodSeconds"] = grace_period
        if dry_run:
            body["dryRun"] = ["All"]
        with contextlib.suppress(UnreadableObject):  # the answer (the object) is not needed
            self._send(
                "DELETE", self._resource(kind).path(namespace, name), ref(kind, name), body=body
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
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """(type, object) events from `resource_version` on, until the server ends the watch."""
        res = self._resource(kind)
        query = [
            ("watch", "true"),
            ("resourceVersion", resource_version),
            ("allowWatchBookmarks", "true"),
            ("timeoutSeconds", str(timeout_seconds)),
        ]
        if field_selector:
            query.append(("fieldSelector", field_selector))
        if label_selector:
            query.append(("labelSelector", label_selector))
        response = self._send(
            "GET",
            res.path(namespace),
            f"watch {res.plural}",
            query=query,
            stream=True,
            read_timeout=timeout_seconds + WATCH_GRACE,
        )
        try:
            buffer = b""
            for chunk in response.stream(4096, decode_content=True):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if not line.strip():
                        continue
                    event = decoding.watch_event(line)
                    if event.get("type") == "ERROR":
                        status = event.get("object") or {}
                        raise _error(
                            int(status.get("code") or 500),
                            json.dumps(status).encode(),
                            f"watch {res.plural}",
                        )
                    yield event["type"], event["object"]
        except urllib3.exceptions.HTTPError as exc:
            raise _unreachable(self.server, f"watch {res.plural}", exc) from exc
        finally:
            response.release_conn()

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
    ) -> Iterator[str]:
        """A pod's log lines (without line ends); with `follow`, until the container stops or
        `ends` is ended (from any thread); with `previous`, those of the container's instance
        before its last restart; with `limit_bytes`, no more than that many bytes (the last
        line may be cut); with `timestamps`, each line begins with the time it was written
        (RFC 3339) and a space. A reader that stops early closes the connection."""
        query: list[tuple[str, str]] = []
        if container:
            query.append(("container", container))
        if tail is not None:
            query.append(("tailLines", str(tail)))
        if since_seconds is not None:
            query.append(("sinceSeconds", str(since_seconds)))
        if follow:
            query.append(("follow", "true"))
        if previous:
            query.append(("previous", "true"))
        if limit_bytes is not None:
            query.append(("limitBytes", str(limit_bytes)))
        if timestamps:
            query.append(("timestamps", "true"))
        path = resource("Pod").path(namespace, pod) + "/log"
        response = self._send(
            "GET",
            path,
            ref("Pod", pod),
            query=query,
            stream=True,
            # a followed log may stay quiet for long: no read timeout then
            read_timeout=24 * 3600 if follow else None,
        )
        if ends is not None:
            ends.add(response)
        whole = False
        try:
            buffer = b""
            for chunk in response.stream(4096, decode_content=True):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    yield line.decode("utf-8", "replace")
            if buffer:
                yield buffer.decode("utf-8", "replace")
            whole = True
        except urllib3.exceptions.HTTPError as exc:
            raise _unreachable(self.server, ref("Pod", pod), exc) from exc
        finally:
            if not whole:  # the rest unread: the connection cannot serve another request
                response.close()
            response.release_conn()

    def exec(
        self,
        pod: str,
        namespace: str,
        command: Sequence[str],
        *,
        container: str | None = None,
        stdin: Iterable[bytes] | None = None,
        timeout: float = EXEC_TIMEOUT,
    ) -> ExecResult:
        """Run `command` in a pod's container over the exec stream (WebSocket, the channel
        protocol kubectl uses), feeding it `stdin` and collecting stdout and stderr as bytes.

        stdin is closed when fed (protocol v5; on v4 servers the command must stop by itself,
        as tar does at the end-of-archive blocks). Raises KubeError when the server refuses.
        """
        from kubernetes.client.api.core_v1_api import CoreV1Api
        from kubernetes.client.exceptions import ApiException
        from kubernetes.stream import stream

        what = ref("Pod", pod)
        if self.impersonation:  # the exec stream is the client's own: it sends no such headers
            raise GpuctlError(f"{what}: exec cannot be made on behalf of another user")
        try:
            client = stream(
                CoreV1Api(self.api).connect_get_namespaced_pod_exec,
                pod,
                namespace,
                command=list(command),
                container=container or "",
                stdin=stdin is not None,
                stdout=True,
                stderr=True,
                tty=False,
                binary=True,
                _preload_content=False,
            )
        except ApiException as exc:
            raise _exec_error(exc.status, exc.body, str(exc.reason), what) from exc
        except (OSError, ValueError) as exc:  # websocket handshake failures
            raise _unreachable(self.server, what, exc) from exc
        return _drive(client, stdin, timeout, what)

    def _locate(self, obj: dict[str, Any]) -> tuple[Resource, str | None, str]:
        """Where an object is written: at the version its apiVersion names (a Kueue object
        rendered for this cluster names the version its discovery prefers)."""
        res = resource(obj["kind"])
        group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
        if group == res.group and version and version != res.version:
            res = at_version(res, version)
        metadata = obj.get("metadata") or {}
        namespace = metadata.get("namespace") if res.namespaced else None
        return res, namespace, str(metadata.get("name", ""))


class LogEnds:
    """Open log streams that another thread may end: a followed pod that writes nothing
    otherwise holds its reader (a thread and a connection) until it writes. `end()` shuts each
    stream's socket for reading, so a blocked read returns at once; a stream added later is
    shut as it is added."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: list[urllib3.BaseHTTPResponse] = []
        self.ended = False

    def add(self, response: urllib3.BaseHTTPResponse) -> None:
        with self._lock:
            self._open.append(response)
            if not self.ended:
                return
        _shut(response)

    def end(self) -> None:
        with self._lock:
            self.ended = True
            responses, self._open = self._open, []
        for response in responses:
            _shut(response)


def _shut(response: urllib3.BaseHTTPResponse) -> None:
    # released or closed already: nothing reads from it
    with contextlib.suppress(ValueError, RuntimeError, OSError, NotImplementedError):
        response.shutdown()


@dataclass
class ExecResult:
    stdout: bytes
    stderr: bytes
    returncode: int
    failure: str = ""  # why the command failed when it gave no exit code (see exit_status)


class ExecTimeout(KubeError):
    pass


def _exec_error(status: int | None, body: Any, reason: str, what: str) -> KubeError:
    """The websocket client reports a refused handshake as status 0 with the HTTP status in
    its reason ("Handshake status 404 Not Found -+-+- {headers}"): recover the status."""
    found = re.search(r"Handshake status (\d{3})", reason)
    code = status or (int(found.group(1)) if found else 0)
    if isinstance(body, bytes) and body:
        return _error(code, body, what)
    words = reason.split(" -+-+- ", 1)[0]
    return _error(code, f"{what}: exec refused ({words})".encode(), what)


def _drive(client: Any, stdin: Iterable[bytes] | None, timeout: float, what: str) -> ExecResult:
    """Feed stdin, then read stdout and stderr until the command ends or `timeout` passes."""
    out, err = bytearray(), bytearray()

    def drain() -> None:
        if client.peek_stdout():
            out.extend(client.read_stdout())
        if client.peek_stderr():
            err.extend(client.read_stderr())

    deadline = time.monotonic() + timeout
    try:
        cut = not _feed(client, stdin, drain)
        while client.is_open():
            if time.monotonic() > deadline:
                raise ExecTimeout(f"{what}: the command did not finish within {timeout:g}s")
            client.update(timeout=1)
            drain()
        drain()
        status = client.read_channel(ERROR_CHANNEL)
        code, failure = exit_status(status)
        if cut and not status.strip():
            code, failure = 1, "the exec stream closed before the command's exit status came"
    finally:
        client.close()
    return ExecResult(bytes(out), bytes(err), code, failure)


def _feed(client: Any, stdin: Iterable[bytes] | None, drain: Callable[[], None]) -> bool:
    """Send `stdin`, then close it; False when the stream closed first. A command may end
    before it has read all of it (tar stops at the end-of-archive blocks, before the padding
    of the last record): the server then closes the stream while we write, and what the
    command wrote and its status still tell how it went."""
    from websocket import WebSocketConnectionClosedException

    try:
        for chunk in stdin or ():
            client.write_stdin(chunk)
            client.update(timeout=0)
            drain()
        if stdin is not None:
            client.close_channel(0)
    except (WebSocketConnectionClosedException, BrokenPipeError, ConnectionResetError):
        return False
    return True


def exit_status(error_channel: str) -> tuple[int, str]:
    """(exit code, failure) from the exec stream's closing Status. A command that ran and
    exited non-zero is `NonZeroExitCode` with an `ExitCode` cause; any other Failure (the
    command could not start, the runtime failed) has no exit code: 1, with the Status's
    message. (The client's own `returncode` assumes the first cause is always an exit code
    and raises on the rest.)"""
    try:
        status = json.loads(error_channel) if error_channel.strip() else {}
    except ValueError:
        return 1, error_channel.strip()
    if not isinstance(status, dict) or status.get("status", "Success") == "Success":
        return 0, ""
    for cause in (status.get("details") or {}).get("causes") or []:
        if cause.get("reason") == "ExitCode":
            try:
                return int(cause.get("message", "")), ""
            except ValueError:
                break
    return 1, str(status.get("message") or "the command failed")


def _in_cluster() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and not os.path.exists(
        os.path.expanduser("~/.kube/config")
    )


def _refused(exc: Exception) -> bool:
    """True when the request cannot have reached the server."""
    text = repr(exc)
    return isinstance(exc, urllib3.exceptions.NewConnectionError) or "Connection refused" in text


def _timed_out(exc: Exception) -> bool:
    """True when the server did not answer (or accept the connection) in time."""
    if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason is not None:
        exc = exc.reason
    timed_out = isinstance(exc, urllib3.exceptions.TimeoutError)
    return timed_out and not isinstance(exc, urllib3.exceptions.NewConnectionError)


def _unreachable(server: str, what: str, exc: Exception) -> Unreachable:
    if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason is not None:
        exc = exc.reason  # retries are ours, not urllib3's: say what actually went wrong
    if _refused(exc):
        detail = "connection refused (is the cluster running? try `gpuctl sandbox status`)"
    elif isinstance(exc, urllib3.exceptions.ReadTimeoutError | urllib3.exceptions.TimeoutError):
        detail = "timed out waiting for an answer"
    else:
        detail = f"the connection failed ({type(exc).__name__})"
    return Unreachable(f"cannot reach the cluster at {server}: {detail}")


def _retry_after(response: urllib3.BaseHTTPResponse) -> float:
    try:
        return min(float(response.headers.get("Retry-After", "")), 10.0)
    except ValueError:
        return 0.0
