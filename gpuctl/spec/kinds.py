"""The registry of kinds: the one place that knows which kinds exist.

A kind is a schema in schemas/, a folder in templates/ and one entry in KINDS. Nothing else in
gpuctl branches on a kind's name; what differs between kinds is data here or in the templates.
The builders turn a validated, defaulted spec into the template context (derived values only:
no YAML is written here).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from gpuctl import constants as c
from gpuctl.constants import Labels
from gpuctl.errors import Problem
from gpuctl.spec import accelerators, runtime
from gpuctl.spec import quantity as quantities
from gpuctl.spec.document import Document, Path_


@dataclass(frozen=True)
class Options:
    """Choices made on the command line that change what is rendered."""

    namespace: str | None = None  # -n/--namespace: wins over job.namespace
    default_namespace: str = c.DEFAULT_NAMESPACE  # the kubeconfig context's, for cluster commands
    priority_classes: bool = True  # set priorityClassName gpuctl-<priority>
    # the Kueue API version the cluster serves (constants.KUEUE_VERSIONS), None without Kueue:
    # pool files render their Kueue objects at it
    kueue: str | None = None
    # the pools whose record says they are Kueue ClusterQueues: their training jobs queue there
    kueue_pools: frozenset[str] = frozenset()


Builder = Callable[[Document, dict[str, Any], Options], tuple[dict[str, Any], list[Problem]]]
# node name -> {label key: value}: labels a spec puts on nodes it does not own (not rendered;
# written by create/apply, removed by delete).
NodeLabeler = Callable[[dict[str, Any]], dict[str, dict[str, str]]]


@dataclass(frozen=True)
class Kind:
    name: str
    summary: str
    build: Builder  # spec (validated, defaulted) -> (template context, problems)
    spellings: tuple[str, ...] = ()  # other values of `kind:` accepted for this kind
    node_labels: NodeLabeler | None = None
    is_job: bool = False  # renders a workload that `get jobs`, `logs` and `pause` act on

    @property
    def schema(self) -> str:
        return f"{self.name}.json"

    @property
    def template_folder(self) -> str:
        return self.name


# ---------------------------------------------------------------------------- builders


def quantity(value: int | float | str) -> str:
    """A number from YAML as the Kubernetes quantity text (`8`, `0.5`); strings pass through."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _duplicates(document: Document, items: list[Any], field: str, base: Path_) -> list[Problem]:
    seen: dict[Any, int] = {}
    problems = []
    for index, item in enumerate(items):
        value = item.get(field)
        if value in seen:
            problems.append(
                document.problem(
                    (*base, index, field),
                    f"duplicate {value!r}",
                    f"already given at {base[-1]}[{seen[value]}]",
                )
            )
        else:
            seen[value] = index
    return problems


ENV_PATH: Final = ("environment", "env")


def _workload_problems(document: Document, spec: dict[str, Any]) -> list[Problem]:
    """What the schema cannot say: duplicate env names and workdirs, autoscaling bounds the
    wrong way round, placement without GPUs."""
    res, service = spec["resources"], spec.get("service", {})
    problems = _duplicates(document, spec["environment"].get("env", []), "name", ENV_PATH)
    workdirs = spec.get("storage", {}).get("workdirs", [])
    problems += _duplicates(document, workdirs, "path", ("storage", "workdirs"))
    autoscaling = service.get("autoscaling")
    if autoscaling and autoscaling["min_replicas"] > autoscaling["max_replicas"]:
        problems.append(
            document.problem(
                ("service", "autoscaling", "min_replicas"),
                f"min_replicas ({autoscaling['min_replicas']}) is above max_replicas "
                f"({autoscaling['max_replicas']})",
            )
        )
    problems += _gpu_share_problems(document, res)
    if spec.get("security") == "restricted" and workdirs:
        problems.append(
            document.problem(
                ("storage", "workdirs"),
                "a restricted pod mounts no host path, and every workdir is one",
                "remove storage.workdirs, or set security: baseline",
            )
        )
    problems += _amount_problems(
        document, res, ("resources",), {"cpu": c.MAX_POD_CPU, "memory": c.MAX_POD_MEMORY}
    )
    metrics_port = spec.get("metrics", {}).get("port")
    if metrics_port == c.MASTER_PORT and res.get("node_count", 1) > 1:
        problems.append(
            document.problem(
                ("metrics", "port"),
                f"port {c.MASTER_PORT} is the rendezvous port of a multi-node job",
                "serve the metrics on another port, e.g. 9100",
            )
        )
    if "placement" in res and res.get("gpu", 0) < 1:
        problems.append(
            document.problem(
                ("resources", "placement"),
                "placement picks a node by its free GPUs, so it needs resources.gpu ≥ 1 "
                "(remove placement, or ask for GPUs)",
            )
        )
    return problems


def _amount_problems(
    document: Document, amounts: dict[str, Any], base: Path_, limits: dict[str, int]
) -> list[Problem]:
    """Each amount in `limits` (cpu in cores, memory in bytes) within its cap. The schema caps
    amounts written as numbers; this also caps those written as quantities (`5000`, `64Pi`)."""
    problems = []
    for field, cap in limits.items():
        if field not in amounts:
            continue
        written = amounts[field]
        try:
            amount = quantities.parse(written)
        except ValueError as exc:
            problems.append(document.problem((*base, field), str(exc)))
            continue
        if amount > cap:
            shown = f"{cap:,} cores" if field == "cpu" else _bytes(cap)
            problems.append(
                document.problem(
                    (*base, field),
                    f"{written!r} is out of range: it must be at most {shown}",
                )
            )
    return problems


def _bytes(amount: int) -> str:
    """A whole number of bytes in the largest binary unit that divides it (`64Ti`)."""
    for unit, size in (("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20)):
        if amount % size == 0:
            return f"{amount // size}{unit}"
    return str(amount)


def _gpu_share_problems(document: Document, res: dict[str, Any]) -> list[Problem]:
    """gpu-share is GPU memory on one shared GPU: it goes with gpu 0 or 1 (one shared GPU), never
    with several whole GPUs, and placement (which counts whole GPUs) has nothing to place."""
    if "gpu-share" not in res:
        return []
    share, gpu = res["gpu-share"], res.get("gpu", 0)
    if gpu > 1:
        return [
            document.problem(
                ("resources", "gpu-share"),
                f"gpu-share ({share}) asks for part of one shared GPU, but resources.gpu asks "
                f"for {gpu} whole GPUs",
                "remove gpu-share to take whole GPUs, or set gpu: 1 for one shared GPU",
            )
        ]
    if "placement" in res:
        return [
            document.problem(
                ("resources", "placement"),
                f"placement picks a node by its free whole GPUs, and a gpu-share ({share}) job "
                "takes none",
                "remove placement (the GPU-share scheduler picks the node) or gpu-share",
            )
        ]
    return []


def _env(document: Document, items: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The container's env; numbers and booleans as the text the user wrote."""
    env = []
    for index, item in enumerate(items):
        value = item.get("value", "")
        if not isinstance(value, str):
            value = document.raw.get((*ENV_PATH, index, "value"), str(value))
        env.append({"name": item["name"], "value": value})
    return env


def _container_resources(res: dict[str, Any]) -> dict[str, str]:
    """Requests and limits of the container: whole GPUs of the GPU type's vendor (its device
    plugin's resource name, gpuctl.spec.accelerators; NVIDIA's without a type); a gpu-share job
    asks the GPU-share device plugin for GPU memory and takes no whole GPU (`gpu: 1` beside it
    means one shared GPU)."""
    resources = {"cpu": quantity(res["cpu"]), "memory": quantity(res["memory"])}
    if "gpu-share" in res:
        resources[c.GPU_SHARE_RESOURCE] = res["gpu-share"].removesuffix("Gi")
    elif res.get("gpu", 0) > 0:
        resources[accelerators.lookup(res.get("gpu-type")).resource] = str(res["gpu"])
    return resources


_FILE_NAME = re.compile(r"[^/.][^/]*\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{2,12}")


def host_path_type(workdir: dict[str, Any]) -> str:
    """A workdir's hostPath type: its `type`, else the path's form (constants.HOST_PATH_TYPES)."""
    path = workdir["path"]
    form = workdir.get("type")
    if form is None:
        last = path.rsplit("/", 1)[-1]  # "" for a trailing slash: a directory
        form = "file" if _FILE_NAME.fullmatch(last) else "directory"
    return c.HOST_PATH_TYPES[form]


def _workload(
    kind: str,
    supplies_deepspeed: bool = False,
    port_ready: bool = False,
    jupyter_token: bool = False,
) -> Builder:
    """The builder shared by the four workload kinds (training, inference, notebook, compute).

    `supplies_deepspeed`: `--deepspeed X.json` that no workdir provides gets a base config.
    `port_ready`: without a health check, the pod is ready once its service port takes
    connections (a TCP readiness probe), not as soon as its container starts.
    `jupyter_token`: without a token of its own, the container reads the one create and apply
    generate (see _token_secret).
    """

    def build(
        document: Document, spec: dict[str, Any], options: Options
    ) -> tuple[dict[str, Any], list[Problem]]:
        job, env_spec, res = spec["job"], spec["environment"], spec["resources"]
        if res["pool"] in c.DEFAULT_POOL_NAMES:  # `default-pool` is the default pool too
            res["pool"] = c.DEFAULT_POOL
        service = spec.get("service", {})
        name = job["name"]
        namespace = options.namespace or job.get("namespace") or options.default_namespace
        workdirs = spec.get("storage", {}).get("workdirs", [])
        labels = {
            Labels.JOB_TYPE: kind,
            Labels.PRIORITY: job["priority"],
            Labels.POOL: res["pool"],
            Labels.NAMESPACE: namespace,
        }
        gpu, node_count = res.get("gpu", 0), res.get("node_count", 1)
        command, args = env_spec.get("command", []), env_spec.get("args", [])
        paths = [w["path"] for w in workdirs]
        ds = runtime.deepspeed(command, args, paths) if supplies_deepspeed else None
        if ds is not None:
            command, args = ds.command, ds.args
        context: dict[str, Any] = {
            "name": name,
            "namespace": namespace,
            "service_name": c.SERVICE_PREFIX + name,
            "description": job.get("description", ""),
            "labels": {**labels, Labels.MANAGED_BY: c.MANAGED_BY_VALUE, Labels.INSTANCE: name},
            "app_label": Labels.APP,
            "job_name_label": Labels.JOB_NAME,
            "hostname_label": Labels.HOSTNAME,
            "description_annotation": c.ANNOTATION_PREFIX + "description",
            "image": env_spec["image"],
            "image_pull_secret": env_spec.get("imagePullSecret"),
            "command": command,
            "args": args,
            "env": _env(document, env_spec.get("env", [])),
            "resources": _container_resources(res),
            "pool_selector": ({Labels.POOL: res["pool"]} if res["pool"] != c.DEFAULT_POOL else {}),
            "tolerations": pool_tolerations(res["pool"]),
            "node_terms": node_terms(res["pool"], res.get("gpu-type")),
            "gpu_type": res.get("gpu-type"),
            "placement": res.get("placement"),
            "placement_annotation": c.PLACEMENT_ANNOTATION,
            "workdirs": [
                {"name": f"workdir-{i}", "path": w["path"], "type": host_path_type(w)}
                for i, w in enumerate(workdirs)
            ],
            "priority_class": (
                c.PRIORITY_CLASS_PREFIX + job["priority"] if options.priority_classes else None
            ),
            "replicas": service.get("replicas", 1),
            "port": service.get("port"),
            "health_check": service.get("health_check"),
            "startup_probe_failures": _startup_probe_failures(service),
            "startup_probe_period": c.STARTUP_PROBE_PERIOD,
            "port_ready": port_ready and not service.get("health_check"),
            "restricted": spec.get("security") == "restricted",
            "autoscaling": service.get("autoscaling"),
            "disruption_budget": _least_pods(service) >= c.DISRUPTION_BUDGET_MIN_PODS,
            "gpu_metric": c.GPU_UTILIZATION_METRIC,
            **_metrics_endpoint(spec.get("metrics"), service.get("port")),
            "node_count": node_count,
            "distributed": node_count > 1,
            "rendezvous": {
                "MASTER_ADDR": f"{name}-0.{name}",
                "MASTER_PORT": str(c.MASTER_PORT),
                "WORLD_SIZE": str(node_count),
                "NPROC_PER_NODE": str(max(gpu, 1)),
                "NCCL_SOCKET_IFNAME": c.NCCL_SOCKET_IFNAME,
            },
            "completion_index_field": (
                f"metadata.annotations['{c.JOB_COMPLETION_INDEX_ANNOTATION}']"
            ),
            **_gpu_runtime(name, res, paths, ds),
            "queue": queue_of(res, options),
            **_token_secret(name, env_spec, jupyter_token),
        }
        return context, _workload_problems(document, spec)

    return build


def _token_secret(name: str, env_spec: dict[str, Any], wanted: bool) -> dict[str, Any]:
    """A notebook that sets no Jupyter token (no `--ServerApp.token=…` and kin, no
    JUPYTER_TOKEN in env) reads one from the Secret {name}-notebook-token that create and
    apply generate (gpuctl.verbs.notebook_tokens): render stays pure, and the token is not in
    the StatefulSet for every reader of it to see."""
    words = [*env_spec.get("command", []), *env_spec.get("args", [])]
    own = runtime.jupyter_token(words) is not None or any(
        item["name"] == c.NOTEBOOK_TOKEN_ENV for item in env_spec.get("env", [])
    )
    return {
        "token_secret": name + c.NOTEBOOK_TOKEN_SECRET_SUFFIX if wanted and not own else None,
        "token_env": c.NOTEBOOK_TOKEN_ENV,
        "token_key": c.NOTEBOOK_TOKEN_KEY,
    }


def _metrics_endpoint(metrics: dict[str, Any] | None, service_port: int | None) -> dict[str, Any]:
    """The pod annotations that point a Prometheus at the job's own metrics, and the container
    port to declare for them (none when they are served on the service port)."""
    if not metrics:
        return {"metrics_annotations": {}, "metrics_port": None}
    return {
        "metrics_annotations": {
            c.PROMETHEUS_SCRAPE_ANNOTATION: "true",
            c.PROMETHEUS_PORT_ANNOTATION: str(metrics["port"]),
            c.PROMETHEUS_PATH_ANNOTATION: metrics["path"],
        },
        "metrics_port": None if metrics["port"] == service_port else metrics["port"],
        "metrics_port_name": c.METRICS_PORT_NAME,
    }


def pool_tolerations(pool: str) -> list[dict[str, str]]:
    """A job of a pool tolerates its pool's taint (an isolated pool's nodes carry it; a shared
    pool's do not, and the toleration then changes nothing)."""
    if pool == c.DEFAULT_POOL:
        return []
    return [
        {
            "key": c.POOL_TAINT_KEY,
            "operator": "Equal",
            "value": pool,
            "effect": c.POOL_TAINT_EFFECT,
        }
    ]


def queue_of(res: dict[str, Any], options: Options) -> str | None:
    """The Kueue LocalQueue of a job: `resources.queue` when given, else its pool's, when the
    pool is a Kueue ClusterQueue; None: no queue, the job starts at once."""
    if res.get("queue"):
        return str(res["queue"])
    if res["pool"] in options.kueue_pools:
        return str(res["pool"])
    return None


def node_terms(pool: str, gpu_type: str | None) -> list[list[dict[str, Any]]]:
    """The required node affinity's terms (OR-ed), each a list of expressions (AND-ed): a GPU
    model on either GPU-type label; a job without a pool only on nodes in no pool."""
    terms: list[list[dict[str, Any]]] = (
        [[{"key": key, "operator": "In", "values": [gpu_type]}] for key in c.GPU_TYPE_NODE_LABELS]
        if gpu_type
        else []
    )
    if pool == c.DEFAULT_POOL:
        in_no_pool = {"key": Labels.POOL, "operator": "DoesNotExist", "values": []}
        terms = [[*term, in_no_pool] for term in terms] or [[in_no_pool]]
    return terms


def _startup_probe_failures(service: dict[str, Any]) -> int:
    """How many failed checks the startup probe allows: startup_timeout seconds at one check
    every STARTUP_PROBE_PERIOD (rounded up)."""
    timeout = int(service.get("startup_timeout", c.DEFAULT_STARTUP_TIMEOUT))
    return -(-timeout // c.STARTUP_PROBE_PERIOD)


def _least_pods(service: dict[str, Any]) -> int:
    """The fewest pods a service runs: its autoscaler's minimum, else its replicas."""
    autoscaling = service.get("autoscaling")
    return int(autoscaling["min_replicas"] if autoscaling else service.get("replicas", 1))


def _gpu_runtime(
    name: str, res: dict[str, Any], workdirs: list[str], ds: runtime.DeepSpeed | None
) -> dict[str, Any]:
    """Shared memory, DeepSpeed configs and the multi-node start rules (see gpuctl.spec.runtime)."""
    wants_gpu = res.get("gpu", 0) > 0 or "gpu-share" in res
    return {
        "shm_size": (
            runtime.shm_size(res["memory"])
            if wants_gpu and not any(w.rstrip("/") == c.SHM_PATH for w in workdirs)
            else None
        ),
        "shm_path": c.SHM_PATH,
        "deepspeed_configmap": name + c.DEEPSPEED_CONFIGMAP_SUFFIX,
        "deepspeed_files": list(ds.files) if ds else [],
        "topology_key": res.get("topology_key", c.DEFAULT_TOPOLOGY_KEY),
        "start_timeout": res.get("start_timeout", c.DEFAULT_START_TIMEOUT),
        "queue_label": c.KUEUE_QUEUE_LABEL,
        "barrier_resources": c.START_BARRIER_RESOURCES,
        "barrier_container": c.START_BARRIER_CONTAINER,
    }


def _pool(
    document: Document, spec: dict[str, Any], options: Options
) -> tuple[dict[str, Any], list[Problem]]:
    meta = spec.get("metadata") or spec["pool"]  # kind: resource names the pool under pool:
    nodes = {name: (node or {}).get("gpu-type") for name, node in spec["nodes"].items()}
    record = {"name": meta["name"], "description": meta.get("description", ""), "nodes": nodes}
    context = {
        "name": meta["name"],
        "namespace": c.SYSTEM_NAMESPACE,
        "configmap_name": c.POOL_CONFIGMAP_PREFIX + meta["name"],
        "description": meta.get("description", ""),
        "nodes_json": json.dumps(nodes, sort_keys=True),
        "gpu_types_key": c.POOL_GPU_TYPES_KEY,
        "gpu_types_json": json.dumps(spec["gpu-types"]) if spec.get("gpu-types") else "",
        "max_gpus_key": c.POOL_MAX_GPUS_KEY,
        "max_gpus": str(spec["max-gpus"]) if "max-gpus" in spec else "",
        "isolation_key": c.POOL_ISOLATION_KEY,
        "isolation": spec.get("isolation", c.DEFAULT_POOL_ISOLATION),
        "record": record,
        "labels": {
            Labels.POOL: meta["name"],
            Labels.MANAGED_BY: c.MANAGED_BY_VALUE,
            Labels.INSTANCE: meta["name"],
        },
        "namespace_labels": {Labels.MANAGED_BY: c.MANAGED_BY_VALUE, Labels.INSTANCE: meta["name"]},
        "kueue": kueue_pool(meta["name"], spec, options.kueue) if options.kueue else None,
        "kueue_key": c.POOL_KUEUE_KEY,
    }
    return context, _reserved_pool_name(document, spec, meta["name"])


def _reserved_pool_name(document: Document, spec: dict[str, Any], name: str) -> list[Problem]:
    """`default` and `default-pool` name the nodes in no pool: no pool file may take them."""
    if name not in c.DEFAULT_POOL_NAMES:
        return []
    where = "metadata" if spec.get("metadata") else "pool"
    return [
        document.problem(
            (where, "name"),
            f"{name} is the default pool, the nodes in no pool; a pool file cannot take it",
            "pick another name (jobs without resources.pool run on the nodes in no pool)",
        )
    ]


def kueue_pool(name: str, spec: dict[str, Any], version: str) -> dict[str, Any]:
    """A pool's Kueue objects at API version `version` (see constants.KUEUE_GROUP and
    KUEUE_VERSIONS: the fields written are the same in each): one ResourceFlavor for the pool's
    nodes and a ClusterQueue whose GPU quota is the pool's cap. One flavor, not one per GPU
    type: Kueue's quotas are per flavor, so a flavor per type would cap each type rather than
    the pool. The GPU resources covered are those of the pool's allowed types, else every
    vendor's usual one."""
    types = spec.get("gpu-types") or []
    gpu_resources = sorted(
        {accelerators.lookup(t).resource for t in types}
        if types
        else {vendor.resource for vendor in accelerators.VENDORS}
    )
    gpu_quota = str(spec["max-gpus"]) if "max-gpus" in spec else c.KUEUE_UNBOUNDED_QUOTA["gpu"]
    isolated = pool_isolated(spec)
    return {
        "api_version": f"{c.KUEUE_GROUP}/{version}",
        "flavor": c.KUEUE_FLAVOR_PREFIX + name,
        "node_labels": {Labels.POOL: name},
        "tolerations": pool_tolerations(name) if isolated else [],
        "quotas": [
            {"name": "cpu", "quota": c.KUEUE_UNBOUNDED_QUOTA["cpu"]},
            {"name": "memory", "quota": c.KUEUE_UNBOUNDED_QUOTA["memory"]},
            *({"name": resource, "quota": gpu_quota} for resource in gpu_resources),
            # Kueue admits no workload asking for a resource its queue does not cover: a
            # gpu-share job's GPU memory is covered, uncapped (the cap counts whole GPUs)
            {"name": c.GPU_SHARE_RESOURCE, "quota": c.KUEUE_UNBOUNDED_QUOTA["gpu"]},
        ],
    }


def pool_isolated(spec: dict[str, Any]) -> bool:
    """An isolated pool's nodes carry its taint, which only its own jobs tolerate."""
    return bool(spec.get("isolation", c.DEFAULT_POOL_ISOLATION) == "isolated")


def _pool_node_labels(spec: dict[str, Any]) -> dict[str, dict[str, str]]:
    """A pool labels its nodes runwhere.ai/pool (and runwhere.ai/gpu-type when given)."""
    name = (spec.get("metadata") or spec["pool"])["name"]
    labels = {}
    for node, settings in spec["nodes"].items():
        labels[node] = {Labels.POOL: name}
        if (settings or {}).get("gpu-type"):
            labels[node][Labels.GPU_TYPE] = settings["gpu-type"]
    return labels


def pod_security_labels(level: str) -> dict[str, str]:
    """A namespace's Pod Security labels: `level` enforced, warned and audited, at the
    version of the cluster's Kubernetes."""
    labels = {}
    for mode in c.POD_SECURITY_MODES:
        labels[f"{c.POD_SECURITY_LABEL_PREFIX}{mode}"] = level
        labels[f"{c.POD_SECURITY_LABEL_PREFIX}{mode}-version"] = c.POD_SECURITY_VERSION
    return labels


def _quota(
    document: Document, spec: dict[str, Any], options: Options
) -> tuple[dict[str, Any], list[Problem]]:
    users = []
    problems = []
    for user, limits in spec["users"].items():
        problems += _amount_problems(
            document,
            limits,
            ("users", user),
            {"cpu": c.MAX_QUOTA_CPU, "memory": c.MAX_QUOTA_MEMORY},
        )
        hard: dict[str, str] = {}
        if "cpu" in limits:
            hard["requests.cpu"] = hard["limits.cpu"] = quantity(limits["cpu"])
        if "memory" in limits:
            hard["requests.memory"] = hard["limits.memory"] = quantity(limits["memory"])
        hard.update(_accelerator_limits(limits))
        if "gpu" in limits and "nvidia" in limits.get("accelerators", {}):
            problems.append(
                document.problem(
                    ("users", user, "accelerators", "nvidia"),
                    "NVIDIA GPUs are limited twice: by gpu and by accelerators.nvidia",
                    "keep one of the two",
                )
            )
        users.append({"namespace": user, "hard": hard})
    context = {
        "name": spec["metadata"]["name"],
        "namespace_labels": pod_security_labels(spec["pod_security"]),
        "description": spec["metadata"].get("description", ""),
        "description_annotation": c.ANNOTATION_PREFIX + "description",
        "users": users,
        "labels": {
            Labels.MANAGED_BY: c.MANAGED_BY_VALUE,
            Labels.INSTANCE: spec["metadata"]["name"],
        },
    }
    return context, problems


def _accelerator_limits(limits: dict[str, Any]) -> dict[str, str]:
    """A user's hard limits on devices: `gpu` on every vendor's resource names, `accelerators`
    per vendor instead of it (0 is a hard limit of none, not "unlimited"); `gpu-share` on
    shared GPU memory, which `gpu: 0` forbids too when it is not given (a ResourceQuota cannot
    count a share as part of a GPU, so `gpu` above 0 leaves shares to `gpu-share`)."""
    per_vendor = dict(limits.get("accelerators", {}))
    if "gpu" in limits:
        for vendor in accelerators.VENDORS:
            per_vendor.setdefault(vendor.key, limits["gpu"])
    hard = {}
    for vendor in accelerators.VENDORS:
        if vendor.key in per_vendor:
            for key in vendor.quota_keys:
                hard[key] = str(per_vendor[vendor.key])
    share_key = f"requests.{c.GPU_SHARE_RESOURCE}"
    if "gpu-share" in limits:
        hard[share_key] = str(limits["gpu-share"]).removesuffix("Gi")
    elif limits.get("gpu") == 0:
        hard[share_key] = "0"
    return hard


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind(
            "training",
            "a training run: a Job (Indexed, with rendezvous, over several nodes)",
            _workload("training", supplies_deepspeed=True),
            is_job=True,
        ),
        Kind(
            "inference",
            "an inference service: Deployment + NodePort Service (+ HPA)",
            _workload("inference"),
            is_job=True,
        ),
        Kind(
            "notebook",
            "a notebook: StatefulSet of one + NodePort Service",
            _workload("notebook", port_ready=True, jupyter_token=True),
            is_job=True,
        ),
        Kind(
            "compute",
            "a CPU service: Deployment + NodePort Service",
            _workload("compute"),
            is_job=True,
        ),
        Kind(
            "pool",
            "a resource pool: a record of its nodes and their GPU types",
            _pool,
            spellings=("resource",),
            node_labels=_pool_node_labels,
        ),
        Kind("quota", "a team quota: per user a Namespace and a ResourceQuota", _quota),
    )
}


def lookup(spelling: str) -> Kind | None:
    """The kind written as `spelling` in a file's `kind:` field."""
    if spelling in KINDS:
        return KINDS[spelling]
    for kind in KINDS.values():
        if spelling in kind.spellings:
            return kind
    return None


def job_kinds() -> list[str]:
    """The kinds whose specs are jobs (what `get jobs --kind` filters on)."""
    return [kind.name for kind in KINDS.values() if kind.is_job]


def spellings() -> list[str]:
    return [spelling for kind in KINDS.values() for spelling in (kind.name, *kind.spellings)]
