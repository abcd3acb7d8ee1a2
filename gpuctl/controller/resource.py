"""The GPUWorkload custom resource (gpu.warp.dev/v1alpha1) and everything that installs the
controller: the CRD, a namespace, a ServiceAccount, least-privilege roles, a NetworkPolicy, a
PriorityClass of its own and a hardened Deployment (spread over nodes, with a
PodDisruptionBudget, from two replicas). Plain objects (dicts); `gpuctl controller manifests`
prints them as YAML.

The CRD's schema is also the one source of the spec's defaults (`with_defaults`): the API
server applies them on write, and the controller applies the same ones to objects written
before a default existed.
"""

from __future__ import annotations

import copy
from typing import Any, Final

import yaml

from gpuctl import __version__
from gpuctl import constants as c
from gpuctl.placement.strategies import LEAST_LOADED, STRATEGY_NAMES

GROUP: Final = c.WORKLOAD_GROUP
VERSION: Final = "v1alpha1"
API_VERSION: Final = f"{GROUP}/{VERSION}"
KIND: Final = "GPUWorkload"
PLURAL: Final = "gpuworkloads"
SINGULAR: Final = "gpuworkload"
SHORT_NAMES: Final = ("gw",)
CRD_NAME: Final = f"{PLURAL}.{GROUP}"

NAMESPACE: Final = c.CONTROLLER_NAMESPACE
NAME: Final = "gpu-orchestrator"  # ServiceAccount, roles, Deployment, Lease
DEFAULT_JOB_IMAGE: Final = "busybox:1.36"
DEFAULT_CONTROLLER_IMAGE: Final = f"gpuctl:{__version__}"
METRICS_PORT: Final = 8080
HEALTH_PORT: Final = 8081
RUN_AS_USER: Final = 65532  # the distroless "nonroot" user
PRIORITY_CLASS: Final = NAME
# above every job class (constants.PRIORITY_CLASS_VALUES), far below the system classes (2e9)
PRIORITY_VALUE: Final = 100 * max(c.PRIORITY_CLASS_VALUES.values())
API_SERVER_PORTS: Final = (443, 6443)


class Phase:
    PENDING: Final = "Pending"  # waiting for a node with enough free GPUs (retries counted)
    SCHEDULED: Final = "Scheduled"  # a Job exists, pinned to status.assignedNode
    FAILED: Final = "Failed"  # retries exhausted or the spec cannot become a Job


PHASES: Final = (Phase.PENDING, Phase.SCHEDULED, Phase.FAILED)

_STRINGS: Final = {"type": "array", "items": {"type": "string"}}


# CEL rules the API server checks at admission (x-kubernetes-validations): a workload that
# breaks one is refused with its message before the controller sees it. The sandbox
# evaluates the same rules (gpuctl.sandbox.cel).
SPEC_RULES: Final = (
    {
        "rule": "self.retryPolicy.maxRetries * self.retryPolicy.backoffSeconds <= 7200",
        "message": "retryPolicy: maxRetries x backoffSeconds is at most 7200 (two hours of "
        "retries when no node fits)",
    },
    {
        "rule": "!has(self.env) || self.env.all(e, e.name != 'MODEL_NAME')",
        "message": "env: MODEL_NAME is set from modelName; give the model there",
    },
    {
        "rule": "!has(self.env) || self.env.all(e, self.env.exists_one(f, f.name == e.name))",
        "message": "env: each name is given once",
    },
)


def _spec_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["modelName"],
        "x-kubernetes-validations": [dict(r) for r in SPEC_RULES],
        "properties": {
            "modelName": {
                "type": "string",
                "minLength": 1,
                "maxLength": 253,
                "description": "The model or workload name; passed to the container as MODEL_NAME.",
            },
            "gpuCount": {
                "type": "integer",
                "minimum": 1,
                "maximum": 1024,
                "default": 1,
                "description": "NVIDIA GPUs (nvidia.com/gpu) the workload needs on one node.",
            },
            "priority": {
                "type": "string",
                "enum": list(c.PRIORITIES),
                "default": c.DEFAULT_PRIORITY,
                "description": "The workload's priority, set as the runwhere.ai/priority label.",
            },
            "schedulingStrategy": {
                "type": "string",
                "enum": list(STRATEGY_NAMES),
                "default": LEAST_LOADED,
                "description": "How the controller picks a node.",
            },
            "retryPolicy": {
                "type": "object",
                "default": {},
                "properties": {
                    "maxRetries": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": 100,
                        "default": 3,
                        "description": "Retries when no node fits, before the phase is Failed.",
                    },
                    "backoffSeconds": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 300,
                        "default": 30,
                        "description": "Base delay: retry n waits min(300, base*2^n) + 0-10%.",
                    },
                },
            },
            "image": {
                "type": "string",
                "minLength": 1,
                "default": DEFAULT_JOB_IMAGE,
                "description": "The container image of the Job.",
            },
            "command": {**_STRINGS, "description": "The container's command."},
            "args": {**_STRINGS, "description": "The command's arguments."},
            "env": {
                "type": "array",
                "maxItems": 100,
                "description": "Environment variables (MODEL_NAME is always set).",
                "items": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {
                            "type": "string",
                            "maxLength": 253,
                            "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
                        },
                        "value": {"type": "string"},
                    },
                },
            },
            "cpu": {
                "x-kubernetes-int-or-string": True,
                "default": "1",
                "description": "CPU request and limit of the container.",
            },
            "memory": {
                "x-kubernetes-int-or-string": True,
                "default": "4Gi",
                "description": "Memory request and limit of the container.",
            },
        },
    }


def _status_schema() -> dict[str, Any]:
    condition = {
        "type": "object",
        "required": ["type", "status"],
        "properties": {
            "type": {"type": "string"},
            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
            "reason": {"type": "string"},
            "message": {"type": "string"},
            "lastTransitionTime": {"type": "string", "format": "date-time"},
            "observedGeneration": {"type": "integer"},
        },
    }
    return {
        "type": "object",
        "properties": {
            "phase": {"type": "string", "enum": list(PHASES)},
            "assignedNode": {"type": "string"},
            "jobName": {"type": "string"},
            "strategy": {"type": "string"},
            "message": {"type": "string"},
            "reason": {"type": "string"},
            "retries": {"type": "integer", "minimum": 0},
            "replacements": {"type": "integer", "minimum": 0},
            "nextRetryTime": {"type": "string", "format": "date-time"},
            "observedGeneration": {"type": "integer"},
            "conditions": {
                "type": "array",
                "items": condition,
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["type"],
            },
        },
    }


def _printer_columns() -> list[dict[str, Any]]:
    def column(name: str, path: str, type_: str = "string", priority: int = 0) -> dict[str, Any]:
        col: dict[str, Any] = {"name": name, "type": type_, "jsonPath": path}
        if priority:
            col["priority"] = priority
        return col

    return [
        column("Model", ".spec.modelName"),
        column("GPUs", ".spec.gpuCount", "integer"),
        column("Strategy", ".spec.schedulingStrategy"),
        column("Phase", ".status.phase"),
        column("Node", ".status.assignedNode"),
        column("Retries", ".status.retries", "integer"),
        column("Job", ".status.jobName", priority=1),
        column("Message", ".status.message", priority=1),
        column("Age", ".metadata.creationTimestamp", "date"),
    ]


def crd() -> dict[str, Any]:
    """The CustomResourceDefinition gpuworkloads.gpu.warp.dev."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD_NAME, "labels": _labels()},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {
                "kind": KIND,
                "listKind": f"{KIND}List",
                "plural": PLURAL,
                "singular": SINGULAR,
                "shortNames": list(SHORT_NAMES),
                "categories": ["gpu"],
            },
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": _printer_columns(),
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "description": "GPU work placed on a node by gpu-orchestrator.",
                            "required": ["spec"],
                            "properties": {
                                "apiVersion": {"type": "string"},
                                "kind": {"type": "string"},
                                "metadata": {"type": "object"},
                                "spec": _spec_schema(),
                                "status": _status_schema(),
                            },
                        }
                    },
                }
            ],
        },
    }


def spec_schema() -> dict[str, Any]:
    """The openAPIV3Schema of `.spec`, as the CRD declares it."""
    schema: dict[str, Any] = crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec: dict[str, Any] = schema["properties"]["spec"]
    return spec


def status_schema() -> dict[str, Any]:
    """The openAPIV3Schema of `.status`, as the CRD declares it."""
    return _status_schema()


def with_defaults(schema: dict[str, Any], value: Any) -> Any:
    """`value` with the schema's defaults filled in where fields are missing (structural
    defaulting, as the API server does it: a defaulted object gets its own defaults too)."""
    if not isinstance(value, dict) or schema.get("type") != "object":
        return value
    result = dict(value)
    for name, child in (schema.get("properties") or {}).items():
        if name not in result and "default" in child:
            result[name] = copy.deepcopy(child["default"])
        if name in result:
            result[name] = with_defaults(child, result[name])
    return result


def json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A structural OpenAPI v3 schema as JSON Schema: int-or-string fields take either, and
    objects with declared properties take no other field (the API server prunes them)."""
    out: dict[str, Any] = {
        key: value for key, value in schema.items() if not key.startswith("x-kubernetes-")
    }
    if schema.get("x-kubernetes-int-or-string"):
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: json_schema(v) for k, v in schema["properties"].items()}
        out["additionalProperties"] = False
    if isinstance(schema.get("items"), dict):
        out["items"] = json_schema(schema["items"])
    return out


# --------------------------------------------------------------------------- installation


def _labels() -> dict[str, str]:
    return {"app.kubernetes.io/name": NAME, c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE}


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": _labels()}
    if namespace is not None:
        meta["namespace"] = namespace
    return meta


def _rule(group: str, resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": [group], "resources": resources, "verbs": verbs}


# The API calls the controller makes, and nothing more. It reconciles the GPUWorkloads of
# every namespace (`controller run --namespace` narrows that), so what it reads and writes for
# them is granted cluster-wide; only its Lease is in its own namespace.
NAMESPACED_RULES: Final = (
    # leader election: read and renew its own Lease only; create is not limited by name (the
    # API server cannot know the name of an object before it exists)
    {**_rule("coordination.k8s.io", ["leases"], ["get", "update"]), "resourceNames": [NAME]},
    _rule("coordination.k8s.io", ["leases"], ["create"]),
)
CLUSTER_RULES: Final = (
    _rule(GROUP, [PLURAL], ["list", "watch"]),  # the informer's list and watch
    _rule(GROUP, [f"{PLURAL}/status"], ["patch"]),  # phase, node, job, retries
    # adopt or create; delete only to place again (a node went NotReady under a waiting Job);
    # a deleted workload's Job is the garbage collector's (owner reference); list: what the
    # create verb reads of a job's objects before it writes (a job of that name refused)
    _rule("batch", ["jobs"], ["get", "list", "create", "delete"]),
    _rule("", ["nodes"], ["list", "watch"]),  # GPUs, readiness, labels (a watched cache)
    _rule("", ["pods"], ["list", "watch"]),  # GPUs requested on each node; whether a pod runs
    # the create verb's reads before it writes the Job: the job's other objects (a job of
    # that name, what a half-finished deletion left), the pool records (which pools are
    # Kueue ClusterQueues, a pool's GPU cap), the namespace's Pod Security level and quotas,
    # the PriorityClasses the pods name (installed with the controller: never created here)
    _rule("", ["configmaps"], ["get", "list"]),
    _rule("", ["services"], ["list"]),
    _rule("", ["namespaces"], ["get"]),
    _rule("", ["resourcequotas"], ["list"]),
    _rule("apps", ["deployments", "statefulsets"], ["list"]),
    _rule("autoscaling", ["horizontalpodautoscalers"], ["list"]),
    _rule("policy", ["poddisruptionbudgets"], ["list"]),
    _rule("scheduling.k8s.io", ["priorityclasses"], ["list"]),
)
# A Job on a node of a pool that is a Kueue ClusterQueue is queued there; the create verb
# makes the namespace's LocalQueue with the first such Job.
KUEUE_RULES: Final = (_rule(c.KUEUE_GROUP, ["localqueues"], ["create"]),)


def _role_binding(kind: str, namespace: str) -> dict[str, Any]:
    binding_kind = "RoleBinding" if kind == "Role" else "ClusterRoleBinding"
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": binding_kind,
        "metadata": _meta(NAME, namespace if kind == "Role" else None),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": NAME},
        "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": namespace}],
    }


def _probe(path: str) -> dict[str, Any]:
    return {
        "httpGet": {"path": path, "port": "health"},
        "initialDelaySeconds": 5,
        "periodSeconds": 10,
    }


def _container(image: str) -> dict[str, Any]:
    return {
        "name": "controller",
        "image": image,
        "args": [
            "controller",
            "run",
            "--leader-elect",
            "--metrics-port",
            str(METRICS_PORT),
            "--health-port",
            str(HEALTH_PORT),
        ],
        "env": [
            {
                "name": "POD_NAMESPACE",
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
            },
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        ],
        "ports": [
            {"name": "metrics", "containerPort": METRICS_PORT, "protocol": "TCP"},
            {"name": "health", "containerPort": HEALTH_PORT, "protocol": "TCP"},
        ],
        "livenessProbe": _probe("/healthz"),
        "readinessProbe": _probe("/readyz"),
        # its root file system is read-only: ephemeral storage is its log (rotated by the
        # kubelet at 10 MiB x 5 by default)
        "resources": {
            "requests": {"cpu": "100m", "memory": "64Mi", "ephemeral-storage": "64Mi"},
            "limits": {"cpu": "500m", "memory": "256Mi", "ephemeral-storage": "256Mi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "runAsUser": RUN_AS_USER,
            "capabilities": {"drop": ["ALL"]},
        },
    }


def _selector() -> dict[str, str]:
    return {"app.kubernetes.io/name": NAME}


def _spread() -> dict[str, Any]:
    """Replicas on different nodes where the cluster has them (preferred, not required: a
    one-node cluster still runs every replica), so one node's loss leaves a standby."""
    return {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {
                        "topologyKey": c.Labels.HOSTNAME,
                        "labelSelector": {"matchLabels": _selector()},
                    },
                }
            ]
        }
    }


def deployment(namespace: str, image: str, replicas: int = 1) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "serviceAccountName": NAME,
        "automountServiceAccountToken": True,  # it talks to the API server
        "priorityClassName": PRIORITY_CLASS,
        "terminationGracePeriodSeconds": 10,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": RUN_AS_USER,
            "runAsGroup": RUN_AS_USER,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [_container(image)],
    }
    if replicas >= 2:
        pod["affinity"] = _spread()
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(NAME, namespace),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": _selector()},
            "template": {
                "metadata": {
                    "labels": _labels(),
                    "annotations": {
                        c.PROMETHEUS_SCRAPE_ANNOTATION: "true",
                        c.PROMETHEUS_PORT_ANNOTATION: str(METRICS_PORT),
                        c.PROMETHEUS_PATH_ANNOTATION: "/metrics",
                    },
                },
                "spec": pod,
            },
        },
    }


def priority_class() -> dict[str, Any]:
    """The controller's own class, above every gpuctl job class: on a full cluster the
    scheduler preempts a job's pod for it, never the other way round."""
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": _meta(PRIORITY_CLASS),
        "value": PRIORITY_VALUE,
        "globalDefault": False,
        "preemptionPolicy": "PreemptLowerPriority",
        "description": "the gpuctl GPUWorkload controller (gpu-orchestrator)",
    }


def disruption_budget(namespace: str) -> dict[str, Any]:
    """With two replicas or more: a drain keeps one running (the leader or a standby that
    takes over); a replica that is not Ready may always be evicted."""
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": _meta(NAME, namespace),
        "spec": {
            "minAvailable": 1,
            "unhealthyPodEvictionPolicy": "AlwaysAllow",
            "selector": {"matchLabels": _selector()},
        },
    }


def network_policy(namespace: str) -> dict[str, Any]:
    """In: only the metrics port (Prometheus, from any namespace; the kubelet's probes come
    from the node and are not subject to NetworkPolicy). Out: only DNS and the API server
    (443 or 6443: its address depends on the cluster, so it is allowed by port)."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": _meta(NAME, namespace),
        "spec": {
            "podSelector": {"matchLabels": _selector()},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [{"ports": [{"protocol": "TCP", "port": METRICS_PORT}]}],
            "egress": [
                {"ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]},
                {"ports": [{"protocol": "TCP", "port": port} for port in API_SERVER_PORTS]},
            ],
        },
    }


def manifests(
    namespace: str = NAMESPACE, image: str = DEFAULT_CONTROLLER_IMAGE, replicas: int = 1
) -> list[dict[str, Any]]:
    """Everything that installs the controller, in the order to apply it: with gpuctl's
    PriorityClasses, which its Jobs' pods name (gpuctl-<spec.priority>), and its own; with
    two replicas or more, a PodDisruptionBudget."""
    from gpuctl.render.engine import render_priority_classes

    return [
        crd(),
        *(manifest.obj for manifest in render_priority_classes()),
        priority_class(),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(namespace)},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(NAME, namespace)},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": _meta(NAME, namespace),
            "rules": [copy.deepcopy(rule) for rule in NAMESPACED_RULES],
        },
        _role_binding("Role", namespace),
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": _meta(NAME),
            "rules": [copy.deepcopy(rule) for rule in (*CLUSTER_RULES, *KUEUE_RULES)],
        },
        _role_binding("ClusterRole", namespace),
        network_policy(namespace),
        deployment(namespace, image, replicas),
        *([disruption_budget(namespace)] if replicas >= 2 else []),
    ]


def to_yaml(objects: list[dict[str, Any]]) -> str:
    return "---\n".join(
        yaml.safe_dump(obj, sort_keys=False, default_flow_style=False) for obj in objects
    )
