"""The simulated control plane: one background loop that runs the namespace, garbage-collection,
Job, Deployment, ReplicaSet, StatefulSet, scheduler, kubelet, quota and HPA controllers.

The loop wakes every `tick_seconds` and works only when the store changed or a timed transition
(a pod starting, a job pod finishing, a grace period ending) is due.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gpuctl.sandbox import quantity
from gpuctl.sandbox.api import Api, PodRuntime, now_rfc3339
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.errors import ApiError
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.selectors import label_selector_from_object, matches_labels
from gpuctl.sandbox.store import Obj

_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_TERMINAL = ("Succeeded", "Failed")


def template_hash(template: Any) -> str:
    digest = hashlib.sha256(repr(sorted(_flatten(template))).encode()).digest()
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:10])


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [
            item for k, v in value.items() if v is not None for item in _flatten(v, f"{prefix}.{k}")
        ]
    if isinstance(value, list):
        return [item for i, v in enumerate(value) for item in _flatten(v, f"{prefix}[{i}]")]
    return [(prefix, repr(value))]


def _condition(
    conditions: list[Obj],
    type_: str,
    status: str,
    reason: str = "",
    message: str = "",
    probe: bool = False,
) -> list[Obj]:
    """Set one condition, keeping lastTransitionTime when the status does not change."""
    now = now_rfc3339()
    out = [c for c in conditions if c.get("type") != type_]
    old = next((c for c in conditions if c.get("type") == type_), None)
    cond: Obj = {"type": type_, "status": status}
    if probe:
        cond["lastProbeTime"] = None
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    unchanged = old is not None and old.get("status") == status
    cond["lastTransitionTime"] = old.get("lastTransitionTime", now) if unchanged and old else now
    if (old is not None and "lastUpdateTime" in old) or type_ in ("Available", "Progressing"):
        same = (
            unchanged
            and old is not None
            and old.get("reason") == reason
            and old.get("message") == message
        )
        cond["lastUpdateTime"] = old.get("lastUpdateTime", now) if same and old else now
    if old is not None and {k: v for k, v in old.items()} == cond:
        cond = old
    out.append(cond)
    return out


def _owned_by(obj: Obj, uid: str) -> bool:
    return any(
        r.get("uid") == uid and r.get("controller")
        for r in obj["metadata"].get("ownerReferences") or []
    )


def _owner_ref(res: Resource, owner: Obj) -> Obj:
    return {
        "apiVersion": res.api_version,
        "kind": res.kind,
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _pod_ready(pod: Obj) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def _phase(pod: Obj) -> str:
    return str((pod.get("status") or {}).get("phase", "Pending"))


def _requests(pod: Obj) -> dict[str, Fraction]:
    total: dict[str, Fraction] = {"pods": Fraction(1)}
    for c in (pod.get("spec") or {}).get("containers") or []:
        resources = c.get("resources") or {}
        merged = dict(resources.get("limits") or {})
        merged.update(resources.get("requests") or {})
        for name, value in merged.items():
            total[name] = total.get(name, Fraction(0)) + quantity.parse(value)
    return total


@dataclass
class ControllerError:
    """An exception a controller raised during its passes; the same one repeated counts once."""

    controller: str
    error: str  # "ExceptionType: message"
    first_at: float
    last_at: float
    count: int
    traceback: str

    def describe(self) -> str:
        times = f" ({self.count} times)" if self.count > 1 else ""
        return f"{self.controller} raised {self.error} at {now_rfc3339(self.first_at)}{times}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "controller": self.controller,
            "error": self.error,
            "firstTime": now_rfc3339(self.first_at),
            "lastTime": now_rfc3339(self.last_at),
            "count": self.count,
            "traceback": self.traceback,
        }


class Controllers:
    def __init__(self, api: Api, config: SandboxConfig, stopping: threading.Event) -> None:
        self.api = api
        self.config = config
        self.store = api.store
        self.stopping = stopping
        self.next_due = 0.0
        self._seen = -1  # the store generation the last pass started from
        reg = api.registry
        self.pods = reg.get("", "pods")
        self.nodes = reg.get("", "nodes")
        self.namespaces = reg.get("", "namespaces")
        self.jobs = reg.get("batch", "jobs")
        self.deployments = reg.get("apps", "deployments")
        self.replicasets = reg.get("apps", "replicasets")
        self.statefulsets = reg.get("apps", "statefulsets")
        self.quotas = reg.get("", "resourcequotas")
        self.hpas = reg.get("autoscaling", "horizontalpodautoscalers")
        self._ip = 0
        # each controller's pass, in the order the loop runs them, by the real component's name
        self.passes: dict[str, Callable[[float], None]] = {
            "namespace-controller": lambda now: self._namespaces(),
            "garbage-collector": lambda now: self._garbage_collect(),
            "job-controller": self._jobs,
            "deployment-controller": lambda now: self._deployments(),
            "replicaset-controller": lambda now: self._replicasets(),
            "statefulset-controller": lambda now: self._statefulsets(),
            "default-scheduler": self._schedule,
            "kubelet": self._kubelet,
            "resourcequota-controller": lambda now: self._quotas(),
            "horizontal-pod-autoscaler": lambda now: self._hpas(),
        }
        self._errors: dict[tuple[str, str], ControllerError] = {}
        self._errors_lock = threading.Lock()

    # -- bootstrap ----------------------------------------------------------------------------

    def bootstrap(self) -> None:
        api = self.api
        for name in ("default", "kube-system", "kube-public", "kube-node-lease"):
            api.create(self.namespaces, "", {"metadata": {"name": name}}, internal=True)
        for i, node in enumerate(self.config.nodes):
            labels = {
                "kubernetes.io/hostname": node.name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "beta.kubernetes.io/arch": "amd64",
                **node.labels,
            }
            spec: Obj = {"podCIDR": f"10.244.{i}.0/24", "podCIDRs": [f"10.244.{i}.0/24"]}
            if node.taints:
                spec["taints"] = node.taints
            api.create(
                self.nodes,
                "",
                {
                    "metadata": {
                        "name": node.name,
                        "labels": labels,
                        "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
                    },
                    "spec": spec,
                    "status": {
                        "capacity": dict(node.capacity),
                        "allocatable": dict(node.capacity),
                        "conditions": [
                            {
                                "type": t,
                                "status": "False",
                                "reason": r,
                                "message": m,
                                "lastHeartbeatTime": now_rfc3339(),
                                "lastTransitionTime": now_rfc3339(),
                            }
                            for t, r, m in (
                                (
                                    "MemoryPressure",
                                    "KubeletHasSufficientMemory",
                                    "kubelet has sufficient memory available",
                                ),
                                (
                                    "DiskPressure",
                                    "KubeletHasNoDiskPressure",
                                    "kubelet has no disk pressure",
                                ),
                                (
                                    "PIDPressure",
                                    "KubeletHasSufficientPID",
                                    "kubelet has sufficient PID available",
                                ),
                            )
                        ]
                        + [
                            {
                                "type": "Ready",
                                "status": "True",
                                "reason": "KubeletReady",
                                "message": "kubelet is posting ready status",
                                "lastHeartbeatTime": now_rfc3339(),
                                "lastTransitionTime": now_rfc3339(),
                            }
                        ],
                        "addresses": [
                            {"type": "InternalIP", "address": f"10.0.0.{10 + i}"},
                            {"type": "Hostname", "address": node.name},
                        ],
                        "nodeInfo": {
                            "machineID": hashlib.md5(node.name.encode()).hexdigest(),
                            "systemUUID": hashlib.md5(node.name.encode()).hexdigest(),
                            "bootID": hashlib.md5(node.name.encode()).hexdigest(),
                            "kernelVersion": "5.15.0-gpuctl-sandbox",
                            "osImage": "Ubuntu 22.04.4 LTS",
                            "containerRuntimeVersion": "containerd://1.7.22",
                            "kubeletVersion": f"v{self.config.kubernetes_version}.0",
                            "kubeProxyVersion": f"v{self.config.kubernetes_version}.0",
                            "operatingSystem": "linux",
                            "architecture": "amd64",
                        },
                        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                    },
                },
                internal=True,
            )
        leases = api.registry.get("coordination.k8s.io", "leases")
        for node in self.config.nodes:
            api.create(
                leases,
                "kube-node-lease",
                {
                    "metadata": {"name": node.name},
                    "spec": {
                        "holderIdentity": node.name,
                        "leaseDurationSeconds": 40,
                        "renewTime": now_rfc3339().replace("Z", ".000000Z"),
                    },
                },
                internal=True,
            )
        services = api.registry.get("", "services")
        api.create(
            services,
            "default",
            {
                "metadata": {
                    "name": "kubernetes",
                    "labels": {"component": "apiserver", "provider": "kubernetes"},
                },
                "spec": {
                    "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]
                },
            },
            internal=True,
        )
        pcs = api.registry.get("scheduling.k8s.io", "priorityclasses")
        for name, value in (
            ("system-cluster-critical", 2000000000),
            ("system-node-critical", 2000001000),
        ):
            api.create(
                pcs,
                "",
                {
                    "metadata": {"name": name},
                    "value": value,
                    "description": "Used for system critical pods that must run in the cluster, "
                    "but can be moved to another node if necessary.",
                },
                internal=True,
            )

    # -- loop ---------------------------------------------------------------------------------

    def run(self) -> None:
        while not self.stopping.is_set():
            now = time.time()
            with self.store.lock:
                if self.store.generation != self._seen or now >= self.next_due:
                    self.next_due = float("inf")
                    # our own writes count as changes: the next pass sees what this one did
                    self._seen = self.store.generation
                    self.reconcile(now)
            self.stopping.wait(self.config.tick_seconds)

    def errors(self) -> list[ControllerError]:
        """Every distinct exception a controller raised so far, oldest first."""
        with self._errors_lock:
            return sorted(self._errors.values(), key=lambda e: e.first_at)

    def idle(self) -> bool:
        """No change since the last pass and nothing timed ahead (caller holds the lock)."""
        return self._seen == self.store.generation and self.next_due == float("inf")

    def due(self, when: float) -> None:
        self.next_due = min(self.next_due, when)

    def reconcile(self, now: float) -> None:
        """One pass of every controller; one that raises is recorded and the others still run."""
        for name, run_pass in list(self.passes.items()):
            try:
                run_pass(now)
            except Exception as exc:
                self._record(name, exc, now)
                # retry a second later even if nothing changes, as a work queue re-queues a key
                self.due(now + 1.0)

    def _record(self, controller: str, exc: Exception, now: float) -> None:
        text = f"{type(exc).__name__}: {exc}"
        trace = traceback.format_exc()
        with self._errors_lock:
            known = self._errors.get((controller, text))
            if known is None:
                self._errors[(controller, text)] = ControllerError(
                    controller, text, now, now, 1, trace
                )
                print(f"sandbox: {controller} raised\n{trace}", file=sys.stderr, flush=True)
            else:
                known.count += 1
                known.last_at = now

    # -- helpers ------------------------------------------------------------------------------

    def _owned_pods(self, owner: Obj) -> list[Obj]:
        uid = owner["metadata"]["uid"]
        out = []
        for key, ns, name in self.store.dependents(uid):
            if key == self.pods.key:
                pod = self.store.get(key, ns, name)
                if pod is not None and _owned_by(pod, uid):
                    out.append(pod)
        return out

    def _create_pod(
        self,
        owner_res: Resource,
        owner: Obj,
        template: Obj,
        *,
        name: str = "",
        labels: dict[str, str] | None = None,
        annotations: dict[str, str] | None = None,
        hostname: str = "",
        subdomain: str = "",
        env: list[Obj] | None = None,
        generate_name: str = "",
    ) -> Obj | None:
        meta = copy.deepcopy(template.get("metadata") or {})
        meta.pop("name", None)
        meta.pop("namespace", None)
        meta["labels"] = {**(meta.get("labels") or {}), **(labels or {})}
        if annotations or meta.get("annotations"):
            meta["annotations"] = {**(meta.get("annotations") or {}), **(annotations or {})}
        if name:
            meta["name"] = name
        else:
            meta["generateName"] = generate_name or f"{owner['metadata']['name']}-"
        meta["ownerReferences"] = [_owner_ref(owner_res, owner)]
        spec = copy.deepcopy(template.get("spec") or {})
        if hostname:
            spec["hostname"] = hostname
        if subdomain:
            spec["subdomain"] = subdomain
        if env:
            for c in spec.get("containers") or []:
                c["env"] = [*env, *(c.get("env") or [])]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        try:
            created = self.api.create(self.pods, owner["metadata"]["namespace"], pod, internal=True)
        except ApiError as err:
            message = f"Error creating: {err.message}"
            if owner_res.kind == "StatefulSet":
                owner_name = owner["metadata"]["name"]
                message = (
                    f"create Pod {name} in StatefulSet {owner_name} failed error: {err.message}"
                )
            self.api.emit_event(owner, "Warning", "FailedCreate", message, _component(owner_res))
            return None
        return created

    def _delete(self, res: Resource, obj: Obj, propagation: str = "Background") -> None:
        with contextlib.suppress(ApiError):
            self.api.delete(
                res,
                obj["metadata"].get("namespace", ""),
                obj["metadata"]["name"],
                propagation=propagation,
            )

    def _set_status(self, res: Resource, obj: Obj, status: Obj) -> Obj:
        if obj.get("status") == status:
            return obj
        new = copy.deepcopy(obj)
        new["status"] = status
        try:
            return self.api.update(
                res,
                obj["metadata"].get("namespace", ""),
                obj["metadata"]["name"],
                new,
                subresource="status",
                internal=True,
            )
        except ApiError:
            return obj

    def _update(self, res: Resource, obj: Obj) -> Obj | None:
        try:
            return self.api.update(
                res,
                obj["metadata"].get("namespace", ""),
                obj["metadata"]["name"],
                obj,
                internal=True,
            )
        except ApiError:
            return None

    # -- namespaces and garbage collection ------------------------------------------------------

    def _namespaces(self) -> None:
        for ns in self.store.objects(self.namespaces.key, None):
            if not ns["metadata"].get("deletionTimestamp"):
                continue
            name = ns["metadata"]["name"]
            remaining = 0
            for res in self.api.registry.all():
                if not res.namespaced:
                    continue
                for obj in self.store.objects(res.key, name):
                    remaining += 1
                    if not obj["metadata"].get("deletionTimestamp"):
                        self._delete(res, obj)
            if remaining == 0:
                self.api.remove_now(self.namespaces, ns)

    def _garbage_collect(self) -> None:
        removed, self.api.removed_uids = self.api.removed_uids, []
        for uid in removed:
            for key, ns, name in self.store.dependents(uid):
                child = self.store.get(key, ns, name)
                if child is not None and not child["metadata"].get("deletionTimestamp"):
                    self._delete(self.api.registry.get(*key), child)
        for key, ns, name in sorted(self.store.terminating):
            obj = self.store.get(key, ns, name)
            if obj is None or "foregroundDeletion" not in (obj["metadata"].get("finalizers") or []):
                continue
            res = self.api.registry.get(*key)
            deps = self.store.dependents(obj["metadata"]["uid"])
            blocking = []
            for dkey, dns, dname in deps:
                child = self.store.get(dkey, dns, dname)
                if child is None:
                    continue
                blocking.append(child)
                if not child["metadata"].get("deletionTimestamp"):
                    self._delete(self.api.registry.get(*dkey), child, "Foreground")
            if not blocking:
                self.api.remove_finalizer(res, obj, "foregroundDeletion")

    # -- Job ------------------------------------------------------------------------------------

    def _jobs(self, now: float) -> None:
        for job in self.store.objects(self.jobs.key, None):
            if job["metadata"].get("deletionTimestamp"):
                continue
            status = copy.deepcopy(job.get("status") or {})
            conditions = status.get("conditions") or []
            if any(
                c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in conditions
            ):
                continue
            spec = job["spec"]
            pods = self._owned_pods(job)
            active = [
                p
                for p in pods
                if _phase(p) not in _TERMINAL and not p["metadata"].get("deletionTimestamp")
            ]
            terminating = [
                p
                for p in pods
                if _phase(p) not in _TERMINAL and p["metadata"].get("deletionTimestamp")
            ]
            succeeded = [p for p in pods if _phase(p) == "Succeeded"]
            failed = [p for p in pods if _phase(p) == "Failed"]
            restarts = sum(
                int(cs.get("restartCount", 0))
                for p in active
                for cs in (p.get("status") or {}).get("containerStatuses") or []
            )
            indexed = spec.get("completionMode") == "Indexed"
            completions = spec.get("completions")
            parallelism = int(spec.get("parallelism", 1))
            finished = ""
            if spec.get("suspend"):
                for p in active:
                    self._delete(self.pods, p)
                if not any(c["type"] == "Suspended" and c["status"] == "True" for c in conditions):
                    conditions = _condition(
                        conditions, "Suspended", "True", "JobSuspended", "Job suspended", probe=True
                    )
                    self.api.emit_event(
                        job, "Normal", "Suspended", "Job suspended", "job-controller"
                    )
                active = []
            else:
                if any(c["type"] == "Suspended" and c["status"] == "True" for c in conditions):
                    conditions = _condition(
                        conditions, "Suspended", "False", "JobResumed", "Job resumed", probe=True
                    )
                    self.api.emit_event(job, "Normal", "Resumed", "Job resumed", "job-controller")
                status.setdefault("startTime", now_rfc3339(now))
                if len(failed) + restarts > int(spec.get("backoffLimit", 6)):
                    finished = "Failed"
                    for p in active:
                        self._delete(self.pods, p)
                    active = []
                elif indexed:
                    done = {
                        int(
                            p["metadata"]
                            .get("annotations", {})
                            .get("batch.kubernetes.io/job-completion-index", -1)
                        )
                        for p in succeeded
                    }
                    running = {
                        int(
                            p["metadata"]
                            .get("annotations", {})
                            .get("batch.kubernetes.io/job-completion-index", -1)
                        )
                        for p in active
                    }
                    total = int(completions or 0)
                    if len(done & set(range(total))) >= total:
                        finished = "Complete"
                    else:
                        for index in range(total):
                            if len(active) >= parallelism:
                                break
                            if index in done or index in running:
                                continue
                            pod = self._create_job_pod(job, index)
                            if pod is None:
                                break
                            active.append(pod)
                    status["completedIndexes"] = _ranges(sorted(i for i in done if 0 <= i < total))
                else:
                    if completions is None:
                        want = 0 if succeeded else parallelism
                        if succeeded and not active:
                            finished = "Complete"
                    else:
                        remaining = int(completions) - len(succeeded)
                        want = max(min(parallelism, remaining), 0)
                        if remaining <= 0:
                            finished = "Complete"
                    if not finished:
                        for _ in range(want - len(active)):
                            pod = self._create_job_pod(job, None)
                            if pod is None:
                                break
                            active.append(pod)
                        for extra in active[want:]:
                            self._delete(self.pods, extra)
            if finished == "Complete":
                conditions = _condition(
                    conditions,
                    "SuccessCriteriaMet",
                    "True",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    probe=True,
                )
                conditions = _condition(
                    conditions,
                    "Complete",
                    "True",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                    probe=True,
                )
                status["completionTime"] = now_rfc3339(now)
                self.api.emit_event(job, "Normal", "Completed", "Job completed", "job-controller")
                active = []
            elif finished == "Failed":
                conditions = _condition(
                    conditions,
                    "FailureTarget",
                    "True",
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    probe=True,
                )
                conditions = _condition(
                    conditions,
                    "Failed",
                    "True",
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    probe=True,
                )
                self.api.emit_event(
                    job,
                    "Warning",
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    "job-controller",
                )
            if conditions:
                status["conditions"] = conditions
            status["active"] = len(active)
            status["ready"] = sum(1 for p in active if _pod_ready(p))
            status["succeeded"] = len(succeeded)
            status["failed"] = len(failed)
            status["terminating"] = len(terminating)
            status["uncountedTerminatedPods"] = {}
            for key in ("active", "succeeded", "failed"):
                if status[key] == 0:
                    del status[key]
            self._set_status(self.jobs, job, status)

    def _create_job_pod(self, job: Obj, index: int | None) -> Obj | None:
        name = job["metadata"]["name"]
        template = job["spec"]["template"]
        if index is None:
            return self._create_pod(self.jobs, job, template)
        key = "batch.kubernetes.io/job-completion-index"
        env = [
            {
                "name": "JOB_COMPLETION_INDEX",
                "valueFrom": {
                    "fieldRef": {"apiVersion": "v1", "fieldPath": f"metadata.labels['{key}']"}
                },
            }
        ]
        return self._create_pod(
            self.jobs,
            job,
            template,
            labels={key: str(index)},
            annotations={key: str(index)},
            hostname=f"{name}-{index}",
            env=env,
            generate_name=f"{name}-{index}-",
            subdomain=str((template.get("spec") or {}).get("subdomain", "")),
        )

    # -- Deployment, ReplicaSet ----------------------------------------------------------------

    def _deployments(self) -> None:
        for dep in self.store.objects(self.deployments.key, None):
            if dep["metadata"].get("deletionTimestamp"):
                continue
            spec = dep["spec"]
            name = dep["metadata"]["name"]
            uid = dep["metadata"]["uid"]
            replicas = int(spec.get("replicas", 1))
            template = spec["template"]
            rs_name = f"{name}-{template_hash(template)}"[:253]
            owned = [
                rs
                for key, ns, n in self.store.dependents(uid)
                if key == self.replicasets.key
                for rs in [self.store.get(key, ns, n)]
                if rs is not None and _owned_by(rs, uid)
            ]
            current = next((rs for rs in owned if rs["metadata"]["name"] == rs_name), None)
            revisions = [
                int(
                    rs["metadata"]
                    .get("annotations", {})
                    .get("deployment.kubernetes.io/revision", 0)
                )
                for rs in owned
            ]
            conditions = (dep.get("status") or {}).get("conditions") or []
            pod_hash = rs_name.rsplit("-", 1)[-1]
            if current is None:
                rs_template = copy.deepcopy(template)
                rs_template.setdefault("metadata", {}).setdefault("labels", {})[
                    "pod-template-hash"
                ] = pod_hash
                selector = copy.deepcopy(spec["selector"])
                selector.setdefault("matchLabels", {})["pod-template-hash"] = pod_hash
                rs_obj: Obj = {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "metadata": {
                        "name": rs_name,
                        "labels": dict(rs_template["metadata"]["labels"]),
                        "annotations": {
                            "deployment.kubernetes.io/desired-replicas": str(replicas),
                            "deployment.kubernetes.io/max-replicas": str(replicas + 1),
                            "deployment.kubernetes.io/revision": str(max(revisions, default=0) + 1),
                        },
                        "ownerReferences": [_owner_ref(self.deployments, dep)],
                    },
                    "spec": {"replicas": replicas, "selector": selector, "template": rs_template},
                }
                try:
                    current = self.api.create(
                        self.replicasets, dep["metadata"]["namespace"], rs_obj, internal=True
                    )
                except ApiError:
                    continue
                self.api.emit_event(
                    dep,
                    "Normal",
                    "ScalingReplicaSet",
                    f"Scaled up replica set {rs_name} from 0 to {replicas}",
                    "deployment-controller",
                )
                conditions = _condition(
                    conditions,
                    "Progressing",
                    "True",
                    "NewReplicaSetCreated",
                    f'Created new replica set "{rs_name}"',
                )
            elif int(current["spec"].get("replicas", 0)) != replicas:
                before = int(current["spec"].get("replicas", 0))
                new = copy.deepcopy(current)
                new["spec"]["replicas"] = replicas
                new["metadata"].setdefault("annotations", {})[
                    "deployment.kubernetes.io/desired-replicas"
                ] = str(replicas)
                current = self._update(self.replicasets, new) or current
                direction = "up" if replicas > before else "down"
                self.api.emit_event(
                    dep,
                    "Normal",
                    "ScalingReplicaSet",
                    f"Scaled {direction} replica set {rs_name} from {before} to {replicas}",
                    "deployment-controller",
                )
            # the live ReplicaSet carries the highest revision (a rollback re-numbers an old one),
            # and the Deployment repeats it, as the real controller does
            revision_key = "deployment.kubernetes.io/revision"
            others = [
                int(rs["metadata"].get("annotations", {}).get(revision_key, 0))
                for rs in owned
                if rs["metadata"]["name"] != rs_name
            ]
            revision = int(current["metadata"].get("annotations", {}).get(revision_key, 0))
            if others and revision <= max(others):
                renumbered = copy.deepcopy(current)
                revision = max(others) + 1
                renumbered["metadata"].setdefault("annotations", {})[revision_key] = str(revision)
                current = self._update(self.replicasets, renumbered) or current
            if dep["metadata"].get("annotations", {}).get(revision_key) != str(revision):
                annotated = copy.deepcopy(dep)
                annotated["metadata"].setdefault("annotations", {})[revision_key] = str(revision)
                dep = self._update(self.deployments, annotated) or dep
            cur_status = current.get("status") or {}
            new_ready = int(cur_status.get("availableReplicas", 0)) >= replicas
            recreate = (spec.get("strategy") or {}).get("type") == "Recreate"
            old = [rs for rs in owned if rs["metadata"]["name"] != rs_name]
            for rs in old:
                before = int(rs["spec"].get("replicas", 0))
                if before and (new_ready or recreate):
                    new = copy.deepcopy(rs)
                    new["spec"]["replicas"] = 0
                    self._update(self.replicasets, new)
                    self.api.emit_event(
                        dep,
                        "Normal",
                        "ScalingReplicaSet",
                        f"Scaled down replica set {rs['metadata']['name']} from {before} to 0",
                        "deployment-controller",
                    )
            limit = int(spec.get("revisionHistoryLimit", 10))
            idle = sorted(
                (
                    rs
                    for rs in old
                    if not rs["spec"].get("replicas")
                    and not (rs.get("status") or {}).get("replicas")
                ),
                key=lambda r: int(
                    r["metadata"].get("annotations", {}).get("deployment.kubernetes.io/revision", 0)
                ),
            )
            for rs in idle[: max(len(idle) - limit, 0)]:
                self._delete(self.replicasets, rs)
            all_rs = [current, *old]
            total = sum(int((rs.get("status") or {}).get("replicas", 0)) for rs in all_rs)
            ready = sum(int((rs.get("status") or {}).get("readyReplicas", 0)) for rs in all_rs)
            available = sum(
                int((rs.get("status") or {}).get("availableReplicas", 0)) for rs in all_rs
            )
            updated = int(cur_status.get("replicas", 0))
            max_unavailable = _percent_or_int(
                (spec.get("strategy") or {}).get("rollingUpdate", {}).get("maxUnavailable", 0),
                replicas,
                round_up=False,
            )
            if available >= replicas - max_unavailable:
                conditions = _condition(
                    conditions,
                    "Available",
                    "True",
                    "MinimumReplicasAvailable",
                    "Deployment has minimum availability.",
                )
            else:
                conditions = _condition(
                    conditions,
                    "Available",
                    "False",
                    "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability.",
                )
            if new_ready and updated == replicas and total == replicas:
                conditions = _condition(
                    conditions,
                    "Progressing",
                    "True",
                    "NewReplicaSetAvailable",
                    f'ReplicaSet "{rs_name}" has successfully progressed.',
                )
            elif (
                not any(
                    c["type"] == "Progressing" and c.get("reason") == "NewReplicaSetCreated"
                    for c in conditions
                )
                or updated
            ):
                conditions = _condition(
                    conditions,
                    "Progressing",
                    "True",
                    "ReplicaSetUpdated",
                    f'ReplicaSet "{rs_name}" is progressing.',
                )
            order = {"Available": 0, "Progressing": 1}
            status: Obj = {
                "observedGeneration": dep["metadata"].get("generation", 1),
                "replicas": total,
                "updatedReplicas": updated,
                "readyReplicas": ready,
                "availableReplicas": available,
                "conditions": sorted(conditions, key=lambda c: order.get(c["type"], 9)),
            }
            if replicas - available > 0:
                status["unavailableReplicas"] = replicas - available
            for key in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"):
                if not status[key]:
                    del status[key]
            self._set_status(self.deployments, dep, status)

    def _replicasets(self) -> None:
        for rs in self.store.objects(self.replicasets.key, None):
            if rs["metadata"].get("deletionTimestamp"):
                continue
            replicas = int(rs["spec"].get("replicas", 1))
            pods = [
                p
                for p in self._owned_pods(rs)
                if _phase(p) not in _TERMINAL and not p["metadata"].get("deletionTimestamp")
            ]
            for _ in range(replicas - len(pods)):
                pod = self._create_pod(self.replicasets, rs, rs["spec"]["template"])
                if pod is None:
                    break
                pods.append(pod)
                self.api.emit_event(
                    rs,
                    "Normal",
                    "SuccessfulCreate",
                    f"Created pod: {pod['metadata']['name']}",
                    "replicaset-controller",
                )
            if len(pods) > replicas:
                pods.sort(
                    key=lambda p: (_pod_ready(p), p["metadata"]["creationTimestamp"]), reverse=False
                )
                for pod in pods[: len(pods) - replicas]:
                    self._delete(self.pods, pod)
                    self.api.emit_event(
                        rs,
                        "Normal",
                        "SuccessfulDelete",
                        f"Deleted pod: {pod['metadata']['name']}",
                        "replicaset-controller",
                    )
                pods = pods[len(pods) - replicas :]
            ready = sum(1 for p in pods if _pod_ready(p))
            status: Obj = {
                "replicas": len(pods),
                "fullyLabeledReplicas": len(pods),
                "readyReplicas": ready,
                "availableReplicas": ready,
                "observedGeneration": rs["metadata"].get("generation", 1),
            }
            for key in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
                if not status[key]:
                    del status[key]
            self._set_status(self.replicasets, rs, status)

    # -- StatefulSet ----------------------------------------------------------------------------

    def _statefulsets(self) -> None:
        for sts in self.store.objects(self.statefulsets.key, None):
            if sts["metadata"].get("deletionTimestamp"):
                continue
            spec = sts["spec"]
            name = sts["metadata"]["name"]
            replicas = int(spec.get("replicas", 1))
            start = int((spec.get("ordinals") or {}).get("start", 0))
            ordered = spec.get("podManagementPolicy", "OrderedReady") == "OrderedReady"
            revision = f"{name}-{template_hash(spec['template'])}"
            pods: dict[int, Obj] = {}
            for pod in self._owned_pods(sts):
                suffix = pod["metadata"]["name"][len(name) + 1 :]
                if suffix.isdigit():
                    pods[int(suffix)] = pod
            blocked = False
            for ordinal in range(start, start + replicas):
                existing = pods.get(ordinal)
                if existing is None:
                    if blocked:
                        break
                    pod_name = f"{name}-{ordinal}"
                    created = self._create_pod(
                        self.statefulsets,
                        sts,
                        spec["template"],
                        name=pod_name,
                        labels={
                            "statefulset.kubernetes.io/pod-name": pod_name,
                            "apps.kubernetes.io/pod-index": str(ordinal),
                            "controller-revision-hash": revision,
                        },
                        hostname=pod_name,
                        subdomain=str(spec.get("serviceName") or ""),
                    )
                    if created is not None:
                        pods[ordinal] = created
                        self.api.emit_event(
                            sts,
                            "Normal",
                            "SuccessfulCreate",
                            f"create Pod {pod_name} in StatefulSet {name} successful",
                            "statefulset-controller",
                        )
                    if ordered:
                        blocked = True
                elif ordered and not _pod_ready(existing):
                    blocked = True
            extra = sorted((o for o in pods if not start <= o < start + replicas), reverse=True)
            for ordinal in extra[:1] if ordered else extra:
                pod = pods[ordinal]
                if not pod["metadata"].get("deletionTimestamp"):
                    self._delete(self.pods, pod)
                    self.api.emit_event(
                        sts,
                        "Normal",
                        "SuccessfulDelete",
                        f"delete Pod {pod['metadata']['name']} in StatefulSet {name} successful",
                        "statefulset-controller",
                    )
            live = {o: p for o, p in pods.items() if start <= o < start + replicas}
            if not blocked and all(_pod_ready(p) for p in live.values()):
                stale = sorted(
                    (
                        o
                        for o, p in live.items()
                        if p["metadata"].get("labels", {}).get("controller-revision-hash")
                        != revision
                    ),
                    reverse=True,
                )
                if stale and not live[stale[0]]["metadata"].get("deletionTimestamp"):
                    self._delete(self.pods, live[stale[0]])
            active = [p for p in live.values() if not p["metadata"].get("deletionTimestamp")]
            ready = sum(1 for p in active if _pod_ready(p))
            updated = sum(
                1
                for p in active
                if p["metadata"].get("labels", {}).get("controller-revision-hash") == revision
            )
            status: Obj = {
                "observedGeneration": sts["metadata"].get("generation", 1),
                "replicas": len(active),
                "readyReplicas": ready,
                "currentReplicas": updated,
                "updatedReplicas": updated,
                "availableReplicas": ready,
                "currentRevision": revision,
                "updateRevision": revision,
                "collisionCount": 0,
            }
            for key in ("readyReplicas", "currentReplicas", "updatedReplicas"):
                if not status[key]:
                    del status[key]
            self._set_status(self.statefulsets, sts, status)

    # -- scheduler ------------------------------------------------------------------------------

    def _schedule(self, now: float) -> None:
        pods = self.store.objects(self.pods.key, None)
        pending = [
            p
            for p in pods
            if not (p.get("spec") or {}).get("nodeName")
            and not p["metadata"].get("deletionTimestamp")
            and _phase(p) == "Pending"
            and (p.get("spec") or {}).get("schedulerName", "default-scheduler")
            == "default-scheduler"
        ]
        if not pending:
            return
        nodes = sorted(
            self.store.objects(self.nodes.key, None), key=lambda n: n["metadata"]["name"]
        )
        used: dict[str, dict[str, Fraction]] = {n["metadata"]["name"]: {} for n in nodes}
        placed: dict[str, list[Obj]] = {n["metadata"]["name"]: [] for n in nodes}
        for pod in pods:
            node = (pod.get("spec") or {}).get("nodeName")
            if node in used and _phase(pod) not in _TERMINAL:
                for k, v in _requests(pod).items():
                    used[node][k] = used[node].get(k, Fraction(0)) + v
                placed[node].append(pod)
        pending.sort(
            key=lambda p: (
                -int((p.get("spec") or {}).get("priority", 0)),
                p["metadata"]["creationTimestamp"],
                p["metadata"]["name"],
            )
        )
        for pod in pending:
            wanted = _requests(pod)
            reasons: Counter[str] = Counter()
            resource_only: set[str] = set()
            fits: list[tuple[Fraction, str]] = []
            for node in nodes:
                node_name = node["metadata"]["name"]
                why = self._unfit(pod, node, wanted, used[node_name], placed[node_name])
                if not why:
                    alloc = (node.get("status") or {}).get("allocatable") or {}
                    free = sum(
                        (quantity.parse(alloc[k]) - used[node_name].get(k, Fraction(0)))
                        / max(quantity.parse(alloc[k]), Fraction(1))
                        for k in ("cpu", "memory", "nvidia.com/gpu")
                        if k in alloc
                    )
                    fits.append((Fraction(free), node_name))
                    continue
                for reason in why:
                    reasons[reason] += 1
                if all(r.startswith("Insufficient") for r in why):
                    resource_only.add(node_name)
            runtime = self.api.runtime.setdefault(pod["metadata"]["uid"], PodRuntime())
            if fits:
                # prefer GPU nodes for GPU pods only: a CPU pod goes where it leaves GPUs alone
                if not any(
                    k.startswith("nvidia.com/") or k.startswith("aliyun.com/") for k in wanted
                ):
                    fits.sort(key=lambda f: (self._has_gpu(f[1]), -f[0], f[1]))
                else:
                    fits.sort(key=lambda f: (-f[0], f[1]))
                node_name = fits[0][1]
                new = copy.deepcopy(pod)
                new["spec"]["nodeName"] = node_name
                bound = self._update(self.pods, new)
                if bound is None:
                    continue
                status = copy.deepcopy(bound.get("status") or {})
                status["conditions"] = _condition(
                    status.get("conditions") or [], "PodScheduled", "True", probe=True
                )
                self._set_status(self.pods, bound, status)
                for k, v in wanted.items():
                    used[node_name][k] = used[node_name].get(k, Fraction(0)) + v
                placed[node_name].append(bound)
                runtime.scheduled_at = now
                self.due(now + self.config.pod_start_seconds)
                ns = pod["metadata"]["namespace"]
                self.api.emit_event(
                    bound,
                    "Normal",
                    "Scheduled",
                    f"Successfully assigned {ns}/{pod['metadata']['name']} to {node_name}",
                    "default-scheduler",
                )
                continue
            total = len(nodes)
            parts = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
            victims = len(resource_only)
            preempt = []
            if victims:
                preempt.append(f"{victims} No preemption victims found for incoming pod")
            if total - victims:
                preempt.append(f"{total - victims} Preemption is not helpful for scheduling")
            message = (
                f"0/{total} nodes are available: {parts}. preemption: 0/{total} nodes are "
                f"available: {', '.join(sorted(preempt))}."
            )
            if total == 0:
                message = "no nodes available to schedule pods"
            if runtime.failed_scheduling != message:
                runtime.failed_scheduling = message
                status = copy.deepcopy(pod.get("status") or {})
                status["conditions"] = _condition(
                    status.get("conditions") or [],
                    "PodScheduled",
                    "False",
                    "Unschedulable",
                    message,
                    probe=True,
                )
                self._set_status(self.pods, pod, status)
                self.api.emit_event(
                    pod, "Warning", "FailedScheduling", message, "default-scheduler"
                )

    def _has_gpu(self, node_name: str) -> bool:
        node = self.store.get(self.nodes.key, "", node_name)
        alloc = ((node or {}).get("status") or {}).get("allocatable") or {}
        return any(k.startswith("nvidia.com/") or k.startswith("aliyun.com/") for k in alloc)

    def _unfit(
        self,
        pod: Obj,
        node: Obj,
        wanted: dict[str, Fraction],
        used: dict[str, Fraction],
        placed: list[Obj],
    ) -> list[str]:
        spec = pod.get("spec") or {}
        labels = node["metadata"].get("labels") or {}
        if (node.get("spec") or {}).get("unschedulable"):
            return ["node(s) were unschedulable"]
        for taint in (node.get("spec") or {}).get("taints") or []:
            if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerates(
                spec.get("tolerations") or [], taint
            ):
                key, value = taint.get("key"), taint.get("value", "")
                return [f"node(s) had untolerated taint {{{key}: {value}}}"]
        selector = spec.get("nodeSelector") or {}
        if any(labels.get(k) != v for k, v in selector.items()) or not _node_affinity_ok(
            spec, labels
        ):
            return ["node(s) didn't match Pod's node affinity/selector"]
        if not self._anti_affinity_ok(pod, node, placed):
            return ["node(s) didn't match pod anti-affinity rules"]
        alloc = (node.get("status") or {}).get("allocatable") or {}
        short = []
        for name, amount in sorted(wanted.items()):
            if amount == 0:
                continue
            have = quantity.parse(alloc.get(name, 0))
            if used.get(name, Fraction(0)) + amount > have:
                short.append("Too many pods" if name == "pods" else f"Insufficient {name}")
        return short

    def _anti_affinity_ok(self, pod: Obj, node: Obj, placed: list[Obj]) -> bool:
        terms = ((pod.get("spec") or {}).get("affinity") or {}).get("podAntiAffinity", {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        ) or []
        for term in terms:
            if term.get("topologyKey") != "kubernetes.io/hostname":
                continue
            reqs = label_selector_from_object(term.get("labelSelector"))
            namespaces = term.get("namespaces") or [pod["metadata"]["namespace"]]
            for other in placed:
                if other["metadata"]["namespace"] in namespaces and matches_labels(
                    reqs, other["metadata"].get("labels")
                ):
                    return False
        return True

    # -- kubelet --------------------------------------------------------------------------------

    def _kubelet(self, now: float) -> None:
        cfg = self.config
        for pod in self.store.objects(self.pods.key, None):
            spec = pod.get("spec") or {}
            node_name = spec.get("nodeName")
            meta = pod["metadata"]
            runtime = self.api.runtime.setdefault(meta["uid"], PodRuntime())
            if meta.get("deletionTimestamp"):
                if runtime.terminate_at is None:
                    runtime.terminate_at = now + min(
                        cfg.pod_termination_seconds,
                        float(meta.get("deletionGracePeriodSeconds") or 0),
                    )
                if now >= runtime.terminate_at:
                    if runtime.finished_at is None:
                        runtime.finished_at = now
                    if not [
                        f for f in meta.get("finalizers") or [] if f != "foregroundDeletion"
                    ] and not (
                        "foregroundDeletion" in (meta.get("finalizers") or [])
                        and self.store.dependents(meta["uid"])
                    ):
                        final = copy.deepcopy(pod)
                        final["metadata"].pop("finalizers", None)
                        self.api.remove_now(self.pods, final)
                else:
                    self.due(runtime.terminate_at)
                continue
            if not node_name or _phase(pod) in _TERMINAL:
                continue
            if runtime.scheduled_at is None:
                runtime.scheduled_at = now
            status = copy.deepcopy(pod.get("status") or {})
            containers = spec.get("containers") or []
            start_at = runtime.scheduled_at + cfg.pod_start_seconds
            if runtime.started_at is None:
                if now < start_at:
                    self.due(start_at)
                    if not status.get("containerStatuses"):
                        status["hostIP"] = self._node_ip(node_name)
                        status["hostIPs"] = [{"ip": status["hostIP"]}]
                        status["startTime"] = now_rfc3339(now)
                        status["containerStatuses"] = [
                            {
                                "name": c["name"],
                                "image": c.get("image", ""),
                                "imageID": "",
                                "ready": False,
                                "restartCount": 0,
                                "started": False,
                                "state": {"waiting": {"reason": "ContainerCreating"}},
                                "lastState": {},
                            }
                            for c in containers
                        ]
                        status["conditions"] = self._conditions(status, ready=False, started=False)
                        self._set_status(self.pods, pod, status)
                    continue
                bad = [c for c in containers if cfg.image_fails_pull(str(c.get("image", "")))]
                if bad:
                    flip = int((now - start_at) / max(cfg.crash_backoff_seconds, 0.001)) % 2
                    reason = "ErrImagePull" if flip == 0 else "ImagePullBackOff"
                    self.due(now + cfg.crash_backoff_seconds)
                    changed = False
                    for cs in status.get("containerStatuses") or []:
                        image = next(
                            (c.get("image", "") for c in bad if c["name"] == cs["name"]), None
                        )
                        if image is None:
                            continue
                        message = (
                            f'failed to pull and unpack image "{image}": failed to resolve '
                            f'reference "{image}": not found'
                            if reason == "ErrImagePull"
                            else f'Back-off pulling image "{image}"'
                        )
                        waiting = {"reason": reason, "message": message}
                        if cs["state"].get("waiting") != waiting:
                            cs["state"] = {"waiting": waiting}
                            changed = True
                            if reason == "ErrImagePull":
                                self.api.emit_event(
                                    pod,
                                    "Warning",
                                    "Failed",
                                    f'Failed to pull image "{image}": {message}',
                                    "kubelet",
                                )
                                self.api.emit_event(
                                    pod, "Warning", "Failed", "Error: ErrImagePull", "kubelet"
                                )
                            else:
                                self.api.emit_event(
                                    pod,
                                    "Normal",
                                    "BackOff",
                                    f'Back-off pulling image "{image}"',
                                    "kubelet",
                                )
                    if changed:
                        self._set_status(self.pods, pod, status)
                    continue
                runtime.started_at = now
                self._start_containers(pod, status, node_name, now)
                continue
            crashing = [c for c in containers if cfg.image_crashes(str(c.get("image", "")))]
            restart_policy = spec.get("restartPolicy", "Always")
            if crashing:
                self._crash_loop(pod, status, runtime, restart_policy, now)
                continue
            if restart_policy != "Always":
                finish_at = runtime.started_at + cfg.job_run_seconds
                if now >= finish_at:
                    runtime.finished_at = now
                    for cs in status.get("containerStatuses") or []:
                        started = (
                            (cs.get("state") or {})
                            .get("running", {})
                            .get("startedAt", now_rfc3339(runtime.started_at))
                        )
                        cs["state"] = {
                            "terminated": {
                                "exitCode": 0,
                                "reason": "Completed",
                                "startedAt": started,
                                "finishedAt": now_rfc3339(now),
                                "containerID": cs.get("containerID", ""),
                            }
                        }
                        cs["ready"] = False
                        cs["started"] = False
                    status["phase"] = "Succeeded"
                    status["conditions"] = self._conditions(
                        status, ready=False, started=False, completed=True
                    )
                    self._set_status(self.pods, pod, status)
                else:
                    self.due(finish_at)

    def _node_ip(self, node_name: str) -> str:
        node = self.store.get(self.nodes.key, "", node_name) or {}
        return next(
            (
                a["address"]
                for a in (node.get("status") or {}).get("addresses") or []
                if a["type"] == "InternalIP"
            ),
            "10.0.0.1",
        )

    def _conditions(
        self, status: Obj, ready: bool, started: bool, completed: bool = False
    ) -> list[Obj]:
        conditions = status.get("conditions") or []
        reason = "PodCompleted" if completed else ("" if ready else "ContainersNotReady")
        not_ready = (
            ""
            if ready or completed
            else "containers with unready status: ["
            + " ".join(
                cs["name"] for cs in status.get("containerStatuses") or [] if not cs.get("ready")
            )
            + "]"
        )
        conditions = _condition(
            conditions,
            "PodReadyToStartContainers",
            "True" if started or completed else "False",
            probe=True,
        )
        conditions = _condition(
            conditions, "Initialized", "True", "PodCompleted" if completed else "", probe=True
        )
        conditions = _condition(
            conditions, "Ready", "True" if ready else "False", reason, not_ready, probe=True
        )
        conditions = _condition(
            conditions,
            "ContainersReady",
            "True" if ready else "False",
            reason,
            not_ready,
            probe=True,
        )
        conditions = _condition(conditions, "PodScheduled", "True", probe=True)
        order = {
            "PodReadyToStartContainers": 0,
            "Initialized": 1,
            "Ready": 2,
            "ContainersReady": 3,
            "PodScheduled": 4,
        }
        return sorted(conditions, key=lambda c: order.get(c["type"], 9))

    def _start_containers(self, pod: Obj, status: Obj, node_name: str, now: float) -> None:
        self._ip += 1
        node_index = next((i for i, n in enumerate(self.config.nodes) if n.name == node_name), 0)
        status["phase"] = "Running"
        status["hostIP"] = self._node_ip(node_name)
        status["hostIPs"] = [{"ip": status["hostIP"]}]
        status["podIP"] = f"10.244.{node_index}.{self._ip % 250 + 2}"
        status["podIPs"] = [{"ip": status["podIP"]}]
        status.setdefault("startTime", now_rfc3339(now))
        statuses = []
        for c in (pod.get("spec") or {}).get("containers") or []:
            image = c.get("image", "")
            statuses.append(
                {
                    "name": c["name"],
                    "state": {"running": {"startedAt": now_rfc3339(now)}},
                    "lastState": {},
                    "ready": True,
                    "restartCount": 0,
                    "image": image,
                    "imageID": f"{image.split(':')[0]}@sha256:{_sha(image)}",
                    "containerID": f"containerd://{_sha(pod['metadata']['uid'] + c['name'])}",
                    "started": True,
                }
            )
            self.api.emit_event(
                pod,
                "Normal",
                "Pulled",
                f'Container image "{image}" already present on machine',
                "kubelet",
            )
            self.api.emit_event(
                pod, "Normal", "Created", f"Created container: {c['name']}", "kubelet"
            )
            self.api.emit_event(
                pod, "Normal", "Started", f"Started container {c['name']}", "kubelet"
            )
        status["containerStatuses"] = statuses
        status["conditions"] = self._conditions(status, ready=True, started=True)
        self._set_status(self.pods, pod, status)

    def _crash_loop(
        self, pod: Obj, status: Obj, runtime: PodRuntime, restart_policy: str, now: float
    ) -> None:
        cfg = self.config
        backoff = cfg.crash_backoff_seconds
        if runtime.next_restart_at is None:
            runtime.next_restart_at = (
                runtime.started_at + backoff if runtime.started_at else now + backoff
            )
        if now < runtime.next_restart_at:
            self.due(runtime.next_restart_at)
            return
        runtime.next_restart_at = now + backoff
        self.due(runtime.next_restart_at)
        bad = {
            c["name"]
            for c in (pod.get("spec") or {}).get("containers") or []
            if cfg.image_crashes(str(c.get("image", "")))
        }
        if restart_policy == "Never":
            runtime.finished_at = now
            for cs in status.get("containerStatuses") or []:
                if cs["name"] in bad:
                    cs["state"] = {
                        "terminated": {
                            "exitCode": 1,
                            "reason": "Error",
                            "startedAt": now_rfc3339(runtime.started_at),
                            "finishedAt": now_rfc3339(now),
                            "containerID": cs.get("containerID", ""),
                        }
                    }
                    cs["ready"] = False
                    cs["started"] = False
            status["phase"] = "Failed"
            status["conditions"] = self._conditions(status, ready=False, started=False)
            self._set_status(self.pods, pod, status)
            return
        meta = pod["metadata"]
        for cs in status.get("containerStatuses") or []:
            if cs["name"] not in bad:
                continue
            cs["restartCount"] = int(cs.get("restartCount", 0)) + 1
            cs["lastState"] = {
                "terminated": {
                    "exitCode": 1,
                    "reason": "Error",
                    "startedAt": now_rfc3339(runtime.started_at or now),
                    "finishedAt": now_rfc3339(now),
                    "containerID": cs.get("containerID", ""),
                }
            }
            delay = min(10 * 2 ** (cs["restartCount"] - 1), 300)
            cs["state"] = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off {delay}s restarting failed container={cs['name']} "
                    f"pod={meta['name']}_{meta['namespace']}({meta['uid']})",
                }
            }
            cs["ready"] = False
            cs["started"] = False
        status["conditions"] = self._conditions(status, ready=False, started=True)
        self._set_status(self.pods, pod, status)
        self.api.emit_event(
            pod, "Warning", "BackOff", "Back-off restarting failed container", "kubelet"
        )

    # -- quota and HPA --------------------------------------------------------------------------

    def _quotas(self) -> None:
        for quota in self.store.objects(self.quotas.key, None):
            hard = (quota.get("spec") or {}).get("hard") or {}
            used = self.api.quota_used(quota["metadata"]["namespace"], hard)
            status = {
                "hard": dict(hard),
                "used": {
                    k: quantity.format_quantity(v, quantity.is_binary(hard[k]) or "memory" in k)
                    for k, v in used.items()
                },
            }
            self._set_status(self.quotas, quota, status)

    def _hpas(self) -> None:
        """Min/max enforcement as the real HPA does it; no metrics server, so no metric scaling."""
        for hpa in self.store.objects(self.hpas.key, None):
            spec = hpa.get("spec") or {}
            ref = spec.get("scaleTargetRef") or {}
            target_res = {
                "Deployment": self.deployments,
                "StatefulSet": self.statefulsets,
                "ReplicaSet": self.replicasets,
            }.get(ref.get("kind", ""))
            ns = hpa["metadata"]["namespace"]
            target = self.store.get(target_res.key, ns, ref.get("name", "")) if target_res else None
            status = copy.deepcopy(hpa.get("status") or {})
            conditions = status.get("conditions") or []
            if target is None or target_res is None:
                kind = str(ref.get("kind", "")).lower()
                conditions = _condition(
                    conditions,
                    "AbleToScale",
                    "False",
                    "FailedGetScale",
                    "the HPA controller was unable to get the target's current scale: "
                    f'{kind}s.apps "{ref.get("name", "")}" not found',
                )
                status["conditions"] = conditions
                self._set_status(self.hpas, hpa, status)
                continue
            current = int((target.get("spec") or {}).get("replicas", 1))
            low, high = int(spec.get("minReplicas", 1)), int(spec.get("maxReplicas", 1))
            desired, reason = current, ""
            if current > high:
                desired, reason = high, "Current number of replicas above Spec.MaxReplicas"
            elif 0 < current < low:
                desired, reason = low, "Current number of replicas below Spec.MinReplicas"
            conditions = _condition(
                conditions,
                "AbleToScale",
                "True",
                "SucceededRescale" if reason else "SucceededGetScale",
                f"the HPA controller was able to update the target scale to {desired}"
                if reason
                else "the HPA controller was able to get the target's current scale",
            )
            if current == 0 and low != 0:
                conditions = _condition(
                    conditions,
                    "ScalingActive",
                    "False",
                    "ScalingDisabled",
                    "scaling is disabled since the replica count of the target is zero",
                )
            else:
                conditions = _condition(
                    conditions, "ScalingActive", "False", *_metric_failure(spec)
                )
            if reason:
                new = copy.deepcopy(target)
                new["spec"]["replicas"] = desired
                self._update(target_res, new)
                self.api.emit_event(
                    hpa,
                    "Normal",
                    "SuccessfulRescale",
                    f"New size: {desired}; reason: {reason}",
                    "horizontal-pod-autoscaler",
                )
                status["lastScaleTime"] = now_rfc3339()
            if desired <= low and current < low:
                limited = (
                    "True",
                    "TooFewReplicas",
                    "the desired replica count is less than the minimum replica count",
                )
            elif current > high:
                limited = (
                    "True",
                    "TooManyReplicas",
                    "the desired replica count is more than the maximum replica count",
                )
            else:
                limited = (
                    "False",
                    "DesiredWithinRange",
                    "the desired count is within the acceptable range",
                )
            conditions = _condition(conditions, "ScalingLimited", *limited)
            status["currentReplicas"] = current
            status["desiredReplicas"] = desired
            status["conditions"] = conditions
            self._set_status(self.hpas, hpa, status)


def _metric_failure(spec: Obj) -> tuple[str, str]:
    """The reason and message the real HPA gives when no metrics API answers."""
    metric = (spec.get("metrics") or [{"type": "Resource", "resource": {"name": "cpu"}}])[0]
    kind = metric.get("type", "Resource")
    head = "the HPA was unable to compute the replica count: "
    if kind == "Resource":
        name = (metric.get("resource") or {}).get("name", "cpu")
        return (
            "FailedGetResourceMetric",
            f"{head}failed to get {name} utilization: unable to get metrics for resource {name}: "
            "unable to fetch metrics from resource metrics API: the server could not find the "
            "requested resource (get pods.metrics.k8s.io)",
        )
    section = metric.get(kind[0].lower() + kind[1:]) or {}
    name = (section.get("metric") or {}).get("name", "")
    api = "external.metrics.k8s.io" if kind == "External" else "custom.metrics.k8s.io"
    which = "external" if kind == "External" else "custom"
    return (
        f"FailedGet{kind}Metric",
        f"{head}unable to get metric {name}: unable to fetch metrics from {which} metrics API: "
        f"no {which} metrics API ({api}) registered",
    )


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _component(res: Resource) -> str:
    return {
        "Job": "job-controller",
        "ReplicaSet": "replicaset-controller",
        "StatefulSet": "statefulset-controller",
    }.get(res.kind, "controller-manager")


def _ranges(values: list[int]) -> str:
    out: list[str] = []
    for v in values:
        if out and "-" in out[-1] and int(out[-1].split("-")[1]) == v - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{v}"
        elif out and "-" not in out[-1] and int(out[-1]) == v - 1:
            out[-1] = f"{out[-1]}-{v}"
        else:
            out.append(str(v))
    return ",".join(out)


def _percent_or_int(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        raw = Fraction(int(value[:-1]) * total, 100)
        return int(-(-raw // 1)) if round_up else int(raw // 1)
    return int(value or 0)


def _tolerates(tolerations: list[Obj], taint: Obj) -> bool:
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint.get("effect"):
            continue
        if t.get("operator") == "Exists" and (not t.get("key") or t["key"] == taint.get("key")):
            return True
        if t.get("key") == taint.get("key") and t.get("value", "") == taint.get("value", ""):
            return True
    return False


def _node_affinity_ok(spec: Obj, labels: dict[str, str]) -> bool:
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if not required:
        return True
    terms = required.get("nodeSelectorTerms") or []
    return any(_term_ok(term, labels) for term in terms)


def _term_ok(term: Obj, labels: dict[str, str]) -> bool:
    exprs = term.get("matchExpressions") or []
    if not exprs and not term.get("matchFields"):
        return False
    for expr in exprs:
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        have = labels.get(str(key))
        if op == "In" and have not in values:
            return False
        if op == "NotIn" and have in values:
            return False
        if op == "Exists" and have is None:
            return False
        if op == "DoesNotExist" and have is not None:
            return False
        if op in ("Gt", "Lt"):
            try:
                if have is None or not (
                    int(have) > int(values[0]) if op == "Gt" else int(have) < int(values[0])
                ):
                    return False
            except ValueError:
                return False
    return True
