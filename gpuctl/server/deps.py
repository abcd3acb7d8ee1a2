"""What every route needs: the caller (from the bearer token) and the cluster, as the caller
when the server runs with `--auth kubernetes` (impersonation), else with its own credentials."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from gpuctl.cluster.client import Cluster
from gpuctl.server.auth import Authenticator, Principal, authenticate
from gpuctl.server.kubeauth import acting

_bearer = HTTPBearer(
    auto_error=False,
    description="a token from the server's token file, or (--auth kubernetes) a Kubernetes "
    "bearer token",
)


def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    tokens: Authenticator | None = request.app.state.auth
    header = f"{credentials.scheme} {credentials.credentials}" if credentials else None
    return authenticate(tokens, header)


def cluster(request: Request, principal: Annotated[Principal, Depends(caller)]) -> Cluster:
    return acting(request.app.state.cluster, principal)


Caller = Annotated[Principal, Depends(caller)]
Kube = Annotated[Cluster, Depends(cluster)]
