"""Pod Security admission as the real API server enforces it on pods, for the checks gpuctl's
pods can meet: a namespace's `pod-security.kubernetes.io/enforce` level (privileged when
unset) refuses a pod that breaks it, in the real server's words. Baseline: host namespaces,
hostPath volumes, privileged containers. Restricted adds: allowPrivilegeEscalation,
capabilities, volume types, runAsNonRoot and seccompProfile.

The one evaluator, in gpuctl.placement because it is a rule about where a pod may run (which
namespaces admit it) and, like the rest of the package, pure: the sandbox's admission enforces
it, and create/apply's preflight (gpuctl.verbs.preflight) refuses a job the namespace would
refuse the pods of, before anything is written. Namespace and pod objects in, words out;
no Kubernetes client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]
ENFORCE = "pod-security.kubernetes.io/enforce"
ENFORCE_VERSION = "pod-security.kubernetes.io/enforce-version"
RESTRICTED_VOLUMES = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
)


@dataclass(frozen=True)
class Violation:
    """One check a pod fails: the check's ID as Pod Security names it (`hostPathVolumes`),
    the level that brings it (baseline, restricted) and the real server's words for it."""

    check: str
    level: str
    text: str


@dataclass(frozen=True)
class Verdict:
    """What a namespace's enforced level finds wrong with a pod (nothing: admitted)."""

    level: str
    version: str
    violations: tuple[Violation, ...] = ()

    def __str__(self) -> str:
        """`violates PodSecurity "baseline:latest": ...`; "" when the pod is admitted."""
        if not self.violations:
            return ""
        found = ", ".join(violation.text for violation in self.violations)
        return f'violates PodSecurity "{self.level}:{self.version}": {found}'


def enforced(namespace: Mapping[str, Any]) -> tuple[str, str]:
    """The namespace's enforced level and version (privileged, latest when unset)."""
    labels = (namespace.get("metadata") or {}).get("labels") or {}
    return labels.get(ENFORCE, "privileged"), labels.get(ENFORCE_VERSION, "latest")


def verdict(namespace: Mapping[str, Any], pod: Obj) -> Verdict:
    """The namespace's enforced level's checks that the pod fails, in the server's order."""
    level, version = enforced(namespace)
    if level not in ("baseline", "restricted"):
        return Verdict(level, version)
    checks = BASELINE + (RESTRICTED if level == "restricted" else ())
    found = tuple(
        Violation(check_id, at, text) for check_id, at, check in checks if (text := check(pod))
    )
    return Verdict(level, version, found)


def refusal(namespace: Obj, pod: Obj) -> str:
    """`violates PodSecurity "baseline:latest": ...` when the namespace's enforced level
    refuses the pod, else ""."""
    return str(verdict(namespace, pod))


def _spec(pod: Obj) -> Obj:
    return pod.get("spec") or {}


def _containers(pod: Obj) -> list[Obj]:
    spec = _spec(pod)
    return [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]


def _quoted(names: list[str]) -> str:
    return ", ".join(f'"{name}"' for name in names)


def _named(what: str, names: list[str]) -> str:
    return f"{what}{'s' if len(names) > 1 else ''} {_quoted(names)}"


def _host_namespaces(pod: Obj) -> str:
    spec = _spec(pod)
    found = [f"{key}=true" for key in ("hostNetwork", "hostPID", "hostIPC") if spec.get(key)]
    return f"host namespaces ({', '.join(found)})" if found else ""


def _host_path_volumes(pod: Obj) -> str:
    names = [v.get("name", "") for v in _spec(pod).get("volumes") or [] if "hostPath" in v]
    return f"hostPath volumes ({_named('volume', names)})" if names else ""


def _privileged(pod: Obj) -> str:
    names = [
        c.get("name", "")
        for c in _containers(pod)
        if (c.get("securityContext") or {}).get("privileged")
    ]
    if not names:
        return ""
    return f"privileged ({_named('container', names)} must not set securityContext.privileged=true)"


Check = tuple[str, str, Callable[[Obj], str]]  # ID, level, words ("" when the pod passes)
BASELINE: tuple[Check, ...] = (
    ("hostNamespaces", "baseline", _host_namespaces),
    ("hostPathVolumes", "baseline", _host_path_volumes),
    ("privileged", "baseline", _privileged),
)


def _escalation(pod: Obj) -> str:
    names = [
        c.get("name", "")
        for c in _containers(pod)
        if (c.get("securityContext") or {}).get("allowPrivilegeEscalation") is not False
    ]
    if not names:
        return ""
    return (
        f"allowPrivilegeEscalation != false ({_named('container', names)} must set "
        "securityContext.allowPrivilegeEscalation=false)"
    )


def _capabilities(pod: Obj) -> str:
    names = [
        c.get("name", "")
        for c in _containers(pod)
        if "ALL"
        not in (((c.get("securityContext") or {}).get("capabilities") or {}).get("drop") or [])
    ]
    if not names:
        return ""
    return (
        f"unrestricted capabilities ({_named('container', names)} must set "
        'securityContext.capabilities.drop=["ALL"])'
    )


def _volume_types(pod: Obj) -> str:
    found = []
    for volume in _spec(pod).get("volumes") or []:
        kinds = [key for key in volume if key != "name" and key not in RESTRICTED_VOLUMES]
        found += [
            f'volume "{volume.get("name", "")}" uses restricted volume type "{k}"' for k in kinds
        ]
    return f"restricted volume types ({', '.join(found)})" if found else ""


def _pod_or_container(pod: Obj, field: str, wanted: Callable[[Any], bool]) -> list[str]:
    """The containers whose securityContext field (or, unset there, the pod's) is not right."""
    pod_value = (_spec(pod).get("securityContext") or {}).get(field)
    names = []
    for container in _containers(pod):
        value = (container.get("securityContext") or {}).get(field, pod_value)
        if not wanted(value):
            names.append(container.get("name", ""))
    return names


def _non_root(pod: Obj) -> str:
    names = _pod_or_container(pod, "runAsNonRoot", lambda value: value is True)
    if not names:
        return ""
    return (
        f"runAsNonRoot != true (pod or {_named('container', names)} must set "
        "securityContext.runAsNonRoot=true)"
    )


def _seccomp(pod: Obj) -> str:
    names = _pod_or_container(
        pod,
        "seccompProfile",
        lambda value: (value or {}).get("type") in ("RuntimeDefault", "Localhost"),
    )
    if not names:
        return ""
    return (
        f"seccompProfile (pod or {_named('container', names)} must set "
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )


RESTRICTED: tuple[Check, ...] = (
    ("allowPrivilegeEscalation", "restricted", _escalation),
    ("capabilities_restricted", "restricted", _capabilities),
    ("restrictedVolumes", "restricted", _volume_types),
    ("runAsNonRoot", "restricted", _non_root),
    ("seccompProfile_restricted", "restricted", _seccomp),
)
