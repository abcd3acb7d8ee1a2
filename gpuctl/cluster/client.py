"""The one module that talks to the Kubernetes API (through the official `kubernetes` client).

Small and kubectl-shaped: get, list, create, replace, patch, delete, watch, on plain dicts.
Requests go through the client's own ApiClient (kubeconfig, auth, TLS, proxies) the way its
DynamicClient does, but with a fixed table of the resources gpuctl uses instead of discovery,
and with JSON decoded straight to dicts (the typed models cost ~1 ms an object).

Errors become the small exceptions below, in plain words. Only what is safe is retried, with
exponential backoff and jitter: reads on connection errors, 429 and 5xx; writes only when the
request cannot have reached the server (connection refused) or the server said 429.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import kubernetes.config
import urllib3
from kubernetes.client import ApiClient, Configuration
from kubernetes.config.config_exception import ConfigException

from gpuctl.errors import GpuctlError

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 30.0
ATTEMPTS = 4  # one try and three retries
BACKOFF = 0.2  # seconds, doubled each retry, with full jitter


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    plural: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{self.plural}"
        if name is not None:
            base += f"/{quote(name, safe='')}"
        return base


RESOURCES: dict[str, Resource] = {
    "Namespace": Resource("", "v1", "namespaces", False),
    "Node": Resource("", "v1", "nodes", False),
    "Pod": Resource("", "v1", "pods", True),
    "Service": Resource("", "v1", "services", True),
    "ConfigMap": Resource("", "v1", "configmaps", True),
    "Secret": Resource("", "v1", "secrets", True),
    "ResourceQuota": Resource("", "v1", "resourcequotas", True),
    "Event": Resource("", "v1", "events", True),
    "Job": Resource("batch", "v1", "jobs", True),
    "Deployment": Resource("apps", "v1", "deployments", True),
    "ReplicaSet": Resource("apps", "v1", "replicasets", True),
    "StatefulSet": Resource("apps", "v1", "statefulsets", True),
    "HorizontalPodAutoscaler": Resource("autoscaling", "v2", "horizontalpodautoscalers", True),
    "PriorityClass": Resource("scheduling.k8s.io", "v1", "priorityclasses", False),
}


def resource(kind: str) -> Resource:
    try:
        return RESOURCES[kind]
    except KeyError:
        raise GpuctlError(f"gpuctl does not handle objects of kind {kind}") from None


def ref(kind: str, name: str) -> str:
    """kubectl's name for an object: `job.batch/x`, `service/svc-x`."""
    group = RESOURCES[kind].group if kind in RESOURCES else ""
    return f"{kind.lower()}{'.' + group if group else ''}/{name}"


# ------------------------------------------------------------------------------- errors


class KubeError(GpuctlError):
    """The cluster refused or failed a request."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        reason: str = "",
        causes: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.causes = causes or []


class NotFound(KubeError):
    pass


class AlreadyExists(KubeError):
    pass


class Conflict(KubeError):
    """Optimistic concurrency: the object changed since it was read."""


class Forbidden(KubeError):
    """RBAC, an exceeded quota, or a terminating namespace."""


class Invalid(KubeError):
    """The server's validation refused the object (field errors in `causes`)."""

    @property
    def immutable(self) -> bool:
        text = self.args[0] + " ".join(str(c.get("message", "")) for c in self.causes)
        return "field is immutable" in text or ("updates to" in text and "are forbidden" in text)


class Gone(KubeError):
    """410: a watch's resourceVersion is too old."""


class ServerError(KubeError):
    """5xx, 429 or an unexpected status."""


class Unreachable(KubeError):
    """No answer: connection refused, reset, dropped, or timed out."""


_BY_REASON: dict[str, type[KubeError]] = {
    "NotFound": NotFound,
    "AlreadyExists": AlreadyExists,
    "Conflict": Conflict,
    "Forbidden": Forbidden,
    "Invalid": Invalid,
    "Gone": Gone,
    "Expired": Gone,
}
_BY_STATUS: dict[int, type[KubeError]] = {
    404: NotFound,
    403: Forbidden,
    401: Forbidden,
    422: Invalid,
    410: Gone,
}


def _error(status: int, body: bytes, what: str) -> KubeError:
    """The exception for an error response, worded for a person."""
    try:
        data = json.loads(body)
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    reason = str(data.get("reason") or "")
    message = str(data.get("message") or body[:200].decode("utf-8", "replace") or f"HTTP {status}")
    causes = list((data.get("details") or {}).get("causes") or [])
    if reason == "AlreadyExists" or (status == 409 and "already exists" in message):
        cls: type[KubeError] = AlreadyExists
    elif status == 409:
        cls = Conflict
    else:
        cls = _BY_REASON.get(reason) or _BY_STATUS.get(status) or ServerError
    # Callers name the object; the message says what happened to it.
    if cls is Forbidden and "exceeded quota" in message:
        message = f"over quota: {message}"
    elif cls is Forbidden and status == 401:
        message = "not authorised (401): check the credentials in your kubeconfig"
    elif cls is Invalid and causes:
        fields = "; ".join(f"{c.get('field', '?')}: {c.get('message', '')}" for c in causes)
        message = f"invalid: {fields}"
    elif cls is ServerError:
        message = f"the cluster answered {status}: {message}"
    return cls(message, status=status, reason=reason, causes=causes)


# ------------------------------------------------------------------------------ cluster


def _backoff(attempt: int) -> float:
    return random.uniform(0, BACKOFF * (2**attempt))  # full jitter (AWS architecture blog)


class Cluster:
    """A connection to one cluster, and the namespace its kubeconfig context names."""

    def __init__(
        self, api: ApiClient, namespace: str, server: str, read_timeout: float = READ_TIMEOUT
    ) -> None:
        self.api = api
        self.namespace = namespace
        self.server = server
        self.read_timeout = read_timeout  # for one answer; watches add their own duration

    @classmethod
    def connect(
        cls,
        kubeconfig: str | None = None,
        context: str | None = None,
        read_timeout: float = READ_TIMEOUT,
    ) -> Cluster:
        """Load credentials the kubectl way: --kubeconfig, KUBECONFIG (several files merge),
        ~/.kube/config, else the pod's service account when running in a cluster."""
        config = Configuration()
        namespace = "default"
        try:
            if kubeconfig or context or not _in_cluster():
                path = kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
                kubernetes.config.load_kube_config(
                    config_file=path, context=context, client_configuration=config
                )
                contexts, active = kubernetes.config.list_kube_config_contexts(path)
                chosen = next((c for c in contexts if c["name"] == context), active)
                namespace = (chosen or {}).get("context", {}).get("namespace") or "default"
            else:
                kubernetes.config.load_incluster_config(client_configuration=config)
                with open("/var/run/secrets/kubernetes.io/serviceaccount/namespace") as handle:
                    namespace = handle.read().strip() or "default"
        except (ConfigException, OSError) as exc:
            raise GpuctlError(
                f"no usable cluster configuration: {exc}; set KUBECONFIG or --kubeconfig, "
                "or start a simulated cluster with `gpuctl sandbox up`"
            ) from exc
        config.retries = urllib3.Retry(total=0, redirect=0, raise_on_status=False)
        config.connection_pool_maxsize = 16
        return cls(ApiClient(config), namespace, config.host, read_timeout)

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
    ) -> Any:
        """One request with the retry policy; the decoded JSON (or the raw stream)."""
        safe_to_repeat = method == "GET"
        for attempt in range(ATTEMPTS):
            try:
                response = self._request(
                    method, path, query, body, content_type, read_timeout or self.read_timeout
                )
            except urllib3.exceptions.HTTPError as exc:
                refused = _refused(exc)
                if (safe_to_repeat or refused) and attempt + 1 < ATTEMPTS:
                    time.sleep(_backoff(attempt))
                    continue
                raise _unreachable(self.server, what, exc) from exc
            status = response.status
            if 200 <= status < 300:
                if stream:
                    return response
                data = response.data
                return json.loads(data) if data else {}
            body_bytes = response.data
            retry = status == 429 or (safe_to_repeat and status >= 500)
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
        content_type: str,
        read_timeout: float,
    ) -> urllib3.BaseHTTPResponse:
        headers = {"Accept": "application/json", "Content-Type": content_type}
        serialized = self.api.param_serialize(
            method,
            path,
            query_params=query or [],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        response = self.api.call_api(*serialized, _request_timeout=(CONNECT_TIMEOUT, read_timeout))
        raw: urllib3.BaseHTTPResponse = response.response
        return raw

    # -- verbs --------------------------------------------------------------------------

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        res = resource(kind)
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
        res = resource(kind)
        items: list[dict[str, Any]] = []
        token = ""
        while True:
            query = [("limit", "500")]
            if label_selector:
                query.append(("labelSelector", label_selector))
            if field_selector:
                query.append(("fieldSelector", field_selector))
            if token:
                query.append(("continue", token))
            page = self._send("GET", res.path(namespace), f"{res.plural}", query=query)
            for item in page.get("items") or []:
                item.setdefault("kind", kind)
                item.setdefault("apiVersion", res.api_version)
                items.append(item)
            token = (page.get("metadata") or {}).get("continue") or ""
            if not token:
                return items

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
    ) -> dict[str, Any]:
        content_type = {
            "merge": "application/merge-patch+json",
            "strategic": "application/strategic-merge-patch+json",
            "json": "application/json-patch+json",
        }[patch_type]
        result: dict[str, Any] = self._send(
            "PATCH",
            resource(kind).path(namespace, name),
            ref(kind, name),
            body=patch,
            content_type=content_type,
        )
        return result

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
        self._send("DELETE", resource(kind).path(namespace, name), ref(kind, name), body=body)

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
        res = resource(kind)
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
            read_timeout=timeout_seconds + self.read_timeout,
        )
        try:
            buffer = b""
            for chunk in response.stream(4096, decode_content=True):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if not line.strip():
                        continue
                    event = json.loads(line)
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
    ) -> Iterator[str]:
        """A pod's log lines (without line ends); with `follow`, until the container stops."""
        query: list[tuple[str, str]] = []
        if container:
            query.append(("container", container))
        if tail is not None:
            query.append(("tailLines", str(tail)))
        if since_seconds is not None:
            query.append(("sinceSeconds", str(since_seconds)))
        if follow:
            query.append(("follow", "true"))
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
        try:
            buffer = b""
            for chunk in response.stream(4096, decode_content=True):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    yield line.decode("utf-8", "replace")
            if buffer:
                yield buffer.decode("utf-8", "replace")
        except urllib3.exceptions.HTTPError as exc:
            raise _unreachable(self.server, ref("Pod", pod), exc) from exc
        finally:
            response.release_conn()

    def _locate(self, obj: dict[str, Any]) -> tuple[Resource, str | None, str]:
        res = resource(obj["kind"])
        metadata = obj.get("metadata") or {}
        namespace = metadata.get("namespace") if res.namespaced else None
        return res, namespace, str(metadata.get("name", ""))


def _in_cluster() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and not os.path.exists(
        os.path.expanduser("~/.kube/config")
    )


def _refused(exc: Exception) -> bool:
    """True when the request cannot have reached the server."""
    text = repr(exc)
    return isinstance(exc, urllib3.exceptions.NewConnectionError) or "Connection refused" in text


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


def clean(obj: dict[str, Any]) -> dict[str, Any]:
    """A live object as something to create again: the fields the server set are dropped."""
    result: dict[str, Any] = json.loads(json.dumps(obj))
    metadata = result.get("metadata", {})
    for key in (
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "managedFields",
        "selfLink",
        "ownerReferences",
    ):
        metadata.pop(key, None)
    metadata["finalizers"] = [f for f in metadata.get("finalizers", []) if "/" in f]
    if not metadata["finalizers"]:
        metadata.pop("finalizers")
    result.pop("status", None)
    spec = result.get("spec") or {}
    if result.get("kind") == "Job":
        # The Job controller's selector and labels name the old object's uid; a new Job gets
        # its own (creating one with the old selector is refused).
        spec.pop("selector", None)
        labels = (spec.get("template") or {}).get("metadata", {}).get("labels", {})
        for key in list(labels):
            if key in ("controller-uid", "batch.kubernetes.io/controller-uid"):
                labels.pop(key)
    if result.get("kind") == "Service":
        for key in ("clusterIP", "clusterIPs"):
            spec.pop(key, None)
    return result
