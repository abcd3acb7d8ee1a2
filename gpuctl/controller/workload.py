"""A GPUWorkload as gpuctl sees it: its defaulted spec, the gpuctl training spec it stands for,
what `gpuctl create` of that spec writes, and what the controller adds to its Job (the owner,
the workload label, the pin to the chosen node).

Pure: objects (dicts) in, objects out; no cluster.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from typing import Any, Final

import jsonschema
import yaml

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.controller import resource
from gpuctl.errors import SpecError
from gpuctl.placement.affinity import pin_to_nodes
from gpuctl.render.engine import Manifest
from gpuctl.spec.document import Document
from gpuctl.spec.kinds import Options
from gpuctl.verbs.create import Marks
from gpuctl.verbs.plan import desired_object
from gpuctl.verbs.workset import Workset
from gpuctl.workloads import pod_spec_of

WORKLOAD_LABEL: Final = c.Labels.WORKLOAD
MODEL_NAME_ENV: Final = "MODEL_NAME"
JOB_NAME_MAX: Final = 59  # what a gpuctl training job name may be
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def label_value(name: str) -> str:
    """The workload label's value for a workload name: the name when it fits a label value
    (63 characters), else its first 52 characters, "-" and 10 hex digits of its SHA-256 (the
    same every time, so the Job and its pods are found again; the full name is in the
    gpu.warp.dev/workload-name annotation). A GPUWorkload name is a DNS subdomain, whose
    characters a label value also takes."""
    if len(name) <= c.LABEL_VALUE_MAX:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[: c.LABEL_HASH_CHARS]
    return f"{name[: c.LABEL_STEM_MAX]}-{digest}"


def workload_selector(name: str) -> str:
    """The label selector of the Job and pods made for the workload `name`."""
    return f"{WORKLOAD_LABEL}={label_value(name)}"


class WorkloadInvalid(Exception):
    """The workload cannot become a Job; the message says why, in one line."""


@functools.cache
def _status_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(resource.json_schema(resource.status_schema()))


def status_problem(status: Any) -> str:
    """Why a workload's status cannot be read ("" when it can): not an object, or a field of
    the wrong type or value for the CRD's status schema (fields it does not know are ignored)."""
    if status is None:
        return ""
    if not isinstance(status, dict):
        return f"status is a {type(status).__name__}, not an object"
    for error in _status_validator().iter_errors(status):
        if error.validator != "additionalProperties":
            where = ".".join(str(part) for part in ("status", *error.absolute_path))
            return f"{where}: {error.message}"
    return ""


@dataclass(frozen=True)
class Workload:
    """A GPUWorkload's identity and defaulted spec. A status that cannot be read is taken as
    none (the workload is new), and `unreadable_status` says why."""

    name: str
    namespace: str
    uid: str
    generation: int
    spec: dict[str, Any]
    status: dict[str, Any]
    unreadable_status: str = ""

    @classmethod
    def of(cls, obj: dict[str, Any]) -> Workload:
        meta = obj.get("metadata") or {}
        spec = resource.with_defaults(resource.spec_schema(), obj.get("spec") or {})
        problem = status_problem(obj.get("status"))
        return cls(
            name=str(meta.get("name", "")),
            namespace=str(meta.get("namespace") or "default"),
            uid=str(meta.get("uid", "")),
            generation=int(meta.get("generation") or 0),
            spec=spec,
            status={} if problem else dict(obj.get("status") or {}),
            unreadable_status=problem,
        )

    @property
    def gpus(self) -> int:
        return int(self.spec["gpuCount"])

    @property
    def strategy(self) -> str:
        return str(self.spec["schedulingStrategy"])

    @property
    def max_retries(self) -> int:
        return int(self.spec["retryPolicy"]["maxRetries"])

    @property
    def backoff_seconds(self) -> float:
        return float(self.spec["retryPolicy"]["backoffSeconds"])

    @property
    def job_name(self) -> str:
        """The Job's name: the workload's own when it is a short DNS label, else a shortened
        one with a hash of the full name (the same every time, so a Job is found again)."""
        if len(self.name) <= JOB_NAME_MAX and _DNS_LABEL.fullmatch(self.name):
            return self.name
        digest = hashlib.sha256(self.name.encode()).hexdigest()[:8]
        stem = re.sub(r"[^a-z0-9-]", "-", self.name.lower())[: JOB_NAME_MAX - 9].strip("-")
        return f"{stem or 'gpuworkload'}-{digest}"

    def training_spec(self, pool: str | None = None) -> dict[str, Any]:
        """The gpuctl training spec this workload stands for (one node, `gpuCount` GPUs), in
        `pool` (that of the node it is placed on; default-pool without one)."""
        spec = self.spec
        env = [{"name": MODEL_NAME_ENV, "value": str(spec["modelName"])}]
        env += [
            {"name": item["name"], "value": str(item.get("value", ""))}
            for item in spec.get("env") or []
            if item.get("name") != MODEL_NAME_ENV
        ]
        environment: dict[str, Any] = {"image": spec["image"], "env": env}
        for key in ("command", "args"):
            if spec.get(key):
                environment[key] = list(spec[key])
        return {
            "kind": "training",
            "version": "v0.1",
            "job": {
                "name": self.job_name,
                "namespace": self.namespace,
                "priority": spec["priority"],
                "description": f"GPUWorkload {self.name}: model {spec['modelName']}",
            },
            "environment": environment,
            "resources": {
                "gpu": self.gpus,
                "cpu": spec["cpu"],
                "memory": spec["memory"],
                **({"pool": pool} if pool else {}),
            },
        }


def training_document(workload: Workload, pool: str | None = None) -> Document:
    """The workload's training spec as a gpuctl spec document: its data is the dict itself;
    its text (what `GET /jobs/{id}` shows as the spec) is that dict written as YAML."""
    data = workload.training_spec(pool)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    source = f"{resource.PLURAL}/{workload.namespace}/{workload.name}"
    return Document(source, 0, 1, data, text=text)


def job_manifests(workload: Workload, pool: str | None, options: Options) -> list[Manifest]:
    """What `gpuctl create` of the workload's training spec in `pool` writes, rendered for a
    cluster with `options` (verbs.options.cluster_options: a pool that is a Kueue
    ClusterQueue queues the Job there): the spec becomes a Workset the way the CLI's and the
    REST API's specs do (checked, then rendered). A one-node training spec renders one Job.
    WorkloadInvalid when the spec is refused."""
    try:
        work = Workset.from_documents([training_document(workload, pool)], options)
    except SpecError as exc:
        raise WorkloadInvalid("; ".join(str(p) for p in exc.problems)) from exc
    jobs = [m for m in work.manifests if m.kind == workloads.JOB.kind]
    if len(jobs) != 1:  # pragma: no cover - a one-node training spec renders one Job
        raise WorkloadInvalid(f"the training spec rendered {len(jobs)} Jobs, not one")
    return work.manifests


@dataclass(frozen=True, kw_only=True)
class JobMarks(Marks):
    """What the controller adds to the Job the create verb writes, after its fingerprint: the
    owner, the workload label (on the Job and its pods) and the pin to `node` by required node
    affinity (the scheduler still checks it fits, unlike nodeName). They are the
    controller's, not the spec's, so `gpuctl apply` of the same spec leaves the Job alone."""

    workload: Workload
    node: str

    def on(self, manifest: Manifest, obj: dict[str, Any]) -> dict[str, Any]:
        obj = super().on(manifest, obj)
        if manifest.kind != workloads.JOB.kind:
            return obj
        for meta in (obj["metadata"], obj["spec"]["template"]["metadata"]):
            meta.setdefault("labels", {})[WORKLOAD_LABEL] = label_value(self.workload.name)
            meta.setdefault("annotations", {})[c.WORKLOAD_NAME_ANNOTATION] = self.workload.name
        obj["metadata"]["ownerReferences"] = [owner_reference(self.workload)]
        pin_to_nodes(pod_spec_of(obj), [self.node])
        return obj


def render_job(
    workload: Workload, node: str, pool: str | None = None, options: Options | None = None
) -> dict[str, Any]:
    """The Job the controller writes for the workload on `node` (in `pool`, the node's pool;
    None: a node in no pool), as the create verb sends it (fingerprinted, carrying its spec
    text, with the controller's marks), before the verb's cluster checks (which may leave out
    a PriorityClass the cluster lacks). Pure: for plans and benchmarks."""
    manifests = job_manifests(workload, pool, options or Options())
    (job,) = [m for m in manifests if m.kind == workloads.JOB.kind]
    return JobMarks(workload=workload, node=node).on(job, desired_object(job))


def owner_reference(workload: Workload) -> dict[str, Any]:
    """Deleting the workload deletes the Job (and its pods) through the garbage collector."""
    return {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "name": workload.name,
        "uid": workload.uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
