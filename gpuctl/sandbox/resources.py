"""The resource types the sandbox serves, as discovery describes them."""

from __future__ import annotations

from dataclasses import dataclass, field

VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    verbs: tuple[str, ...] = tuple(VERBS)
    # the CRD's openAPIV3Schema for custom resources; None for built-in types
    crd_schema: dict[str, object] | None = field(default=None, compare=False, hash=False)
    # the CRD version's additionalPrinterColumns (name, type, jsonPath, priority); () if none
    printer_columns: tuple[tuple[str, str, str, int], ...] = field(
        default=(), compare=False, hash=False
    )

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """`jobs.batch` or `pods`: how error messages name the type."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def key(self) -> tuple[str, str]:
        return (self.group, self.plural)

    @property
    def base_path(self) -> str:
        return f"/apis/{self.group}/{self.version}" if self.group else "/api/v1"

    def path(self, namespace: str | None, name: str | None = None) -> str:
        path = self.base_path
        if self.namespaced and namespace:
            path += f"/namespaces/{namespace}"
        path += f"/{self.plural}"
        if name:
            path += f"/{name}"
        return path


def _r(
    group: str,
    version: str,
    plural: str,
    kind: str,
    namespaced: bool = True,
    short: tuple[str, ...] = (),
    all_: bool = False,
    sub: tuple[str, ...] = (),
) -> Resource:
    return Resource(group, version, plural, kind, namespaced, short, ("all",) if all_ else (), sub)


BUILTIN: list[Resource] = [
    _r("", "v1", "namespaces", "Namespace", False, ("ns",), sub=("status", "finalize")),
    _r("", "v1", "nodes", "Node", False, ("no",), sub=("status",)),
    _r("", "v1", "pods", "Pod", True, ("po",), True, ("log", "resize", "status")),
    _r("", "v1", "services", "Service", True, ("svc",), True, ("status",)),
    _r("", "v1", "configmaps", "ConfigMap", True, ("cm",)),
    _r("", "v1", "secrets", "Secret", True),
    _r("", "v1", "resourcequotas", "ResourceQuota", True, ("quota",), sub=("status",)),
    _r("", "v1", "events", "Event", True, ("ev",)),
    _r("", "v1", "serviceaccounts", "ServiceAccount", True, ("sa",)),
    _r("batch", "v1", "jobs", "Job", True, (), True, ("status",)),
    _r("apps", "v1", "deployments", "Deployment", True, ("deploy",), True, ("scale", "status")),
    _r("apps", "v1", "replicasets", "ReplicaSet", True, ("rs",), True, ("scale", "status")),
    _r("apps", "v1", "statefulsets", "StatefulSet", True, ("sts",), True, ("scale", "status")),
    _r(
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        True,
        ("hpa",),
        True,
        ("status",),
    ),
    _r(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        True,
        ("pdb",),
        sub=("status",),
    ),
    _r("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, ("pc",)),
    _r("coordination.k8s.io", "v1", "leases", "Lease"),
    # stored and served, not enforced: the sandbox has no pod network to police
    _r("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True, ("netpol",)),
    # RBAC objects are stored and served, not enforced: the sandbox authorizes every request.
    _r("rbac.authorization.k8s.io", "v1", "roles", "Role"),
    _r("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding"),
    _r("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False),
    _r("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", False),
    Resource(
        "authorization.k8s.io",
        "v1",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        False,
        verbs=("create",),
    ),
    _r(
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        False,
        ("crd", "crds"),
        sub=("status",),
    ),
]


class Registry:
    """Built-in resources plus those that CRDs add while the sandbox runs."""

    def __init__(self) -> None:
        self._by_path: dict[tuple[str, str, str], Resource] = {}
        self._by_gvk: dict[tuple[str, str], Resource] = {}
        for res in BUILTIN:
            self.add(res)

    def add(self, res: Resource) -> None:
        self._by_path[(res.group, res.version, res.plural)] = res
        self._by_gvk[(res.api_version, res.kind)] = res

    def remove(self, res: Resource) -> None:
        self._by_path.pop((res.group, res.version, res.plural), None)
        self._by_gvk.pop((res.api_version, res.kind), None)

    def lookup(self, group: str, version: str, plural: str) -> Resource | None:
        return self._by_path.get((group, version, plural))

    def by_kind(self, api_version: str, kind: str) -> Resource | None:
        return self._by_gvk.get((api_version, kind))

    def all(self) -> list[Resource]:
        return list(self._by_path.values())

    def groups(self) -> dict[str, list[str]]:
        """group → its versions (preferred first), without the core group."""
        out: dict[str, list[str]] = {}
        for res in self._by_path.values():
            if res.group and res.version not in out.setdefault(res.group, []):
                out[res.group].append(res.version)
        return out

    def in_group_version(self, group: str, version: str) -> list[Resource]:
        return [r for r in self._by_path.values() if r.group == group and r.version == version]

    def get(self, group: str, plural: str) -> Resource:
        for res in self._by_path.values():
            if res.group == group and res.plural == plural:
                return res
        raise KeyError((group, plural))
