"""`yamlContent` in, checked specs and rendered manifests out, and the create verb run on them
exactly as `gpuctl create` runs it (pool node labels checked before anything is written)."""

from __future__ import annotations

from collections.abc import Sequence

from gpuctl.cluster.client import Cluster
from gpuctl.errors import Problem, SpecError
from gpuctl.inventory import pools
from gpuctl.render import engine
from gpuctl.server.errors import ApiError
from gpuctl.spec import document
from gpuctl.spec.kinds import Options
from gpuctl.verbs import actions

SOURCE = "yamlContent"


def check(text: str, source: str = SOURCE) -> list[engine.Spec]:
    """The specs of one `yamlContent`; SpecError (400) names every problem, as the CLI does."""
    specs = engine.check_documents(document.load_text(source, text))
    if not specs:
        raise SpecError([Problem(source, None, None, "", "no spec in yamlContent")])
    return specs


def only_kinds(specs: Sequence[engine.Spec], jobs: bool, where: str) -> None:
    """POST /jobs takes job kinds only, POST /quotas quota specs only (400 otherwise)."""
    for spec in specs:
        if spec.kind.is_job != jobs or (not jobs and spec.kind.name != "quota"):
            raise ApiError(
                400,
                "WrongKind",
                f"{spec.document.source}: kind {spec.kind.name} is not accepted by {where}",
            )


def render(
    specs: Sequence[engine.Spec], cluster: Cluster, namespace: str | None
) -> list[engine.Manifest]:
    options = Options(namespace=namespace, default_namespace=cluster.namespace)
    return engine.render_specs(specs, options)


def create(
    cluster: Cluster, specs: Sequence[engine.Spec], manifests: list[engine.Manifest]
) -> list[str]:
    """Create the objects (and label a pool's nodes); the report lines. A failure raises:
    409 AlreadyExists when an object exists, else 422 CreateFailed, with the verb's words."""
    _namespaces_exist(cluster, manifests)
    node_labels = pools.PoolLabels(cluster, manifests, engine.node_labels(specs))
    node_labels.check()
    lines, errors = actions.Create(cluster).run(manifests)
    labelled, failed = node_labels.write(lines)
    errors += failed
    if errors:
        exists = all("already exists" in error for error in errors)
        raise ApiError(
            409 if exists else 422,
            "AlreadyExists" if exists else "CreateFailed",
            "; ".join(errors),
        )
    return lines + labelled


def _namespaces_exist(cluster: Cluster, manifests: Sequence[engine.Manifest]) -> None:
    """404 NamespaceNotFound (as Kubernetes answers a create there) for a namespace that
    neither exists nor is created by these manifests: a user's namespace comes with their
    quota. One list request; being a read before any write, it also makes an unreachable
    cluster a 503 rather than a failed create."""
    existing = {str(ns["metadata"]["name"]) for ns in cluster.list("Namespace")}
    made = {m.name for m in manifests if m.kind == "Namespace"}
    missing = sorted({m.namespace for m in manifests if m.namespace} - made - existing)
    if missing:
        raise ApiError(
            404,
            "NamespaceNotFound",
            f"namespace {missing[0]} does not exist (a user's namespace is created with "
            "their quota: POST /quotas)",
        )
