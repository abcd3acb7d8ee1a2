"""Every label key, prefix, default and status word gpuctl uses."""

from __future__ import annotations

from typing import Final

SPEC_VERSIONS: Final = ("v0.1",)

# Label keys. Workload labels use the runwhere.ai/ domain; node labels written by
# `gpuctl label node` must use g8s.host/, so they never collide with other people's labels.
LABEL_DOMAIN: Final = "runwhere.ai/"
USER_NODE_LABEL_PREFIX: Final = "g8s.host/"
# The GPUWorkload controller's API group (its labels and annotations use it as their prefix),
# and the prefix of the node labels its placement strategies read.
WORKLOAD_GROUP: Final = "gpu.warp.dev"
WORKLOAD_PREFIX: Final = WORKLOAD_GROUP + "/"
ORCHESTRATOR_PREFIX: Final = "gpu-orchestrator/"
# gpuctl's own annotations (apply bookkeeping, the spec a job was written from).
ANNOTATION_PREFIX: Final = "gpuctl." + LABEL_DOMAIN


class Labels:
    JOB_TYPE: Final = LABEL_DOMAIN + "job-type"
    PRIORITY: Final = LABEL_DOMAIN + "priority"
    POOL: Final = LABEL_DOMAIN + "pool"
    NAMESPACE: Final = LABEL_DOMAIN + "namespace"
    GPU_TYPE: Final = LABEL_DOMAIN + "gpu-type"
    GPU_TYPE_USER: Final = USER_NODE_LABEL_PREFIX + "gpu-type"
    APP: Final = "app"
    JOB_NAME: Final = "job-name"  # set on training pods by the Job controller
    MANAGED_BY: Final = "app.kubernetes.io/managed-by"
    # The job (or pool, or quota) an object belongs to: what prune and `delete job` select on.
    INSTANCE: Final = "app.kubernetes.io/instance"
    # The GPUWorkload a Job (and its pods) was made for: its name, hash-shortened to a label
    # value (see gpuctl.controller.workload.label_value); the full name is in an annotation.
    WORKLOAD: Final = WORKLOAD_PREFIX + "workload"
    # Nodes that costOptimized placement prefers.
    CHEAP_NODE: Final = ORCHESTRATOR_PREFIX + "cheap-node"
    # Every node's own name (the kubelet sets it): what pinning and one-pod-per-node select on.
    HOSTNAME: Final = "kubernetes.io/hostname"
    # The StatefulSet controller's revision of a pod's template: a pod whose label names the
    # set's status.updateRevision is up to date (the controller does not replace it).
    CONTROLLER_REVISION: Final = "controller-revision-hash"
    # A job created through the API with an Idempotency-Key: a digest of the caller and the
    # key (what a repeated request selects on; the key itself is in an annotation).
    IDEMPOTENCY: Final = LABEL_DOMAIN + "idempotency"
    # Webhook records in SYSTEM_NAMESPACE: "subscription" (a ConfigMap and its Secret) or
    # "delivery" (an outbox ConfigMap), and the subscription a delivery is for.
    WEBHOOK: Final = LABEL_DOMAIN + "webhook"
    WEBHOOK_SUBSCRIPTION: Final = LABEL_DOMAIN + "webhook-subscription"


MANAGED_BY_VALUE: Final = "gpuctl"

WORKLOAD_NAME_ANNOTATION: Final = WORKLOAD_PREFIX + "workload-name"
# A label value holds at most 63 characters; a longer name is kept as its first
# LABEL_STEM_MAX characters, "-" and LABEL_HASH_CHARS hex digits of its SHA-256.
LABEL_VALUE_MAX: Final = 63
LABEL_HASH_CHARS: Final = 10
LABEL_STEM_MAX: Final = LABEL_VALUE_MAX - LABEL_HASH_CHARS - 1

# Both node labels name a GPU model; placement and `get nodes --gpu-type` honour either.
GPU_TYPE_NODE_LABELS: Final = (Labels.GPU_TYPE, Labels.GPU_TYPE_USER)

# Extended resources.
GPU_RESOURCE: Final = "nvidia.com/gpu"
GPU_SHARE_RESOURCE: Final = "aliyun.com/gpu-mem"  # GPU-share device plugin, in GiB

# A workdir's hostPath type, by its `type` field or, when absent, by the path's form: a last
# component with a file extension (a dot, then 2-12 letters or digits, at least one a letter:
# data.json, model.safetensors) is a file; anything else (conf.d, qwen2.5, a trailing /) is a
# directory, created when missing. A File hostPath must exist on the node.
HOST_PATH_TYPES: Final = {"directory": "DirectoryOrCreate", "file": "File"}
# A service with a health check gets a startup probe on it, every STARTUP_PROBE_PERIOD seconds
# for `service.startup_timeout` seconds (default below): the liveness probe starts only once it
# passed, so a model that loads for minutes is not restarted in a loop.
STARTUP_PROBE_PERIOD: Final = 10
DEFAULT_STARTUP_TIMEOUT: Final = 600

DEFAULT_NAMESPACE: Final = "default"
DEFAULT_POOL: Final = "default"
# What a job's resources.pool may call the default pool (the nodes in no pool): the users'
# documents call it default-pool. No pool file may take either name.
DEFAULT_POOL_NAMES: Final = (DEFAULT_POOL, "default-pool")
DEFAULT_PRIORITY: Final = "medium"
PRIORITIES: Final = ("high", "medium", "low")
PRIORITY_CLASS_PREFIX: Final = "gpuctl-"
# PriorityClass values for `gpuctl priority-classes`; far below system-cluster-critical (2e9).
PRIORITY_CLASS_VALUES: Final = {"high": 1000, "medium": 500, "low": 100}
# Each class's preemptionPolicy: high and medium evict lower-priority pods when nothing fits;
# low never evicts anyone (it waits), though it can itself be evicted.
PRIORITY_PREEMPTION: Final = {
    "high": "PreemptLowerPriority",
    "medium": "PreemptLowerPriority",
    "low": "Never",
}

# A user namespace (a quota's) enforces, warns and audits by this Pod Security Standard
# (pod-security.kubernetes.io/<mode> and <mode>-version labels) unless the quota says otherwise.
POD_SECURITY_LABEL_PREFIX: Final = "pod-security.kubernetes.io/"
POD_SECURITY_MODES: Final = ("enforce", "warn", "audit")
POD_SECURITY_LEVELS: Final = ("restricted", "baseline", "privileged")
DEFAULT_POD_SECURITY: Final = "baseline"
POD_SECURITY_VERSION: Final = "latest"

SYSTEM_NAMESPACE: Final = "gpuctl-system"  # where pool records (ConfigMaps) live
CONTROLLER_NAMESPACE: Final = "gpu-orchestrator-system"  # the GPUWorkload controller's own
# Namespaces no user may be named after (a user's jobs and quota live in the namespace of their
# name): the cluster's own (and every kube-* one), gpuctl's and the controller's.
RESERVED_NAMESPACES: Final = ("default", SYSTEM_NAMESPACE, CONTROLLER_NAMESPACE)
RESERVED_NAMESPACE_PREFIX: Final = "kube-"
SERVICE_PREFIX: Final = "svc-"
# A notebook whose command line sets no Jupyter token and whose env has no JUPYTER_TOKEN reads
# one from Secret {name}-notebook-token (key `token`), which create and apply generate.
NOTEBOOK_TOKEN_ENV: Final = "JUPYTER_TOKEN"
NOTEBOOK_TOKEN_SECRET_SUFFIX: Final = "-notebook-token"
NOTEBOOK_TOKEN_KEY: Final = "token"
POOL_CONFIGMAP_PREFIX: Final = "pool-"
# Pool record data keys: the GPU models the pool allows (JSON list; a node of another model is
# refused), and the nodes on which the pool itself wrote runwhere.ai/gpu-type (JSON list; the
# pool's delete removes only those, never a label that was there before).
POOL_GPU_TYPES_KEY: Final = "gpuTypes"
POOL_WROTE_GPU_TYPE_KEY: Final = "wroteGpuType"
# Pool isolation: the nodes of an isolated pool carry the taint POOL_TAINT_KEY=<pool>:NoSchedule
# (written with the pool label, in the same patch) and every job of a pool tolerates its pool's
# taint, so nothing else is scheduled there; a shared pool's nodes carry no taint. A job in
# DEFAULT_POOL runs on nodes in no pool (required node affinity: POOL_TAINT_KEY DoesNotExist).
POOL_TAINT_KEY: Final = Labels.POOL
POOL_TAINT_EFFECT: Final = "NoSchedule"
# A pool's GPU cap (max-gpus in the pool file; the record's data key): the most GPUs the
# unfinished pods of its jobs may request together. create/apply refuse a job beyond it.
POOL_MAX_GPUS_KEY: Final = "maxGpus"
POOL_ISOLATION_KEY: Final = "isolation"  # the pool record's data key, and the pool file's field
POOL_ISOLATIONS: Final = ("isolated", "shared")
DEFAULT_POOL_ISOLATION: Final = "isolated"

# Distributed training rendezvous (torchrun / DeepSpeed conventions).
MASTER_PORT: Final = 29500
NCCL_SOCKET_IFNAME: Final = "eth0"
JOB_COMPLETION_INDEX_ANNOTATION: Final = "batch.kubernetes.io/job-completion-index"

# A GPU pod's /dev/shm: memory-backed, half the pod's memory (PyTorch DataLoader and NCCL).
SHM_PATH: Final = "/dev/shm"
# `--deepspeed X.json` that no workdir provides: ConfigMap {name}-deepspeed, mounted read-only.
DEEPSPEED_CONFIGMAP_SUFFIX: Final = "-deepspeed"

# Multi-node training: pods of one job prefer one topology domain (resources.topology_key), and
# start all together or not at all: each pod waits (an init container, resources.start_timeout
# seconds) until every peer has an address, else fails, which ends the Job and frees its GPUs.
DEFAULT_TOPOLOGY_KEY: Final = "topology.kubernetes.io/zone"
DEFAULT_START_TIMEOUT: Final = 600
START_BARRIER_RESOURCES: Final = {"cpu": "100m", "memory": "64Mi"}
# The init container that holds a pod of a multi-node job until its peers have addresses: a
# pod Pending while it runs waits on purpose (the pending-pod alert leaves it out).
START_BARRIER_CONTAINER: Final = "wait-for-peers"
# resources.queue: the Kueue LocalQueue that admits the whole Job at once.
KUEUE_QUEUE_LABEL: Final = "kueue.x-k8s.io/queue-name"
# Where Kueue is installed (its API group answers), a pool is also a Kueue ClusterQueue named
# after it, with one ResourceFlavor KUEUE_FLAVOR_PREFIX<pool> (its nodes: the pool label, and
# the pool taint tolerated when isolated), and a LocalQueue named after it in each namespace
# that runs a job in it. The pool's training jobs carry KUEUE_QUEUE_LABEL=<pool>, so Kueue
# holds a job beyond the cap Queued instead of gpuctl refusing it.
# Whether a pool is a ClusterQueue is decided when its file is created or applied, and kept in
# its record (data key POOL_KUEUE_KEY: "true"): its jobs follow the record, so Kueue appearing
# later changes nothing until the pool file is applied again.
POOL_KUEUE_KEY: Final = "kueue"
# The Kueue API versions gpuctl reads and writes, preferred first: v1beta2 (Kueue v0.15+)
# where the cluster serves it, else v1beta1 (deprecated there, the only one before). Which
# one a cluster serves is read from its API discovery (gpuctl.cluster.resources
# kueue_version); Kueue counts as installed where it serves either. The fields gpuctl writes
# (a ResourceFlavor's nodeLabels and tolerations, a ClusterQueue's namespaceSelector and
# resourceGroups, a LocalQueue's clusterQueue) are the same in both.
KUEUE_GROUP: Final = "kueue.x-k8s.io"
KUEUE_VERSIONS: Final = ("v1beta2", "v1beta1")
KUEUE_KINDS: Final = ("ResourceFlavor", "ClusterQueue", "LocalQueue")
KUEUE_FLAVOR_PREFIX: Final = "gpuctl-pool-"
# A pool caps GPUs only; Kueue admits nothing whose resources its ClusterQueue does not cover,
# so cpu and memory are covered with quotas no pool reaches (the nodes and the scheduler bound
# them), as are the GPUs of a pool without a cap.
KUEUE_UNBOUNDED_QUOTA: Final = {"cpu": "1000000", "memory": "1000000Ti", "gpu": "1000000"}

# Inference and compute jobs of at least this many pods (replicas, or autoscaling.min_replicas
# when autoscaled) get a PodDisruptionBudget of maxUnavailable 1: a drain takes one pod at a time.
DISRUPTION_BUDGET_MIN_PODS: Final = 2

# Inference autoscaling metric, served per pod by the NVIDIA DCGM exporter through an adapter.
GPU_UTILIZATION_METRIC: Final = "DCGM_FI_DEV_GPU_UTIL"
# A job's own metrics endpoint (spec `metrics`): the pod annotations a plain Prometheus's
# kubernetes_sd relabelling reads by convention (the PodMonitor of `monitoring manifests` reads
# them too), and the name of its container port when it is not the service port.
PROMETHEUS_SCRAPE_ANNOTATION: Final = "prometheus.io/scrape"
PROMETHEUS_PORT_ANNOTATION: Final = "prometheus.io/port"
PROMETHEUS_PATH_ANNOTATION: Final = "prometheus.io/path"
METRICS_PORT_NAME: Final = "metrics"
# Values a job pushes (POST /api/v1/metrics/custom) are series named this prefix + their name,
# in the Pushgateway group job=<job name>, namespace=<its namespace>.
CUSTOM_METRIC_PREFIX: Final = "gpuctl_job_"

# Apply bookkeeping: a hash of the rendered object, written at creation.
RENDER_HASH_ANNOTATION: Final = ANNOTATION_PREFIX + "render-hash"
# The spec a job was written from, as the user wrote it, on the job's workload object (what
# `GET /jobs/{id}` returns as yamlContent). A spec over SPEC_ANNOTATION_MAX bytes is not kept
# (annotations share 256 KiB per object); SPEC_OMITTED_ANNOTATION then says so.
SPEC_ANNOTATION: Final = ANNOTATION_PREFIX + "spec"
SPEC_OMITTED_ANNOTATION: Final = ANNOTATION_PREFIX + "spec-omitted"
SPEC_ANNOTATION_MAX: Final = 64 * 1024
# resources.placement: the strategy, recorded on the workload at render; gpuctl create/apply
# pick the node(s) with it and pin the pod template there.
PLACEMENT_ANNOTATION: Final = ANNOTATION_PREFIX + "placement"
# POST /jobs with an Idempotency-Key: the key as sent, a digest of the request (its route and
# body: the same key with another body is refused), and a batch item's index in its request.
IDEMPOTENCY_KEY_ANNOTATION: Final = ANNOTATION_PREFIX + "idempotency-key"
IDEMPOTENCY_REQUEST_ANNOTATION: Final = ANNOTATION_PREFIX + "idempotency-request"
IDEMPOTENCY_INDEX_ANNOTATION: Final = ANNOTATION_PREFIX + "idempotency-index"
# Webhooks (gpuctl serve): subscriptions and their secrets are named WEBHOOK_PREFIX + id,
# outbox entries WEBHOOK_DELIVERY_PREFIX + a digest, all in SYSTEM_NAMESPACE; only the holder of
# the Lease WEBHOOK_LEASE there delivers. The job events already announced are listed (comma-
# separated) in WEBHOOK_ANNOUNCED_ANNOTATION on the job's workload.
WEBHOOK_PREFIX: Final = "gpuctl-webhook-"
WEBHOOK_DELIVERY_PREFIX: Final = "gpuctl-webhook-msg-"
WEBHOOK_LEASE: Final = "gpuctl-webhooks"
WEBHOOK_ANNOUNCED_ANNOTATION: Final = ANNOTATION_PREFIX + "webhook-announced"
# `gpuctl pause` of a Deployment/StatefulSet remembers its replica count here.
PAUSED_REPLICAS_ANNOTATION: Final = ANNOTATION_PREFIX + "paused-replicas"

# Order in which objects are printed and created: a namespace before what lives in it, config
# and services before the workloads that use them (Helm's install order, trimmed to our kinds),
# the workloads (gpuctl.workloads.INSTALL_ORDER), then what guards and scales them.
INSTALL_BEFORE_WORKLOADS: Final = (
    "Namespace",
    "PriorityClass",
    "ResourceQuota",
    "ResourceFlavor",
    "ClusterQueue",
    "ConfigMap",
    "Secret",
    "Service",
)
INSTALL_AFTER_WORKLOADS: Final = ("PodDisruptionBudget", "HorizontalPodAutoscaler")

# Container waiting reasons in words an ML engineer reads.
CONTAINER_WAITING_REASONS: Final = {
    "ContainerCreating": "Starting",
    "PodInitializing": "Starting",
    "ErrImagePull": "Image pull failed",
    "ImagePullBackOff": "Image pull failed",
    "InvalidImageName": "Invalid image name",
    "CrashLoopBackOff": "Crashing (restarting)",
    "CreateContainerConfigError": "Config error",
    "CreateContainerError": "Container create failed",
    "RunContainerError": "Container start failed",
}


# Job status words (the rules are in gpuctl.inventory.status).
class Status:
    SUCCEEDED: Final = "Succeeded"
    FAILED: Final = "Failed"
    RUNNING: Final = "Running"
    PARTIALLY_RUNNING: Final = "Partially Running"
    PAUSED: Final = "Paused"
    QUEUED: Final = "Queued"  # a suspended Job that Kueue has not admitted yet
    PENDING: Final = "Pending"
    PREEMPTED: Final = "Preempted"  # Pending again: a higher-priority job took its pods' place
    TERMINATING: Final = "Terminating"  # deleted; its pods are still stopping
    PARTIAL: Final = "Partial"  # its workload is gone, other objects of it are left


# Input limits that keep hostile files from exhausting time or memory.
MAX_FILE_BYTES: Final = 8 * 1024 * 1024
MAX_YAML_NODES: Final = 200_000  # counted with aliases expanded (alias bombs)
# Values reached again through YAML aliases (`*name`): a few reused lists in a spec are far
# below; a 600-byte alias bomb ("billion laughs") reaches it at once, before it costs CPU.
MAX_YAML_ALIAS_VALUES: Final = 10_000
MAX_YAML_DEPTH: Final = 64  # no spec nests deeper than ~6; this stops stack exhaustion
# A number in a spec (a YAML int or float) has at most this many characters: a 4,000-digit
# integer costs quadratic time to convert, and none of gpuctl's numbers needs more than 20.
MAX_NUMBER_CHARS: Final = 32
# A quantity written as text (`500m`, `32Gi`) has at most this many characters, and its
# exponent (`1e3`) is at most this far from 0: longer text is refused before it is parsed.
MAX_QUANTITY_CHARS: Final = 32
MAX_QUANTITY_EXPONENT: Final = 30
# What one pod may ask for, and one quota user may be given, in base units: the schemas say
# the same for numbers (tests/core/test_number_limits.py keeps them equal); these also bound
# the quantities written as text, which the schemas cannot compare. docs/design/defaults.md
# gives the reasons.
MAX_POD_CPU: Final = 1024  # cores: the largest machines have 384-512 hardware threads
MAX_POD_MEMORY: Final = 64 * 2**40  # 64Ti: beyond the largest single machines (24-32Ti)
MAX_QUOTA_CPU: Final = 1_000_000  # cores for one user: a thousand such machines
MAX_QUOTA_MEMORY: Final = 2**50  # 1Pi for one user
