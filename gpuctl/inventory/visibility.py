"""Whose work a reader sees by name: the one rule for every view that may show other
namespaces' jobs and pods (a preemption's preemptor, a pool's jobs, a node's pods).

A view is given `sees`, which says whether the reader may see a namespace's work by name.
Work of a namespace it does not see is counted (`counted`) or said without a name
(`ANOTHER_NAMESPACE`), never named: not its job, pod or namespace.

- The REST API passes the caller's own rule (gpuctl.server.auth.Principal.sees): a token-file
  user sees their own namespace, an admin every one; a caller the cluster authenticated sees
  what RBAC lets them read (a read it forbids hides the name as well).
- The command line passes `everyone`: it reads with the user's own credentials, so what it
  may read (cluster-wide read: every namespace) the cluster decides, and a read the cluster
  forbids hides the name as for a REST caller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gpuctl.inventory import status

Sees = Callable[[str], bool]  # may the reader see this namespace's work by name?

# What stands for a job of a namespace the reader does not see.
ANOTHER_NAMESPACE = "a higher-priority job in another namespace"


def everyone(namespace: str) -> bool:
    """The command line's rule: every namespace the user's credentials may read."""
    return True


def only(*namespaces: str) -> Sees:
    """These namespaces, no other."""
    allowed = frozenset(namespaces)
    return lambda namespace: namespace in allowed


def counted(pods: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Pods counted, not named: how many, of how many jobs, holding how many GPUs."""
    jobs_of = {
        (
            (pod.get("metadata") or {}).get("namespace"),
            status.job_name_of((pod.get("metadata") or {}).get("labels") or {}),
        )
        for pod in pods
    }
    return {
        "jobs": len(jobs_of),
        "pods": len(pods),
        "gpu": sum(status.pod_gpus(pod) for pod in pods),
    }
