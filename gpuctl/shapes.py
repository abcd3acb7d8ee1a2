"""The Kubernetes objects gpuctl reads most, as TypedDicts: pods, nodes, Jobs, Deployments,
StatefulSets and Leases, with the metadata, spec and status fields gpuctl reads. Every key is
optional (`total=False`): the API server leaves out what is unset, so a field is read with
`.get` and a default. A misspelt key read with `[...]` is a type error, and one read with `.get`
gives `object`, a type error wherever the value is used as what the field holds.

The cluster connection returns plain dicts; a reader states what it reads with the views at
the end (`pod(obj)`, `job(obj)`, ...), which cost nothing at run time (a cast) and check
nothing: the API server's answer is trusted to have the shape it documents. Types only, as
constants.py holds only values: every layer may import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, cast

Quantities = dict[str, str]  # resource name -> quantity ("4", "16Gi", "500m")


class OwnerReference(TypedDict, total=False):
    apiVersion: str
    kind: str
    name: str
    uid: str
    controller: bool
    blockOwnerDeletion: bool


class ObjectMeta(TypedDict, total=False):
    name: str
    namespace: str
    uid: str
    resourceVersion: str
    generation: int
    creationTimestamp: str
    deletionTimestamp: str
    labels: dict[str, str]
    annotations: dict[str, str]
    ownerReferences: list[OwnerReference]
    finalizers: list[str]


class Condition(TypedDict, total=False):
    """A condition of a pod, a node, a Job or a Deployment."""

    type: str
    status: str  # "True", "False", "Unknown"
    reason: str
    message: str
    lastTransitionTime: str
    lastHeartbeatTime: str  # nodes
    lastProbeTime: str  # pods


class ResourceRequirements(TypedDict, total=False):
    requests: Quantities
    limits: Quantities


class EnvVar(TypedDict, total=False):
    name: str
    value: str
    valueFrom: dict[str, Any]


class Container(TypedDict, total=False):
    name: str
    image: str
    command: list[str]
    args: list[str]
    env: list[EnvVar]
    resources: ResourceRequirements
    ports: list[dict[str, Any]]
    volumeMounts: list[dict[str, Any]]
    restartPolicy: str  # an init container that keeps running: "Always"


class Toleration(TypedDict, total=False):
    key: str
    operator: str
    value: str
    effect: str
    tolerationSeconds: int


class PodSpec(TypedDict, total=False):
    nodeName: str
    nodeSelector: dict[str, str]
    affinity: dict[str, Any]
    tolerations: list[Toleration]
    containers: list[Container]
    initContainers: list[Container]
    priorityClassName: str
    priority: int
    schedulerName: str
    restartPolicy: str
    schedulingGates: list[dict[str, str]]
    volumes: list[dict[str, Any]]


class ContainerStateWaiting(TypedDict, total=False):
    reason: str
    message: str


class ContainerStateRunning(TypedDict, total=False):
    startedAt: str


class ContainerStateTerminated(TypedDict, total=False):
    exitCode: int
    signal: int
    reason: str
    message: str
    startedAt: str
    finishedAt: str


class ContainerState(TypedDict, total=False):
    waiting: ContainerStateWaiting
    running: ContainerStateRunning
    terminated: ContainerStateTerminated


class ContainerStatus(TypedDict, total=False):
    name: str
    ready: bool
    started: bool
    restartCount: int
    image: str
    imageID: str
    state: ContainerState
    lastState: ContainerState
    resources: ResourceRequirements
    allocatedResources: Quantities


class PodStatus(TypedDict, total=False):
    phase: str
    reason: str
    message: str
    conditions: list[Condition]
    containerStatuses: list[ContainerStatus]
    initContainerStatuses: list[ContainerStatus]
    startTime: str
    podIP: str
    hostIP: str
    nominatedNodeName: str
    qosClass: str


class Pod(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: PodSpec
    status: PodStatus


class PodTemplate(TypedDict, total=False):
    metadata: ObjectMeta
    spec: PodSpec


class Taint(TypedDict, total=False):
    key: str
    value: str
    effect: str


class NodeAddress(TypedDict, total=False):
    type: str
    address: str


class NodeSpec(TypedDict, total=False):
    unschedulable: bool
    taints: list[Taint]
    providerID: str


class NodeStatus(TypedDict, total=False):
    capacity: Quantities
    allocatable: Quantities
    conditions: list[Condition]
    addresses: list[NodeAddress]
    nodeInfo: dict[str, str]


class Node(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: NodeSpec
    status: NodeStatus


class LabelSelector(TypedDict, total=False):
    matchLabels: dict[str, str]
    matchExpressions: list[dict[str, Any]]


class JobSpec(TypedDict, total=False):
    parallelism: int
    completions: int
    backoffLimit: int
    activeDeadlineSeconds: int
    ttlSecondsAfterFinished: int
    suspend: bool
    selector: LabelSelector
    template: PodTemplate


class JobStatus(TypedDict, total=False):
    active: int
    ready: int
    succeeded: int
    failed: int
    startTime: str
    completionTime: str
    conditions: list[Condition]


class Job(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: JobSpec
    status: JobStatus


class DeploymentSpec(TypedDict, total=False):
    replicas: int
    paused: bool
    selector: LabelSelector
    strategy: dict[str, Any]
    template: PodTemplate


class DeploymentStatus(TypedDict, total=False):
    observedGeneration: int
    replicas: int
    readyReplicas: int
    availableReplicas: int
    updatedReplicas: int
    unavailableReplicas: int
    conditions: list[Condition]


class Deployment(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: DeploymentSpec
    status: DeploymentStatus


class StatefulSetSpec(TypedDict, total=False):
    replicas: int
    serviceName: str
    selector: LabelSelector
    updateStrategy: dict[str, Any]
    template: PodTemplate


class StatefulSetStatus(TypedDict, total=False):
    observedGeneration: int
    replicas: int
    readyReplicas: int
    availableReplicas: int
    currentReplicas: int
    updatedReplicas: int
    currentRevision: str
    updateRevision: str


class StatefulSet(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: StatefulSetSpec
    status: StatefulSetStatus


class LeaseSpec(TypedDict, total=False):
    """coordination.k8s.io/v1: who holds the Lease, for how long, and since when."""

    holderIdentity: str
    leaseDurationSeconds: int
    acquireTime: str  # MicroTime
    renewTime: str  # MicroTime
    leaseTransitions: int


class Lease(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: LeaseSpec


# The views: a plain dict from the cluster, read as the shape it is.

Obj = Mapping[str, Any]


def pod(obj: Obj) -> Pod:
    return cast(Pod, obj)


def node(obj: Obj) -> Node:
    return cast(Node, obj)


def job(obj: Obj) -> Job:
    return cast(Job, obj)


def deployment(obj: Obj) -> Deployment:
    return cast(Deployment, obj)


def stateful_set(obj: Obj) -> StatefulSet:
    return cast(StatefulSet, obj)


def replicated(obj: Obj) -> Deployment | StatefulSet:
    """A Deployment or a StatefulSet: what they share (replicas, readyReplicas) reads alike."""
    return cast(Deployment | StatefulSet, obj)


def lease(obj: Obj) -> Lease:
    return cast(Lease, obj)


def pod_spec(obj: Obj) -> PodSpec:
    return cast(PodSpec, obj)


def container(obj: Obj) -> Container:
    return cast(Container, obj)


def meta(obj: Obj) -> ObjectMeta:
    """Any object's metadata ({} when it has none)."""
    found: ObjectMeta = obj.get("metadata") or {}
    return found
