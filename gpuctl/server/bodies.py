"""Request bodies, in the documents' camelCase (pydantic checks them; a bad one is a 400)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

MAX_YAML = 1024 * 1024  # one spec; the CLI's own file cap is larger, for whole folders
MAX_BATCH = 100


class Body(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class JobCreate(Body):
    yaml_content: str = Field(max_length=MAX_YAML, description="a job spec, as in a YAML file")


class JobBatchCreate(Body):
    yaml_contents: list[Annotated[str, Field(max_length=MAX_YAML)]] = Field(
        max_length=MAX_BATCH, description="job specs, each as in a YAML file (1 MiB each at most)"
    )


class QuotaCreate(Body):
    yaml_content: str = Field(max_length=MAX_YAML, description="a quota spec (kind: quota)")


class PoolCreate(Body):
    name: str
    description: str = ""
    nodes: list[str] = Field(default_factory=list)
    gpu_type: list[str] = Field(
        default_factory=list,
        description="the GPU models the pool allows (any letter case): a node of another "
        "model is refused (409); nodes' GPU-type labels are never written",
    )


class LabelCreate(Body):
    key: str
    value: str
    overwrite: bool = False


class LabelBatchCreate(Body):
    node_names: list[str] = Field(min_length=1, max_length=1000)
    key: str
    value: str
    overwrite: bool = False


class AuthCheck(Body):
    resource: str = Field(description="jobs, pools, nodes, labels or quotas")
    action: str = Field(description="get, create or delete")
    pool: str | None = None
    user: str | None = Field(None, description="the owner, for jobs and quotas")
