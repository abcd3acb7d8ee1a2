"""`gpuctl serve --auth kubernetes`: callers send their Kubernetes bearer token, and the
cluster decides.

- Who: the server asks the cluster (a TokenReview, authentication.k8s.io/v1, made with the
  server's own credentials) who the token belongs to. A token the cluster does not accept is
  a 401. A successful review is kept for `TTL` seconds, keyed by the SHA-256 of the token (the
  token itself is neither kept nor logged), so a busy client costs one review a minute; a
  refused one for `REFUSED_TTL` seconds, so a client retrying a bad token cannot turn each of
  its requests into a review.
- What: every cluster request of the caller's API request is made as them (impersonation:
  `Impersonate-User` and one `Impersonate-Group` per group of the review), so RBAC decides; a
  refusal is the API's 403 `{"error": "Forbidden", ...}`. The server's credentials need
  `create` on tokenreviews and `impersonate` on users, groups and serviceaccounts.
- Where: a caller acts in the namespace they name (a spec's `namespace:`, `?namespace=`, a job
  id), else in their own: a service account's namespace, or the namespace named after the user
  (when the user name is a namespace name), else the server's kubeconfig namespace. Lists
  without a namespace cover every namespace when RBAC allows that, else their own.
- POST /auth/check answers from a SelfSubjectAccessReview made as the caller.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI, Impersonation
from gpuctl.cluster.client import Forbidden, KubeError, NotFound
from gpuctl.server.auth import KUBERNETES, Principal
from gpuctl.server.errors import ApiError

TTL = 60.0  # seconds a successful token review is trusted
REFUSED_TTL = 10.0  # seconds a refused token stays refused without asking again
MAX_CACHED = 10_000  # reviews kept at most (the oldest go first)
_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")  # both used with fullmatch
_SERVICE_ACCOUNT = re.compile(rf"system:serviceaccount:({_NAMESPACE.pattern}):[-a-z0-9.]+")
T = TypeVar("T")
Acting = TypeVar("Acting", bound=Impersonation)  # a connection that can act as someone


def home_of(user: str) -> str | None:
    """The namespace a user acts in by default: a service account's own, else the namespace
    named after the user, when their name is a namespace name (None otherwise)."""
    found = _SERVICE_ACCOUNT.fullmatch(user)
    if found:
        return found.group(1)
    return user if len(user) <= 63 and _NAMESPACE.fullmatch(user) else None


class TokenReviews:
    """Kubernetes bearer tokens, reviewed by the cluster; `who(token)` as `Tokens.who`."""

    def __init__(
        self, cluster: ClusterAPI, ttl: float = TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._cluster = cluster
        self._ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._cache: OrderedDict[bytes, tuple[float, Principal | None]] = OrderedDict()
        self.reviews = 0  # reviews sent to the cluster (the cache's misses)

    def who(self, secret: str) -> Principal | None:
        key = hashlib.sha256(secret.encode("utf-8")).digest()
        now = self._clock()
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] > now:
                return hit[1]
        principal = self._review(secret)
        kept_for = self._ttl if principal is not None else min(self._ttl, REFUSED_TTL)
        with self._lock:
            self._cache[key] = (now + kept_for, principal)
            self._cache.move_to_end(key)
            while len(self._cache) > MAX_CACHED:
                self._cache.popitem(last=False)
        return principal

    def _review(self, secret: str) -> Principal | None:
        review = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenReview",
            "spec": {"token": secret},
        }
        with self._lock:
            self.reviews += 1
        try:
            answer = self._cluster.create(review)
        except Forbidden as exc:
            raise ApiError(
                503,
                "AuthUnavailable",
                "the server may not review tokens: its credentials need `create` on "
                f"tokenreviews.authentication.k8s.io ({exc})",
            ) from None
        except NotFound:
            raise ApiError(
                503,
                "AuthUnavailable",
                "the cluster serves no TokenReview API (the sandbox does not): use --tokens FILE",
            ) from None
        status: dict[str, Any] = answer.get("status") or {}
        user = status.get("user") or {}
        name = user.get("username")
        if not status.get("authenticated") or not name:
            return None
        groups = tuple(str(group) for group in user.get("groups") or ())
        return Principal(str(name), KUBERNETES, groups, home_of(str(name)))


def acting(cluster: Acting, principal: Principal) -> Acting:
    """The cluster as the caller: impersonating them in kubernetes mode, else the server's."""
    if principal.impersonated:
        return cluster.impersonating(principal.user, principal.groups)
    return cluster


def namespace_of(cluster: ClusterAPI, principal: Principal) -> str:
    """Where a kubernetes-mode caller acts when they name no namespace."""
    return principal.home or cluster.namespace


def everywhere_or_home(
    cluster: ClusterAPI, principal: Principal, read: Callable[[str | None], T]
) -> T:
    """`read(None)` (every namespace) when RBAC allows it, else `read` of their namespace."""
    try:
        return read(None)
    except Forbidden:
        return read(namespace_of(cluster, principal))


# What each resource and action of POST /auth/check is in the cluster: (API group, resource,
# verb by action, namespaced). Pools are records (ConfigMaps) in gpuctl's namespace plus node
# labels; labels are node patches.
_ACCESS: dict[str, tuple[str, str, dict[str, str], bool]] = {
    "jobs": ("batch", "jobs", {}, True),
    "pools": ("", "configmaps", {}, True),
    "nodes": ("", "nodes", {}, False),
    "labels": ("", "nodes", {"create": "patch", "delete": "patch"}, False),
    "quotas": ("", "resourcequotas", {}, True),
}


def review_access(
    cluster: ClusterAPI, principal: Principal, resource: str, action: str, owner: str | None
) -> tuple[bool, str]:
    """Would the cluster let the caller do it? (allowed, reason): a SelfSubjectAccessReview
    made as them (`cluster` impersonates them)."""
    group, plural, verbs, namespaced = _ACCESS[resource]
    verb = verbs.get(action, action)
    attributes: dict[str, Any] = {"group": group, "resource": plural, "verb": verb}
    if namespaced:
        where = c.SYSTEM_NAMESPACE if resource == "pools" else owner
        attributes["namespace"] = where or namespace_of(cluster, principal)
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attributes},
    }
    try:
        status: dict[str, Any] = cluster.create(review).get("status") or {}
    except KubeError as exc:
        return False, f"the cluster could not say: {exc}"
    what = f"{verb} {plural}" + (f" in namespace {attributes['namespace']}" if namespaced else "")
    allowed = bool(status.get("allowed")) and not status.get("denied")
    because = status.get("reason") or status.get("evaluationError") or ""
    words = f"RBAC {'allows' if allowed else 'does not allow'} {principal.user} to {what}"
    return allowed, words + (f" ({because})" if because else "")
