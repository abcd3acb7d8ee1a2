"""`yamlContent` in, a Workset out (Workset.from_text: as the CLI builds it from files), and
the create verb run on it. The server's policy admits the objects first (host paths: see
gpuctl.server.auth.Policy); the verb checks a pool's nodes and the jobs' placement before it
writes, and removes what it created when any object fails."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.client import Forbidden
from gpuctl.errors import Problem, SpecError
from gpuctl.render import engine
from gpuctl.server.auth import Policy, Principal
from gpuctl.server.errors import ApiError, verb_failed
from gpuctl.spec.check import Spec
from gpuctl.spec.kinds import Options
from gpuctl.verbs.common import VerbResult
from gpuctl.verbs.create import Create, Marks
from gpuctl.verbs.options import cluster_options
from gpuctl.verbs.workset import Admit, Workset

SOURCE = "yamlContent"


def workset(
    cluster: ClusterAPI,
    text: str,
    source: str = SOURCE,
    *,
    admit: Admit | None = None,
    namespaces: Callable[[], tuple[str | None, str | None]] = lambda: (None, None),
) -> Workset:
    """The Workset of one `yamlContent`: SpecError (400) names every problem, as the CLI does;
    an empty one is refused, then `admit` may refuse the specs (a route's own rules). Rendered
    for the cluster: in the forced namespace whatever the specs say, when `namespaces` gives
    one; a spec that names none goes to its default, else to the kubeconfig's namespace."""

    def checked(specs: Sequence[Spec]) -> None:
        if not specs:
            raise SpecError([Problem(source, None, None, "", "no spec in yamlContent")])
        if admit is not None:
            admit(specs)

    def options() -> Options:
        forced, default = namespaces()
        return cluster_options(cluster, forced, default)

    return Workset.from_text(text, source, options, checked)


def only_kinds(specs: Sequence[Spec], jobs: bool, where: str) -> None:
    """POST /jobs takes job kinds only, POST /quotas quota specs only (400 otherwise)."""
    for spec in specs:
        if spec.kind.is_job != jobs or (not jobs and spec.kind.name != "quota"):
            raise ApiError(
                400,
                "WrongKind",
                f"{spec.document.source}: kind {spec.kind.name} is not accepted by {where}",
            )


def create(
    cluster: ClusterAPI,
    work: Workset,
    principal: Principal,
    policy: Policy,
    marks: Marks | None = None,
    *,
    allow_pending: bool = False,
) -> VerbResult:
    """Create the objects (and label a pool's nodes), once the server's policy admits them for
    `principal` (403 otherwise, nothing written). A failure answers by the cluster's error
    (409 AlreadyExists when an object exists, 403 Forbidden, ...), else 422 CreateFailed, with
    the verb's words (nothing is left behind). `marks`: what the workload also carries."""
    policy.admit(principal, work.manifests)
    _namespaces_exist(cluster, work.manifests)
    verb = Create(
        cluster, node_labels=work.node_labels, marks=marks or Marks(), allow_pending=allow_pending
    )
    result = verb.run(work.manifests)
    if not result.ok:
        raise verb_failed(result, 422, "CreateFailed")
    return result


def _namespaces_exist(cluster: ClusterAPI, manifests: Sequence[engine.Manifest]) -> None:
    """404 NamespaceNotFound (as Kubernetes answers a create there) for a namespace that
    neither exists nor is created by these manifests: a user's namespace comes with their
    quota. One list request; being a read before any write, it also makes an unreachable
    cluster a 503 rather than a failed create."""
    try:
        existing = {str(ns["metadata"]["name"]) for ns in cluster.list("Namespace")}
    except Forbidden:
        return  # a caller RBAC lets not list namespaces: the create itself will say

    made = {m.name for m in manifests if m.kind == "Namespace"}
    missing = sorted({m.namespace for m in manifests if m.namespace} - made - existing)
    if missing:
        raise ApiError(
            404,
            "NamespaceNotFound",
            f"namespace {missing[0]} does not exist (a user's namespace is created with "
            "their quota: POST /quotas)",
        )
