"""What every route needs: the caller (from the bearer token) and the cluster."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from gpuctl.cluster.client import Cluster
from gpuctl.server.auth import Principal, Tokens, authenticate

_bearer = HTTPBearer(auto_error=False, description="a token from the server's token file")


def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    tokens: Tokens | None = request.app.state.tokens
    header = f"{credentials.scheme} {credentials.credentials}" if credentials else None
    return authenticate(tokens, header)


def cluster(request: Request) -> Cluster:
    found: Cluster = request.app.state.cluster
    return found


Caller = Annotated[Principal, Depends(caller)]
Kube = Annotated[Cluster, Depends(cluster)]
