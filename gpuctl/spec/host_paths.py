"""Workdirs on sensitive host paths: a warning, never a refusal.

A workdir is a hostPath volume: the job's pods read and write the node's own files there, as
root when the image runs as root. Some paths hand a pod the node itself (its configuration,
the container runtime's socket, the kubelet's credentials, the kernel's interfaces); the job
is still created (an administrator may mean it, and `gpuctl serve --allow-host-path` decides
for API users), and the warning names the path and what it exposes.

- a path that is, or lies under, one of SENSITIVE_TREES (`/etc`, `/etc/ssl`, the runtime's
  socket, `/var/lib/kubelet/pods`);
- a path that is exactly one of SENSITIVE_ROOTS (`/`, `/var`): they hold the trees above,
  while paths under them (`/var/data`, `/home/ai`) are ordinary workdirs.

Pure: a spec document in, problems out.
"""

from __future__ import annotations

import posixpath
from typing import Any, Final

from gpuctl.errors import Problem
from gpuctl.spec.document import Document

_RUNTIME_SOCKET: Final = "the container runtime's socket (whoever holds it runs any container)"
# path (and everything under it) -> what a pod that mounts it gets
SENSITIVE_TREES: Final = {
    "/etc": "the node's configuration and credentials",
    "/root": "the node's root home directory (SSH keys, credentials)",
    "/boot": "the node's kernel and boot loader",
    "/proc": "the node's processes and kernel settings",
    "/sys": "the node's kernel and devices",
    "/var/lib/kubelet": "the kubelet's state (every pod's volumes and service account tokens)",
    "/var/lib/docker": "the container runtime's state (every container's files)",
    "/var/lib/containerd": "the container runtime's state (every container's files)",
    "/var/run/docker.sock": _RUNTIME_SOCKET,
    "/run/docker.sock": _RUNTIME_SOCKET,
    "/var/run/containerd": _RUNTIME_SOCKET,
    "/run/containerd": _RUNTIME_SOCKET,
    "/var/run/crio": _RUNTIME_SOCKET,
    "/run/crio": _RUNTIME_SOCKET,
}
# path (exactly) -> what a pod that mounts it gets
SENSITIVE_ROOTS: Final = {
    "/": "the node's whole file system",
    "/dev": "every device of the node",
    "/run": "the node's runtime sockets",
    "/var/run": "the node's runtime sockets",
    "/var": "the node's runtime and kubelet state",
    "/var/lib": "the node's runtime and kubelet state",
    "/usr": "the node's programs",
    "/bin": "the node's programs",
    "/sbin": "the node's programs",
    "/lib": "the node's libraries",
}
HINT: Final = "mount a directory made for the job's data, such as /data/<team> or /models"


def exposed(path: str) -> str | None:
    """What a workdir at `path` exposes of the node; None for an ordinary path."""
    normal = posixpath.normpath(path)
    normal = "/" if normal == "//" else normal  # POSIX keeps a leading '//'
    if normal in SENSITIVE_ROOTS:
        return SENSITIVE_ROOTS[normal]
    for tree, what in SENSITIVE_TREES.items():
        if normal == tree or normal.startswith(tree + "/"):
            return what
    return None


def host_path_problems(document: Document) -> list[Problem]:
    """A warning for each workdir of a spec on a sensitive host path."""
    data = document.data if isinstance(document.data, dict) else {}
    storage = data.get("storage")
    workdirs: Any = storage.get("workdirs") if isinstance(storage, dict) else None
    if not isinstance(workdirs, list):
        return []
    problems = []
    for index, workdir in enumerate(workdirs):
        path = workdir.get("path") if isinstance(workdir, dict) else None
        what = exposed(path) if isinstance(path, str) else None
        if what is not None:
            problems.append(
                document.problem(
                    ("storage", "workdirs", index, "path"),
                    f"host path {path} gives the job's pods {what}",
                    HINT,
                )
            )
    return problems
