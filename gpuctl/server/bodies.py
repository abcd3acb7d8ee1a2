"""Request bodies, in the documents' camelCase (pydantic checks them; a bad one is a 400)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from gpuctl.constants import Labels
from gpuctl.server.auth import Action, Resource

MAX_YAML = 1024 * 1024  # one spec; the CLI's own file cap is larger, for whole folders
MAX_BATCH = 100
# The OpenAPI document's examples of a job spec and a quota spec (both valid specs).
EXAMPLE_SPEC = """\
kind: training
version: v0.1
job:
  name: qwen2-7b-sft
  priority: medium
environment:
  image: registry.example.com/llama-factory:0.8.0
  command: ["llamafactory-cli", "train"]
resources:
  pool: training-pool
  gpu: 4
  gpu-type: a100-80g
  cpu: 32
  memory: 128Gi
"""

QUOTA_EXAMPLE = """\
kind: quota
version: v0.1
metadata:
  name: team-quota
users:
  alice:
    cpu: 32
    memory: 128Gi
    gpu: 8
"""


class Body(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class JobCreate(Body):
    model_config = ConfigDict(json_schema_extra={"example": {"yamlContent": EXAMPLE_SPEC}})

    yaml_content: str = Field(max_length=MAX_YAML, description="a job spec, as in a YAML file")


class JobBatchCreate(Body):
    model_config = ConfigDict(json_schema_extra={"example": {"yamlContents": [EXAMPLE_SPEC]}})

    yaml_contents: list[Annotated[str, Field(max_length=MAX_YAML)]] = Field(
        max_length=MAX_BATCH, description="job specs, each as in a YAML file (1 MiB each at most)"
    )


class QuotaCreate(Body):
    model_config = ConfigDict(json_schema_extra={"example": {"yamlContent": QUOTA_EXAMPLE}})

    yaml_content: str = Field(max_length=MAX_YAML, description="a quota spec (kind: quota)")


class PoolCreate(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "name": "training-pool",
                "description": "A100 nodes for training",
                "nodes": ["node-1", "node-2"],
                "gpuType": ["a100-80g"],
            }
        }
    )

    name: str
    description: str = ""
    nodes: list[str] = Field(default_factory=list)
    gpu_type: list[str] = Field(
        default_factory=list,
        description="the GPU models the pool allows (any letter case): a node of another "
        "model is refused (409); nodes' GPU-type labels are never written",
    )
    max_gpus: int | None = Field(
        default=None,
        ge=0,
        description="the pool's GPU cap: the most GPUs the unfinished pods of its jobs may "
        "request together; creating a job beyond it is refused",
    )
    isolation: Literal["isolated", "shared"] = Field(
        default="isolated",
        description="isolated: the pool's nodes are tainted so that only its jobs run there; "
        "shared: no taint",
    )


# The largest cap a pool may have: far above any cluster, small enough for every quantity.
MAX_POOL_GPUS = 1_000_000


class PoolCapSet(Body):
    model_config = ConfigDict(json_schema_extra={"example": {"maxGpus": 12}})

    max_gpus: int | None = Field(
        ge=0,
        le=MAX_POOL_GPUS,
        strict=True,  # "12" is a string, not a cap
        description="the pool's new GPU cap (at most 1000000); null removes the cap",
    )


NODE_NAME = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"  # a DNS-1123 subdomain


class PoolNodesAdd(Body):
    model_config = ConfigDict(
        json_schema_extra={"example": {"nodes": ["node-3"], "overwrite": False}}
    )

    nodes: list[Annotated[str, Field(max_length=253, pattern=NODE_NAME)]] = Field(
        min_length=1, max_length=1000, description="node names"
    )
    overwrite: bool = Field(
        default=False, description="move nodes that are in another pool (else 409)"
    )


class LabelCreate(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {"key": Labels.GPU_TYPE_USER, "value": "a100-80g", "overwrite": False}
        }
    )

    key: str
    value: str
    overwrite: bool = False


class LabelBatchCreate(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "nodeNames": ["node-2", "node-3"],
                "key": Labels.GPU_TYPE_USER,
                "value": "a100-40g",
                "overwrite": True,
            }
        }
    )

    node_names: list[str] = Field(min_length=1, max_length=1000)
    key: str
    value: str
    overwrite: bool = False


class AuthCheck(Body):
    model_config = ConfigDict(
        json_schema_extra={"example": {"resource": "pools", "action": "create"}}
    )

    # an unknown resource or action is 400 InvalidRequest naming the field, not a refusal
    resource: Resource = Field(description="jobs, pools, nodes, labels or quotas")
    action: Action = Field(description="get, create or delete")
    pool: str | None = None
    user: str | None = Field(None, description="the owner, for jobs and quotas")


class CustomMetricsPush(Body):
    """A job's own values, by name (at most 32 in one push)."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "jobId": "alice.qwen2-7b-sft",
                "metrics": {"loss": 0.12, "tokensPerSecond": 5100, "progress": 42.5},
            }
        }
    )

    job_id: str = Field(
        max_length=320,
        description="the job: its id `<namespace>.<name>`, or `<namespace>/<name>`, or "
        "`<name>` alone for a job in the caller's own namespace",
    )
    metrics: dict[str, Any] = Field(
        description="name -> a finite number; `progress` is percent (0-100), `tokensPerSecond`"
        " or `samplesPerSecond` the job's throughput",
        json_schema_extra={"additionalProperties": {"type": "number"}},
    )
