"""Pod Security admission as the real API server enforces it on pods, for the checks gpuctl's
pods can meet: a namespace's `pod-security.kubernetes.io/enforce` level (privileged when
unset) refuses a pod that breaks it, in the real server's words. Baseline: host namespaces,
hostPath volumes, privileged containers. Restricted adds: allowPrivilegeEscalation,
capabilities, volume types, runAsNonRoot and seccompProfile."""

from __future__ import annotations

from collections.abc import Callable
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


def refusal(namespace: Obj, pod: Obj) -> str:
    """`violates PodSecurity "baseline:latest": ...` when the namespace's enforced level
    refuses the pod, else ""."""
    labels = (namespace.get("metadata") or {}).get("labels") or {}
    level = labels.get(ENFORCE, "privileged")
    if level not in ("baseline", "restricted"):
        return ""
    checks = BASELINE + (RESTRICTED if level == "restricted" else ())
    found = [text for check in checks if (text := check(pod))]
    if not found:
        return ""
    version = labels.get(ENFORCE_VERSION, "latest")
    return f'violates PodSecurity "{level}:{version}": ' + ", ".join(found)


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


BASELINE: tuple[Callable[[Obj], str], ...] = (_host_namespaces, _host_path_volumes, _privileged)


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


RESTRICTED: tuple[Callable[[Obj], str], ...] = (
    _escalation,
    _capabilities,
    _volume_types,
    _non_root,
    _seccomp,
)
