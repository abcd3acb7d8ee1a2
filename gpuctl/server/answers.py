"""The answers' shapes, for the OpenAPI document and for checking every answer against it.
Field names are the documents' camelCase; absent values are null, never invented."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from gpuctl.constants import Labels
from gpuctl.inventory.nodes import DOCUMENT_NODE_STATUS
from gpuctl.server.views import JOB_STATUS
from gpuctl.spec.kinds import job_kinds


def one_of(values: Sequence[str], description: str = "") -> Any:
    """A string field whose values the document lists (an `enum`)."""
    return Field(description=description or None, json_schema_extra={"enum": list(values)})


class Answer(BaseModel):
    # a view that grows a field the shape does not name fails the tests, not silently
    model_config = ConfigDict(extra="forbid")


# ------------------------------------------------------------------------------- jobs


class JobItem(Answer):
    jobId: str
    name: str
    namespace: str
    kind: str = one_of(job_kinds())
    pool: str
    status: str = one_of(JOB_STATUS)
    ready: str
    gpu: int
    gpuShare: str | None = Field(
        description="shared GPU memory the job asks for in all (gpu-share, e.g. 20Gi); null "
        "for whole GPUs. A share takes part of one GPU: gpu is then 0"
    )
    gpuType: str | None
    createdAt: str | None
    startedAt: str | None


class JobList(Answer):
    total: int
    items: list[JobItem]


class JobResources(Answer):
    """One pod's resources, and `replicas`, the pods the job asks for now."""

    gpu: int
    gpuShare: str | None = Field(
        description="shared GPU memory one pod asks for (gpu-share, e.g. 20Gi); null for whole GPUs"
    )
    gpuType: str | None
    cpu: str | None
    memory: str | None
    replicas: int


class JobMetricsNow(Answer):
    gpuUtilization: float | None
    memoryUsage: str | None
    networkLatency: str | None
    throughput: str | None


class PodState(Answer):
    """One pod of a job as `gpuctl get pods` shows it."""

    name: str
    status: str = Field(
        description="the pod's STATUS in plain words (Running, Pending, Image pull failed...)"
    )
    ready: str = Field(description="containers ready of all containers, e.g. 1/1")
    node: str | None = Field(description="the node it runs on; null until it is placed")
    restarts: int


class K8sResources(Answer):
    kind: str | None = Field(description="the workload's kind; null for a partial job")
    jobName: str
    service: str | None
    pods: list[str]
    podStates: list[PodState] = Field(
        description="the same pods, in the same order, with their status, readiness and node"
    )
    leftovers: list[str] = Field(
        description="a partial job's objects that are left (`service/svc-x`); [] otherwise"
    )


class JobDetail(JobItem):
    version: str | None
    yamlContent: str | None
    yamlContentNote: str | None = None  # why yamlContent is null when the spec was too large
    image: str
    priority: str
    description: str
    resources: JobResources
    metrics: JobMetricsNow
    metricsError: str | None  # why `metrics` are null although a Prometheus is configured
    why: str
    access: str
    k8sResources: K8sResources


class JobCreated(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "jobId": "alice.qwen2-7b-sft",
                "name": "qwen2-7b-sft",
                "namespace": "alice",
                "kind": "training",
                "status": "pending",
                "createdAt": "2024-06-01T10:00:00Z",
                "message": "job/qwen2-7b-sft created",
                "warnings": [],
            }
        }
    )

    jobId: str
    name: str
    namespace: str
    kind: str = one_of(job_kinds())
    # pending for a new job; a repeated Idempotency-Key answers the job's status now
    status: str = one_of(JOB_STATUS)
    createdAt: str
    message: str
    warnings: list[str]


class JobMade(Answer):
    jobId: str
    name: str


class ItemFailure(Answer):
    index: int
    error: str
    message: str
    field: str | None = None
    problems: list[str] | None = None


class JobBatch(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "success": [
                    {"jobId": "alice.task1", "name": "task1"},
                    {"jobId": "alice.task2", "name": "task2"},
                ],
                "failed": [],
            }
        }
    )

    success: list[JobMade]
    failed: list[ItemFailure]


REUSED_EXAMPLE = (
    "Idempotency-Key 'batch-7' was used for another request (it made job alice.task1); "
    "send a new key for a new job: nothing was created"
)


class JobBatchRefused(JobBatch):
    """A batch none of whose items was created (422). When the request itself was refused
    before any item was tried (an Idempotency-Key sent before with another body), every item
    failed with that error, and `error`, `message` and `field` give it as the error shape."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "error": "IdempotencyKeyReused",
                "message": REUSED_EXAMPLE,
                "field": "Idempotency-Key",
                "success": [],
                "failed": [
                    {
                        "index": 0,
                        "error": "IdempotencyKeyReused",
                        "message": REUSED_EXAMPLE,
                        "field": "Idempotency-Key",
                    }
                ],
            }
        }
    )

    error: str | None = None
    message: str | None = None
    field: str | None = None


class RenderedManifest(Answer):
    kind: str
    name: str
    namespace: str | None
    yaml: str = Field(description="the object as rendered, in YAML")


class JobManifests(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "jobId": "alice.qwen2-7b-sft",
                "manifests": [
                    {
                        "kind": "Job",
                        "name": "qwen2-7b-sft",
                        "namespace": "alice",
                        "yaml": "apiVersion: batch/v1\nkind: Job\n...",
                    }
                ],
                "message": "",
            }
        }
    )
    jobId: str
    manifests: list[RenderedManifest]
    message: str


class JobDeleted(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "jobId": "alice.qwen2-7b-sft",
                "status": "terminating",
                "message": "job/qwen2-7b-sft deleted",
            }
        }
    )

    jobId: str
    status: str = one_of(["terminating"])
    message: str


class JobLogs(Answer):
    logs: list[str]
    lastTimestamp: str | None = Field(
        description="when the last line returned was written (RFC 3339); null without lines"
    )
    truncated: bool = Field(
        description="lines were left out to stay within limitBytes (ask for fewer with tail, "
        "or for more bytes)"
    )


class Point(Answer):
    timestamp: str
    value: float


class JobMetrics(Answer):
    gpuUtilization: list[Point] | None = None
    memoryUsage: list[Point] | None = None
    throughput: list[Point] | None = Field(
        default=None,
        description="per second, from the job's own tokensPerSecond or samplesPerSecond",
    )
    custom: dict[str, list[Point]] | None = Field(
        default=None,
        description="the job's own series (POST /metrics/custom), by name: loss, progress, ...",
    )
    source: str | None
    message: str


class JobUtilisation(Answer):
    jobId: str
    gpuUtilization: list[float] = Field(
        description="the mean GPU utilisation (%) of the job's pods, oldest first, evenly spaced"
    )


class JobsUtilisation(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "items": [{"jobId": "alice.qwen2-7b-sft", "gpuUtilization": [71.5, 88.0, 93.2]}],
                "source": "http://prometheus.monitoring:9090",
                "message": "",
            }
        }
    )
    items: list[JobUtilisation]
    source: str | None
    message: str


class CustomMetricsPushed(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "jobId": "alice.qwen2-7b-sft",
                "stored": ["loss", "progress", "tokensPerSecond"],
                "pushgateway": "http://pushgateway.monitoring:9091",
            }
        }
    )

    jobId: str
    stored: list[str] = Field(description="the names whose values the Pushgateway now holds")
    pushgateway: str


# ------------------------------------------------------------------------------ pools


class PoolItem(Answer):
    name: str
    description: str
    gpuTotal: int
    gpuUsed: int
    gpuFree: int
    gpuType: list[str]
    allowedGpuTypes: list[str] = Field(
        description="the GPU models the pool allows (POST /pools gpuType); [] allows any"
    )
    nodeCount: int
    gpuCap: int | None = Field(
        description="the pool's GPU cap (max-gpus; POST /pools maxGpus); null when it has none"
    )
    gpuCapUsed: int = Field(
        description="the GPUs the unfinished pods of the pool's jobs request: what counts "
        "against gpuCap"
    )
    status: str
    isolation: str | None = Field(
        default=None,
        description="isolated (its nodes tainted for its jobs alone) or shared (POST /pools "
        "isolation); null for a pool only node labels name (no record)",
    )


class PoolList(Answer):
    items: list[PoolItem]


class PoolJob(Answer):
    jobId: str
    name: str
    namespace: str
    gpu: int
    nodes: list[str]


class OtherWork(Answer):
    """Other users' work, counted and never named (what a user may not see by name)."""

    jobs: int
    pods: int
    gpu: int


class PoolDetail(Answer):
    name: str
    description: str
    nodes: list[str]
    gpuTotal: int
    gpuUsed: int
    gpuFree: int
    gpuType: dict[str, int]
    gpuCap: int | None = Field(
        description="the pool's GPU cap (max-gpus; POST /pools maxGpus); null when it has none"
    )
    gpuCapUsed: int = Field(
        description="the GPUs the unfinished pods of the pool's jobs request: what counts "
        "against gpuCap"
    )
    status: str
    jobs: list[PoolJob]
    otherJobs: OtherWork  # the jobs left out of `jobs`: other users', for a user


class PoolCapChanged(PoolDetail):
    message: str = Field(
        description="what the change wrote: the pool's record, and its Kueue ClusterQueue "
        "where Kueue is installed"
    )


class PoolChanged(Answer):
    name: str
    status: str
    message: str


# ------------------------------------------------------------------------------ nodes


class NodeItem(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "nodeName": "node-1",
                "status": "active",
                "gpuTotal": 8,
                "gpuUsed": 4,
                "gpuFree": 4,
                "boundPools": ["training-pool"],
                "cpu": "64",
                "memory": "256Gi",
                "gpuType": "a100-80g",
                "vendor": "NVIDIA",
                "createdAt": "2024-06-01T09:00:00Z",
            }
        }
    )

    nodeName: str
    status: str = one_of(DOCUMENT_NODE_STATUS)
    gpuTotal: int
    gpuUsed: int
    gpuFree: int
    boundPools: list[str]
    cpu: str | None
    memory: str | None
    gpuType: str | None
    vendor: str | None = Field(
        description="the accelerator vendor (NVIDIA, AMD, Intel, Huawei Ascend) by the device "
        "resource the node advertises, else its vendor's labels; null without accelerators"
    )
    createdAt: str | None


class NodeList(Answer):
    total: int
    items: list[NodeItem]


class NodeResources(Answer):
    cpuTotal: str | None
    cpuUsed: str
    memoryTotal: str | None
    memoryUsed: str
    gpuTotal: int
    gpuUsed: int
    gpuFree: int


class Label(Answer):
    key: str
    value: str


class NodePod(Answer):
    namespace: str
    name: str
    job: str
    gpu: int


class NodeDetail(Answer):
    nodeName: str
    status: str = one_of(DOCUMENT_NODE_STATUS)
    resources: NodeResources
    gpuType: str | None
    vendor: str | None = Field(
        description="the accelerator vendor (NVIDIA, AMD, Intel, Huawei Ascend) by the device "
        "resource the node advertises, else its vendor's labels; null without accelerators"
    )
    labels: list[Label]
    boundPools: list[str]
    pods: list[NodePod]
    otherPods: OtherWork  # the pods left out of `pods`: other users', for a user
    createdAt: str | None
    lastUpdatedAt: str | None


class LabelOnNode(Answer):
    nodeName: str
    labelKey: str
    labelValue: str


class LabelValues(Answer):
    total: int
    items: list[LabelOnNode]


class NodeLabels(Answer):
    nodeName: str
    gpuLabels: list[Label]
    boundPools: list[str]


class AllLabels(Answer):
    total: int
    items: list[NodeLabels]


class LabelSet(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "nodeName": "node-1",
                "label": {"key": Labels.GPU_TYPE_USER, "value": "a100-80g"},
                "message": f"node/node-1 labelled {Labels.GPU_TYPE_USER}=a100-80g",
            }
        }
    )

    nodeName: str
    label: Label
    message: str


class LabelRead(Answer):
    nodeName: str
    label: Label


class LabelDeleted(Answer):
    nodeName: str
    labelKey: str
    message: str


class NodeFailure(Answer):
    nodeName: str
    error: str
    message: str
    field: str | None = Field(
        None, description="the request's field at fault (`overwrite` for a label conflict)"
    )


class LabelBatch(Answer):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "success": ["node-2"],
                "failed": [
                    {
                        "nodeName": "node-3",
                        "error": "NodeNotFound",
                        "message": "node node-3 not found",
                    }
                ],
                "message": "some nodes failed: see `failed`",
            }
        }
    )

    success: list[str]
    failed: list[NodeFailure]
    message: str


# ----------------------------------------------------------------------------- quotas


class Usage(Answer):
    used: str
    hard: str
    percent: int | None


class ResourceUsage(Usage):
    key: str


class QuotaItem(Answer):
    userName: str
    name: str
    description: str
    createdAt: str | None
    cpu: Usage | None
    memory: Usage | None
    gpu: Usage | None
    resources: list[ResourceUsage]


class QuotaList(Answer):
    items: list[QuotaItem]


class QuotasCreated(Answer):
    names: list[str]
    users: list[str]
    status: str
    message: str


class QuotaDeleted(Answer):
    userName: str
    status: str
    message: str


# -------------------------------------------------------------------------- workloads


class WorkloadItem(Answer):
    namespace: str
    name: str
    modelName: str
    gpuCount: int
    phase: str = Field(description="Pending, Scheduled or Failed (the controller's phase)")
    node: str | None = Field(description="the node the controller placed it on")
    jobName: str | None = Field(description="the Job the controller created for it")
    retries: int
    message: str = Field(description="the controller's last word on it")
    createdAt: str | None


class WorkloadList(Answer):
    installed: bool = Field(description="does the cluster serve GPUWorkloads (the CRD)?")
    message: str
    items: list[WorkloadItem]


class PoolNodesChanged(Answer):
    name: str
    nodes: list[str]
    status: str
    message: str


# ------------------------------------------------------------------------------- auth


class AuthDecision(Answer):
    allowed: bool
    message: str
    user: str
    role: str


# ------------------------------------------------------------------------ checked JSON


@cache
def _adapter(shape: type[Answer]) -> TypeAdapter[Any]:
    return TypeAdapter(shape)


def checked_json(shape: type[Answer], value: dict[str, Any]) -> bytes:
    """`value` checked against `shape` and written as JSON, the same bytes FastAPI writes
    for a route whose response_model is `shape`: a route that remembers them answers the
    same page again without checking and encoding it again (pydantic.ValidationError when
    `value` breaks the shape)."""
    adapter = _adapter(shape)
    return adapter.dump_json(adapter.validate_python(value))
