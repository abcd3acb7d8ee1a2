"""`Client(url, token)`: every endpoint of gpuctl's REST API as a typed method, grouped as the
API is (`client.jobs`, `.metrics`, `.nodes`, `.pools`, `.quotas`, `.webhooks`, `.workloads`,
`.auth`; gpuctl_client.operations maps each of the contract's operations to its method). Each
method sends
through the generated code's request builders and answer parsers (gpuctl_client._generated,
from docs/openapi.json), returns the generated model of a success and raises the `ApiError`
subclass of an error answer; every request is retried as gpuctl_client.retry says."""

from __future__ import annotations

import builtins
import json
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from io import BytesIO
from types import ModuleType, TracebackType
from typing import Any, SupportsFloat, TypeVar

import httpx

from gpuctl_client._generated.api.auth import check_access
from gpuctl_client._generated.api.jobs import (
    create_job,
    create_jobs_batch,
    delete_job,
    get_job,
    get_job_logs,
    get_job_manifests,
    get_job_metrics,
    list_jobs,
)
from gpuctl_client._generated.api.metrics import list_jobs_utilisation, push_custom_metrics
from gpuctl_client._generated.api.nodes import (
    delete_node_label,
    get_node,
    get_node_label,
    list_all_node_labels,
    list_node_label_values,
    list_nodes,
    set_node_label,
    set_node_labels_batch,
)
from gpuctl_client._generated.api.pools import (
    add_pool_nodes,
    create_pool,
    delete_pool,
    get_pool,
    list_pools,
    remove_pool_node,
    set_pool_cap,
)
from gpuctl_client._generated.api.quotas import create_quota, delete_quota, get_quota, list_quotas
from gpuctl_client._generated.api.webhooks import (
    create_webhook,
    delete_webhook,
    enable_webhook,
    get_webhook,
    list_webhooks,
    rotate_webhook_secret,
    test_webhook,
)
from gpuctl_client._generated.api.workloads import list_workloads
from gpuctl_client._generated.client import AuthenticatedClient
from gpuctl_client._generated.client import Client as AnonymousClient
from gpuctl_client._generated.models import (
    AllLabels,
    AuthCheck,
    AuthCheckAction,
    AuthCheckResource,
    AuthDecision,
    CustomMetricsPush,
    CustomMetricsPushed,
    CustomMetricsPushMetrics,
    GetJobMetricsMetric,
    JobBatch,
    JobBatchCreate,
    JobCreated,
    JobDeleted,
    JobDetail,
    JobItem,
    JobKind,
    JobList,
    JobLogs,
    JobManifests,
    JobMetrics,
    JobStatus,
    JobsUtilisation,
    LabelBatch,
    LabelBatchCreate,
    LabelCreate,
    LabelDeleted,
    LabelOnNode,
    LabelRead,
    LabelSet,
    LabelValues,
    ListNodesStatus,
    NodeDetail,
    NodeItem,
    NodeLabels,
    NodeList,
    PoolCapChanged,
    PoolCapSet,
    PoolChanged,
    PoolCreate,
    PoolCreateIsolation,
    PoolDetail,
    PoolList,
    PoolNodesAdd,
    PoolNodesChanged,
    QuotaCreate,
    QuotaDeleted,
    QuotaList,
    QuotasCreated,
    WebhookCreate,
    WebhookCreated,
    WebhookCreateEventsItem,
    WebhookDeleted,
    WebhookDetail,
    WebhookList,
    WebhookSecretRotated,
    WebhookTestQueued,
    WorkloadList,
)
from gpuctl_client._generated.types import UNSET, File
from gpuctl_client.errors import ApiError, ConnectionFailed, GpuctlClientError, error_of
from gpuctl_client.logs import Via, follow
from gpuctl_client.retry import SAFE_TO_REPEAT, RetryPolicy, RetryTransport

T = TypeVar("T")
Item = TypeVar("Item")
FINISHED = frozenset({JobStatus.SUCCEEDED, JobStatus.FAILED})


class WaitTimeout(GpuctlClientError):
    """`jobs.wait` ran out of time: the job's last status is in the message and `.job`."""

    def __init__(self, message: str, job: JobDetail) -> None:
        super().__init__(message)
        self.job = job


def _opt(value: T | None) -> Any:
    """None as the generated code's UNSET (the parameter is left out)."""
    return UNSET if value is None else value


class Client:
    """gpuctl's REST API at `url` (`http://host:8000`), as the user of `token` (None: a server
    without a token file). `timeout`: seconds for each request's connect, read and write;
    `retry`: the retries' deadline and backoff (gpuctl_client.retry.RetryPolicy); `transport`:
    the httpx transport under the retries (a test's, a proxy's)."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        verify: bool | str = True,
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        args: dict[str, Any] = {"transport": RetryTransport(self.retry, transport)}
        common: dict[str, Any] = {
            "base_url": self.url,
            "timeout": httpx.Timeout(timeout),
            "verify_ssl": verify,
            "httpx_args": args,
        }
        self.generated: AuthenticatedClient | AnonymousClient = (
            AuthenticatedClient(token=token, **common) if token else AnonymousClient(**common)
        )
        self.http: httpx.Client = self.generated.get_httpx_client()
        self.jobs = Jobs(self)
        self.metrics = Metrics(self)
        self.nodes = Nodes(self)
        self.pools = Pools(self)
        self.quotas = Quotas(self)
        self.webhooks = Webhooks(self)
        self.workloads = Workloads(self)
        self.auth = Auth(self)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def send(self, request: httpx.Request, *, stream: bool = False) -> httpx.Response:
        """One request through the retries; ConnectionFailed when it never got an answer."""
        try:
            return self.http.send(request, stream=stream)
        except httpx.TransportError as exc:
            raise ConnectionFailed(
                f"{request.method} {request.url}: no answer from the server ({exc!r}), "
                f"retried for up to {self.retry.deadline:g} s"
            ) from exc

    def call(
        self,
        endpoint: ModuleType,
        expect: type[T],
        *,
        also: frozenset[int] = frozenset(),
        content: bytes | None = None,
        repeatable: bool = False,
        **params: Any,
    ) -> T:
        """`endpoint` (a generated module) with `params`: its answer parsed as `expect`, or the
        error answer raised. `also`: error statuses whose body is an `expect` too;
        `repeatable`: a write that may be retried, as sending it twice does what sending it
        once does (gpuctl_client.retry)."""
        kwargs: dict[str, Any] = endpoint._get_kwargs(**params)
        if content is not None:
            kwargs.pop("json", None)
            kwargs["content"] = content  # bytes: sent again as they are on a retry
        if repeatable:
            kwargs["extensions"] = {SAFE_TO_REPEAT: True}
        response = self.send(self.http.build_request(**kwargs))
        answered = _answer_of(response, expect, also)
        if answered is not None:
            parsed: Any = answered
        elif response.status_code >= 400:
            raise error_of(response.status_code, response.content, response.headers)
        else:
            parsed = endpoint._parse_response(client=self.generated, response=response)
        if not isinstance(parsed, expect):
            raise ApiError(
                response.status_code,
                "UnexpectedAnswer",
                f"{kwargs['method'].upper()} {kwargs['url']} answered "
                f"{response.status_code}, which the API's contract does not describe",
            )
        return parsed


def _answer_of(response: httpx.Response, expect: type[T], also: frozenset[int]) -> T | None:
    """An error status's body parsed as `expect`, when the status is one of `also` and the body
    is not the error shape (a batch that made none of its jobs: 422 with each item's error)."""
    if response.status_code not in also:
        return None
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict) or "error" in body:
        return None
    parsed: T = expect.from_dict(body)  # type: ignore[attr-defined]
    return parsed


def pages(fetch: Callable[[int, int], tuple[int, list[Item]]], page_size: int) -> Iterator[Item]:
    """Every item of a paged list: page 1, 2, ... until `total` items came or a page is empty."""
    page, seen = 1, 0
    while True:
        total, items = fetch(page, page_size)
        yield from items
        seen += len(items)
        if not items or seen >= total:
            return
        page += 1


class _Part:
    def __init__(self, client: Client) -> None:
        self._client = client

    def _call(self, endpoint: ModuleType, expect: type[T], **params: Any) -> T:
        return self._client.call(endpoint, expect, **params)

    def _write_again(self, endpoint: ModuleType, expect: type[T], **params: Any) -> T:
        """A write whose repeat changes nothing more: retried like a read."""
        return self._client.call(endpoint, expect, repeatable=True, **params)


class Jobs(_Part):
    """Jobs: create (from YAML), list, get, delete, manifests, logs, metrics, wait."""

    def create(
        self, spec: str, *, idempotency_key: str | None = None, allow_pending: bool = False
    ) -> JobCreated:
        """The job of one YAML spec, sent as `application/yaml`. One Idempotency-Key for the
        call (a new one unless given), the same on every retry: it never makes two jobs. A job
        no node could ever hold raises Unprocessable (`error` Unschedulable, with `field`);
        `allow_pending=True` creates it anyway, to wait for nodes that join."""
        key = idempotency_key or str(uuid.uuid4())
        body = File(payload=BytesIO(), mime_type="application/yaml")
        return self._call(
            create_job,
            JobCreated,
            body=body,
            idempotency_key=key,
            content=spec.encode("utf-8"),
            allow_pending=allow_pending,
        )

    def create_batch(
        self,
        specs: builtins.list[str],
        *,
        idempotency_key: str | None = None,
        allow_pending: bool = False,
    ) -> JobBatch:
        """Several jobs in one request: `.success` and `.failed` (by index) whether all, some
        or none were made (none: the server's 422, answered here, not raised)."""
        key = idempotency_key or str(uuid.uuid4())
        return self._client.call(
            create_jobs_batch,
            JobBatch,
            also=frozenset({422}),
            body=JobBatchCreate(yaml_contents=specs),
            idempotency_key=key,
            allow_pending=allow_pending,
        )

    def list(
        self,
        *,
        kind: JobKind | str | None = None,
        pool: str | None = None,
        status: JobStatus | str | None = None,
        namespace: str | None = None,
        page: int = 1,
        page_size: int = 20,
    ) -> JobList:
        """One page of jobs (`.total`, `.items`)."""
        return self._call(
            list_jobs,
            JobList,
            kind=_opt(JobKind(kind) if kind is not None else None),
            pool=_opt(pool),
            status=_opt(JobStatus(status) if status is not None else None),
            namespace=_opt(namespace),
            page=page,
            page_size=page_size,
        )

    def iter(
        self,
        *,
        page_size: int = 50,
        kind: JobKind | str | None = None,
        pool: str | None = None,
        status: JobStatus | str | None = None,
        namespace: str | None = None,
    ) -> Iterator[JobItem]:
        """Every job, a page of `page_size` at a time."""

        def fetch(page: int, size: int) -> tuple[int, builtins.list[JobItem]]:
            found = self.list(
                kind=kind,
                pool=pool,
                status=status,
                namespace=namespace,
                page=page,
                page_size=size,
            )
            return found.total, found.items

        return pages(fetch, page_size)

    def get(self, job_id: str) -> JobDetail:
        return self._call(get_job, JobDetail, job_id=job_id)

    def delete(self, job_id: str, *, force: bool = False) -> JobDeleted:
        return self._call(delete_job, JobDeleted, job_id=job_id, force=force)

    def manifests(self, job_id: str) -> JobManifests:
        """The Kubernetes objects the job's spec renders to (`.manifests`: each one's `kind`,
        `name`, `namespace` and `yaml`); none, and `.message` saying why, when the job's spec
        was not kept."""
        return self._call(get_job_manifests, JobManifests, job_id=job_id)

    def logs(
        self,
        job_id: str,
        *,
        tail: int = 100,
        pod: str | None = None,
        limit_bytes: int | None = None,
    ) -> JobLogs:
        """The last `tail` lines of each of the job's pods, at most `limit_bytes` bytes of
        them in whole lines (the server's 1 MiB when None); `.truncated` is True when lines
        were left out to stay within it (ask for fewer with `tail`, or for more bytes)."""
        return self._call(
            get_job_logs,
            JobLogs,
            job_id=job_id,
            tail=tail,
            pod=_opt(pod),
            limit_bytes=_opt(limit_bytes),
        )

    def follow(
        self, job_id: str, *, tail: int = 100, pod: str | None = None, via: Via = "auto"
    ) -> Iterator[str]:
        """The job's log lines as they come, ending when its pods stop (gpuctl_client.logs)."""
        return follow(self._client, job_id, tail, pod, via)

    def metrics(
        self,
        job_id: str,
        *,
        metric: GetJobMetricsMetric | str | None = None,
        start_time: str | None = None,
        end_time: str | None = None,
    ) -> JobMetrics:
        """The job's metric series (RFC 3339 times; the last hour by default)."""
        return self._call(
            get_job_metrics,
            JobMetrics,
            job_id=job_id,
            metric=_opt(GetJobMetricsMetric(metric) if metric is not None else None),
            start_time=_opt(start_time),
            end_time=_opt(end_time),
        )

    def wait(
        self,
        job_id: str,
        *,
        timeout: float = 600.0,
        poll: float = 1.0,
        until: frozenset[JobStatus] = FINISHED,
    ) -> JobDetail:
        """The job once its status is one of `until` (succeeded or failed by default);
        WaitTimeout after `timeout` seconds."""
        give_up = time.monotonic() + timeout
        while True:
            job = self.get(job_id)
            if job.status in until:
                return job
            if time.monotonic() + poll > give_up:
                raise WaitTimeout(
                    f"job {job_id} is still {job.status.value} after {timeout:g} s", job
                )
            time.sleep(poll)


class Nodes(_Part):
    """Nodes and their labels."""

    def list(
        self,
        *,
        pool: str | None = None,
        gpu_type: str | None = None,
        status: ListNodesStatus | str | None = None,
        page: int = 1,
        page_size: int = 20,
    ) -> NodeList:
        return self._call(
            list_nodes,
            NodeList,
            pool=_opt(pool),
            gpu_type=_opt(gpu_type),
            status=_opt(ListNodesStatus(status) if status is not None else None),
            page=page,
            page_size=page_size,
        )

    def iter(
        self,
        *,
        page_size: int = 50,
        pool: str | None = None,
        gpu_type: str | None = None,
        status: ListNodesStatus | str | None = None,
    ) -> Iterator[NodeItem]:
        def fetch(page: int, size: int) -> tuple[int, builtins.list[NodeItem]]:
            found = self.list(
                pool=pool, gpu_type=gpu_type, status=status, page=page, page_size=size
            )
            return found.total, found.items

        return pages(fetch, page_size)

    def get(self, node_name: str) -> NodeDetail:
        return self._call(get_node, NodeDetail, node_name=node_name)

    def set_label(
        self, node_name: str, key: str, value: str, *, overwrite: bool = False
    ) -> LabelSet:
        body = LabelCreate(key=key, value=value, overwrite=overwrite)
        return self._call(set_node_label, LabelSet, node_name=node_name, body=body)

    def set_labels(
        self, node_names: builtins.list[str], key: str, value: str, *, overwrite: bool = False
    ) -> LabelBatch:
        """One label on several nodes: `.success` (node names) and `.failed` (each's error)."""
        body = LabelBatchCreate(node_names=node_names, key=key, value=value, overwrite=overwrite)
        return self._call(set_node_labels_batch, LabelBatch, body=body)

    def get_label(self, node_name: str, key: str) -> LabelRead:
        return self._call(get_node_label, LabelRead, node_name=node_name, key=key)

    def delete_label(self, node_name: str, key: str) -> LabelDeleted:
        return self._call(delete_node_label, LabelDeleted, node_name=node_name, key=key)

    def label_values(self, key: str, *, page: int = 1, page_size: int = 20) -> LabelValues:
        """Each node's value of the label `key` (one page)."""
        return self._call(
            list_node_label_values, LabelValues, key=key, page=page, page_size=page_size
        )

    def iter_label_values(self, key: str, *, page_size: int = 50) -> Iterator[LabelOnNode]:
        def fetch(page: int, size: int) -> tuple[int, builtins.list[LabelOnNode]]:
            found = self.label_values(key, page=page, page_size=size)
            return found.total, found.items

        return pages(fetch, page_size)

    def all_labels(self, *, page: int = 1, page_size: int = 20) -> AllLabels:
        """Every node's labels (one page)."""
        return self._call(list_all_node_labels, AllLabels, page=page, page_size=page_size)

    def iter_all_labels(self, *, page_size: int = 50) -> Iterator[NodeLabels]:
        def fetch(page: int, size: int) -> tuple[int, builtins.list[NodeLabels]]:
            found = self.all_labels(page=page, page_size=size)
            return found.total, found.items

        return pages(fetch, page_size)


class Pools(_Part):
    """Resource pools (admin)."""

    def list(self) -> PoolList:
        return self._call(list_pools, PoolList)

    def get(self, pool_name: str) -> PoolDetail:
        return self._call(get_pool, PoolDetail, pool_name=pool_name)

    def create(
        self,
        name: str,
        *,
        nodes: builtins.list[str] | None = None,
        gpu_type: builtins.list[str] | None = None,
        description: str = "",
        max_gpus: int | None = None,
        isolation: PoolCreateIsolation | str = PoolCreateIsolation.ISOLATED,
    ) -> PoolChanged:
        """A pool of `nodes` (labelled, and tainted unless `isolation` is "shared") allowing
        the GPU models `gpu_type`, its jobs capped at `max_gpus` GPUs together (None: no cap)."""
        body = PoolCreate(
            name=name,
            description=description,
            nodes=_opt(nodes),
            gpu_type=_opt(gpu_type),
            max_gpus=_opt(max_gpus),
            isolation=PoolCreateIsolation(isolation),
        )
        return self._call(create_pool, PoolChanged, body=body)

    def set_cap(self, pool_name: str, max_gpus: int | None) -> PoolCapChanged:
        """Sets the pool's GPU cap to `max_gpus` (None removes it); answers the pool as `get`
        does, with what was written in `.message`. Retried like a read: setting the same cap
        twice is setting it once."""
        body = PoolCapSet(max_gpus=max_gpus)
        return self._write_again(set_pool_cap, PoolCapChanged, pool_name=pool_name, body=body)

    def add_nodes(
        self, pool_name: str, nodes: builtins.list[str], *, overwrite: bool = False
    ) -> PoolNodesChanged:
        """Puts `nodes` in the pool (its label, and an isolating pool's taint); a node of
        another pool is Conflict unless `overwrite` moves it. Retried like a read: a node
        already in the pool is left as it is."""
        body = PoolNodesAdd(nodes=nodes, overwrite=overwrite)
        return self._write_again(add_pool_nodes, PoolNodesChanged, pool_name=pool_name, body=body)

    def remove_node(self, pool_name: str, node_name: str) -> PoolNodesChanged:
        """Takes the node out of the pool (label, taint, record); Conflict when it is not in
        the pool."""
        return self._call(
            remove_pool_node, PoolNodesChanged, pool_name=pool_name, node_name=node_name
        )

    def delete(self, pool_name: str) -> PoolChanged:
        return self._call(delete_pool, PoolChanged, pool_name=pool_name)


class Quotas(_Part):
    """Per-user quotas (admin)."""

    def list(self) -> QuotaList:
        return self._call(list_quotas, QuotaList)

    def get(self, user_name: str) -> QuotaList:
        return self._call(get_quota, QuotaList, user_name=user_name)

    def create(self, spec: str) -> QuotasCreated:
        """The quotas of a `kind: quota` YAML spec."""
        return self._call(create_quota, QuotasCreated, body=QuotaCreate(yaml_content=spec))

    def delete(self, user_name: str) -> QuotaDeleted:
        return self._call(delete_quota, QuotaDeleted, user_name=user_name)


class Webhooks(_Part):
    """Signed job events sent to a URL (Standard Webhooks)."""

    def list(self) -> WebhookList:
        return self._call(list_webhooks, WebhookList)

    def get(self, webhook_id: str) -> WebhookDetail:
        return self._call(get_webhook, WebhookDetail, webhook_id=webhook_id)

    def create(
        self,
        url: str,
        events: builtins.list[WebhookCreateEventsItem | str],
        *,
        namespace: str | None = None,
    ) -> WebhookCreated:
        """A subscription; its `.secret` is shown this once."""
        body = WebhookCreate(
            url=url,
            events=[WebhookCreateEventsItem(event) for event in events],
            namespace=_opt(namespace),
        )
        return self._call(create_webhook, WebhookCreated, body=body)

    def delete(self, webhook_id: str) -> WebhookDeleted:
        return self._call(delete_webhook, WebhookDeleted, webhook_id=webhook_id)

    def test(self, webhook_id: str) -> WebhookTestQueued:
        return self._call(test_webhook, WebhookTestQueued, webhook_id=webhook_id)

    def rotate_secret(self, webhook_id: str) -> WebhookSecretRotated:
        return self._call(rotate_webhook_secret, WebhookSecretRotated, webhook_id=webhook_id)

    def enable(self, webhook_id: str) -> WebhookDetail:
        return self._call(enable_webhook, WebhookDetail, webhook_id=webhook_id)


class Metrics(_Part):
    """A job's own values pushed (loss, throughput, progress), and every job's GPU
    utilisation; a job's series are read with `client.jobs.metrics`."""

    def push(
        self,
        job_id: str,
        values: Mapping[str, SupportsFloat] | None = None,
        /,
        **named: SupportsFloat,
    ) -> CustomMetricsPushed:
        """Pushes the job's own values by name, what a training loop calls every few steps:

            client.metrics.push(job_id, loss=loss, progress=100 * step / steps)
            client.metrics.push(job_id, {"tokensPerSecond": rate})

        Keyword arguments, because the server's metric names (letters, digits and `_`) are
        Python names: a push reads like any other call, and a mapping takes names made at run
        time. Each value goes as `float(value)`, so numpy scalars and one-element tensors
        work; a bool or a string goes as it is and the server refuses it. `progress` is a
        percentage (0-100: the PROGRESS column); `tokensPerSecond` or `samplesPerSecond`
        is the job's throughput; `loss` is drawn first. A push replaces the names it carries
        and keeps the others, so loss every step and progress every epoch may go apart.

        It raises like every call (BadRequest naming `metrics.<name>` for a NaN or a bad name,
        NotFound for a job the caller may not see, ServerError 503 when the server has no
        Pushgateway), rather than dropping values in silence: a loop that must not stop for
        its metrics catches GpuctlClientError. It is retried like a read, as pushing the same
        values twice stores what pushing them once does; a Client with a short `timeout` and
        `RetryPolicy(deadline=...)` bounds how long a step may wait for it."""
        merged = {**(values or {}), **named}
        metrics = CustomMetricsPushMetrics()
        metrics.additional_properties = {name: _number(v) for name, v in merged.items()}
        body = CustomMetricsPush(job_id=job_id, metrics=metrics)
        # sent as bytes: NaN and infinities reach the server, which refuses them by name
        content = json.dumps(body.to_dict(), allow_nan=True).encode("utf-8")
        return self._client.call(
            push_custom_metrics, CustomMetricsPushed, repeatable=True, body=body, content=content
        )

    def utilisation(self, *, points: int = 20) -> JobsUtilisation:
        """Every visible job's GPU utilisation: per job the last `points` (2-60) values of
        the mean over its pods' GPUs across the last 30 minutes, oldest first; `.items` empty
        and `.source` None when the server has no Prometheus."""
        return self._call(list_jobs_utilisation, JobsUtilisation, points=points)


def _number(value: SupportsFloat) -> Any:
    """`value` as a float; a bool or a string as it is, for the server to refuse."""
    return value if isinstance(value, bool | str) else float(value)


class Workloads(_Part):
    """The GPUWorkload controller's workloads (read-only)."""

    def list(self) -> WorkloadList:
        """Every namespace's workloads for an admin, the caller's own for a user;
        `.installed` False (and no items) when the cluster has no GPUWorkload CRD."""
        return self._call(list_workloads, WorkloadList)


class Auth(_Part):
    """Whether a user may do something."""

    def check(
        self,
        resource: AuthCheckResource | str,
        action: AuthCheckAction | str,
        *,
        pool: str | None = None,
        user: str | None = None,
    ) -> AuthDecision:
        """`resource`: jobs, pools, nodes, labels or quotas; `action`: get, create or delete
        (another is a ValueError here, as the server would answer 400)."""
        body = AuthCheck(
            resource=AuthCheckResource(resource),
            action=AuthCheckAction(action),
            pool=_opt(pool),
            user=_opt(user),
        )
        return self._call(check_access, AuthDecision, body=body)
