"""The API on a sandbox, through FastAPI's TestClient (real HTTP semantics, in process).

Tokens: `admin` (user ops, role admin), `alice` (given to the server as its sha256 digest) and
`bob`, both role user. `api.call(who, method, path, ...)` sends the matching bearer token.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from gpuctl.cluster.client import Cluster
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens

from ..conftest import Env

SECRETS = {
    "admin": "admin-secret-00001",
    "alice": "alice-secret-00002",
    "bob": "bob-secret-0000003",
}
LOOPBACK = "http://localhost"  # a server without authentication answers only a loopback Host
ALICE_DIGEST = hashlib.sha256(SECRETS["alice"].encode()).hexdigest()
TOKEN_FILE = f"""tokens:
  - {{token: {SECRETS["admin"]}, user: ops, role: admin}}
  - {{token: "sha256:{ALICE_DIGEST}", user: alice, role: user}}
  - {{token: {SECRETS["bob"]}, user: bob, role: user}}
"""

QUOTA = """kind: quota
version: v0.1
metadata:
  name: team
users:
  alice: {cpu: 10, memory: 20Gi, gpu: 4}
  bob: {cpu: 10, memory: 20Gi, gpu: 4}
"""


def training(name: str, gpu: int = 1, pool: str | None = None) -> str:
    pool_line = f"\n  pool: {pool}" if pool else ""
    return f"""kind: training
version: v0.1
job:
  name: {name}
environment:
  image: busybox:1.36
  command: ["sh", "-c", "echo hello from {name}; sleep 30"]
resources:
  gpu: {gpu}
  cpu: 1
  memory: 1Gi{pool_line}
"""


def inference(name: str, replicas: int = 2, gpu: int = 1, pool: str | None = None) -> str:
    """A service: its pods keep running (a training Job's finish quickly in the sandbox)."""
    pool_line = f"\n  pool: {pool}" if pool else ""
    return f"""kind: inference
version: v0.1
job:
  name: {name}
environment:
  image: busybox:1.36
service:
  replicas: {replicas}
  port: 8000
resources:
  gpu: {gpu}
  cpu: 1
  memory: 1Gi{pool_line}
"""


@dataclass
class Api:
    client: TestClient
    env: Env

    def call(self, who: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}))
        if who is not None:
            headers["Authorization"] = f"Bearer {SECRETS.get(who, who)}"
        answer: httpx.Response = self.client.request(
            method, "/api/v1" + path, headers=headers, **kwargs
        )
        return answer


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.yaml"
    path.write_text(TOKEN_FILE)
    return path


@pytest.fixture
def api(env: Env, token_file: Path) -> Iterator[Api]:
    app = create_app(env.cluster, Tokens.load(str(token_file)))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client, env)


@pytest.fixture
def open_api(env: Env) -> Iterator[TestClient]:
    """The API without a token file: every caller is the admin `anonymous`."""
    with TestClient(
        create_app(env.cluster, None), base_url=LOOPBACK, raise_server_exceptions=False
    ) as client:
        yield client


def unreachable_cluster() -> Cluster:
    """A Cluster pointed at a closed loopback port (nothing listens on port 1)."""
    import urllib3
    from kubernetes.client import ApiClient, Configuration

    config = Configuration()
    config.host = "http://127.0.0.1:1"
    config.retries = urllib3.Retry(total=0, redirect=0, raise_on_status=False)
    return Cluster(ApiClient(config), "default", config.host, read_timeout=2)
