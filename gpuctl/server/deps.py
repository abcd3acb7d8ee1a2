"""What every route needs: the caller (from the bearer token) and the cluster, as the caller
when the server runs with `--auth kubernetes` (impersonation), else with its own credentials:
`Kube` for reads of one object and for writes, `Reads` for lists across the cluster (from the
watch cache when it can answer them; never for an impersonated caller, whose reads RBAC must
decide). After a write, `caught_up` makes the cache show it before the route answers, so that
the caller's next list sees its own write."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Annotated, Any, Final, TypeVar

from fastapi import Depends, Request
from starlette.concurrency import run_in_threadpool

from gpuctl.cluster.api import ClusterAPI, FullClusterAPI
from gpuctl.cluster.cache import Cache, CachedReads, NotCached
from gpuctl.server.auth import Authenticator, Principal, Tokens, authenticate
from gpuctl.server.kubeauth import acting
from gpuctl.server.limits import PRINCIPAL

T = TypeVar("T")
# The OpenAPI document's security scheme, which every operation lists (gpuctl.server.app adds
# it): the routes read the Authorization header themselves, as `authenticate` parses it, with
# no per-request dependency for it.
BEARER_SCHEME: Final = "HTTPBearer"
BEARER: Final[dict[str, Any]] = {
    "type": "http",
    "scheme": "bearer",
    "description": "a token from the server's token file, or (--auth kubernetes) a Kubernetes "
    "bearer token",
}


# The dependencies are coroutines, which call the cluster only through the thread pool:
# FastAPI would run a plain function there, a hand-off to a thread and back, for each, on every
# request, also when (a token file) nothing blocks.


async def caller(request: Request) -> Principal:
    """The request's caller, authenticated once per request (then kept in its scope, where
    `Gate` leaves the caller of a request with a body, authenticated before it was read)."""
    known: Principal | None = request.scope.get(PRINCIPAL)
    if known is not None:
        return known
    tokens: Authenticator | None = request.app.state.auth
    header = request.headers.get("authorization")
    if tokens is None or isinstance(tokens, Tokens):  # the token file: in memory
        principal = authenticate(tokens, header)
    else:
        principal = await run_in_threadpool(authenticate, tokens, header)  # a TokenReview, maybe
    request.scope[PRINCIPAL] = principal
    return principal


# `cluster` and `reads` ask `caller` themselves rather than through Depends: FastAPI solves
# each nested dependency on every request, a cost worth a tenth of a cached list's answer.


async def cluster(request: Request) -> FullClusterAPI:
    connection: FullClusterAPI = request.app.state.cluster
    return acting(connection, await caller(request))


async def reads(request: Request) -> ClusterAPI:
    principal = await caller(request)
    if principal.impersonated:  # the cache reads as the server: RBAC must decide for them
        connection: FullClusterAPI = request.app.state.cluster
        return acting(connection, principal)
    found: ClusterAPI = request.app.state.reads
    return found


def caught_up(request: Request, kind: str, names: list[str], namespace: str | None) -> None:
    """Wait (briefly) until the watch cache shows the objects as the cluster has them now."""
    cache: Cache | None = request.app.state.cache
    if cache is not None:
        for name in names:
            cache.catch_up(kind, name, namespace)


def remembered(reads: ClusterAPI, key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()` (a function of `reads`' lists), remembered while the watch cache has not
    changed; computed each time when there is no cache."""
    if isinstance(reads, CachedReads):
        return reads.remember(key, compute)
    return compute()


async def from_lists(reads: ClusterAPI, compute: Callable[[ClusterAPI], T]) -> T:
    """`compute(reads)` without ever holding up the event loop on the cluster: on the loop
    itself when the watch cache answers every read it makes (no thread hand-off, the cheapest
    way to serve a list), else in the thread pool with the cluster behind the cache."""
    if isinstance(reads, CachedReads) and reads.cache.ready:
        try:
            return compute(reads.offline)
        except NotCached:
            pass
    return await run_in_threadpool(compute, reads)


Caller = Annotated[Principal, Depends(caller)]
Kube = Annotated[FullClusterAPI, Depends(cluster)]
Reads = Annotated[ClusterAPI, Depends(reads)]
