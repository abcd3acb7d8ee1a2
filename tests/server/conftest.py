"""The API through FastAPI's TestClient (real HTTP semantics, in process): `api` on a sandbox
of the test's own (for what only the sandbox can do: faults, its request log, its invented log
lines and metrics), `cluster_api` on the `cluster` fixture (the sandbox, and the local real
control plane marked `kube`), so a test written once runs on both.

Tokens: `admin` (user ops, role admin), `alice` (given to the server as its sha256 digest) and
`bob`, both role user. `api.call(who, method, path, ...)` sends the matching bearer token.
"""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from gpuctl import constants as c
from gpuctl.cluster.client import Cluster
from gpuctl.cluster.errors import KubeError
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens
from tests.support.nodes import nodes_made, pool_node
from tests.support.sandbox import Cluster as TestCluster

from ..conftest import Env, run_gpuctl

SECRETS = {
    "admin": "admin-secret-00001",
    "alice": "alice-secret-00002",
    "bob": "bob-secret-0000003",
}
LOOPBACK = "http://localhost"  # a server without authentication answers only a loopback Host
ALICE_DIGEST = hashlib.sha256(SECRETS["alice"].encode()).hexdigest()


def token_file_text(alice: str = "alice", bob: str = "bob") -> str:
    """The token file, its two users named `alice` and `bob` (a user's namespace is their name:
    `cluster_api` gives them names of the test's own, as the real control plane is shared)."""
    return f"""tokens:
  - {{token: {SECRETS["admin"]}, user: ops, role: admin}}
  - {{token: "sha256:{ALICE_DIGEST}", user: {alice}, role: user}}
  - {{token: {SECRETS["bob"]}, user: {bob}, role: user}}
"""


TOKEN_FILE = token_file_text()


def quota(alice: str = "alice", bob: str = "bob") -> str:
    return f"""kind: quota
version: v0.1
metadata:
  name: team
users:
  {alice}: {{cpu: 10, memory: 20Gi, gpu: 4}}
  {bob}: {{cpu: 10, memory: 20Gi, gpu: 4}}
"""


QUOTA = quota()


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


OWN_TAINT = "g8s.host/test-only"  # on the nodes of `own_nodes`: no other test's pod goes there


def _call(
    client: TestClient, who: str | None, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    headers = dict(kwargs.pop("headers", {}))
    if who is not None:
        headers["Authorization"] = f"Bearer {SECRETS.get(who, who)}"
    answer: httpx.Response = client.request(method, "/api/v1" + path, headers=headers, **kwargs)
    return answer


@dataclass
class Api:
    client: TestClient
    env: Env

    def call(self, who: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return _call(self.client, who, method, path, **kwargs)


@dataclass
class ClusterApi:
    """The API over the `cluster` fixture's cluster, in the test's namespace (where an admin's
    job goes when its spec names none). The local control plane is shared by the session's
    tests: an admin's reads name the test's namespace, and the users `alice` and `bob` have
    names (so namespaces) of the test's own: `user("alice")`."""

    client: TestClient
    where: TestCluster
    cluster: Cluster  # gpuctl's own client, as the server's
    tail: str  # the test's own: in its user names, nodes and pools
    users: dict[str, str]
    token_file: Path  # the server's, with the users' names

    @property
    def namespace(self) -> str:
        return self.where.namespace

    def user(self, name: str) -> str:
        return self.users[name]

    def job_id(self, name: str, owner: str | None = None) -> str:
        """`<namespace>.<name>`: in `owner`'s namespace, else the test's."""
        return f"{self.users[owner] if owner else self.namespace}.{name}"

    def pool(self, name: str) -> str:
        """A pool name of the test's own (pools are the whole cluster's)."""
        return f"{name}-{self.tail}"

    def open_to_pool(self, nodes: list[str]) -> None:
        """Let a pool's jobs on its `nodes` of `own_nodes`: their taint OWN_TAINT goes, and the
        pool's isolation taint keeps other tests' pods off."""
        for node in nodes:
            taints = self.cluster.get("Node", node)["spec"].get("taints") or []
            kept = [taint for taint in taints if taint["key"] != OWN_TAINT]
            assert any(taint["key"] == c.POOL_TAINT_KEY for taint in kept), taints
            self.cluster.patch("Node", node, None, {"spec": {"taints": kept}})

    def call(self, who: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return _call(self.client, who, method, path, **kwargs)

    def objects(self, kind: str, namespace: str | None = None) -> dict[str, dict[str, Any]]:
        """name -> live object, of every object of `kind` gpuctl manages in `namespace` (the
        test's unless given)."""
        items = self.cluster.list(
            kind,
            namespace or self.namespace,
            label_selector="app.kubernetes.io/managed-by=gpuctl",
        )
        return {item["metadata"]["name"]: item for item in items}

    def gpuctl(self, *args: str, namespaced: bool = True) -> subprocess.CompletedProcess[str]:
        """The installed command on the same cluster, in the test's namespace (`namespaced`
        False for a command of the whole cluster's, which takes no -n)."""
        return run_gpuctl(self.where, *args, namespaced=namespaced)


AnyApi = Api | ClusterApi  # what a helper that only calls the API takes


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
def cluster_api(cluster: TestCluster, tmp_path: Path) -> Iterator[ClusterApi]:
    """The app over the `cluster` fixture's cluster (each test runs on the sandbox and on the
    local real control plane), its default namespace the test's own."""
    tail = uuid.uuid4().hex[:6]
    users = {"alice": f"alice-{tail}", "bob": f"bob-{tail}"}
    path = tmp_path / "cluster-tokens.yaml"
    path.write_text(token_file_text(users["alice"], users["bob"]))
    kube = Cluster.connect(str(cluster.kubeconfig))
    kube.namespace = cluster.namespace
    try:
        app = create_app(kube, Tokens.load(str(path)))
        with TestClient(app, raise_server_exceptions=False) as client:
            yield ClusterApi(client, cluster, kube, tail, users, path)
    finally:
        if not cluster.is_sandbox:
            _clean_up(cluster, kube, tail, users)


def _clean_up(cluster: TestCluster, kube: Cluster, tail: str, users: dict[str, str]) -> None:
    """What a test leaves on the shared control plane outside its namespace: its users'
    namespaces (a quota's, a job's) and its pools' records."""
    for namespace in users.values():
        cluster.kubectl(
            "delete", "namespace", namespace, "--wait=false", check=False, namespaced=False
        )
    for record in kube.list("ConfigMap", c.SYSTEM_NAMESPACE):
        if record["metadata"]["name"].endswith(f"-{tail}"):
            with contextlib.suppress(KubeError):
                kube.delete("ConfigMap", record["metadata"]["name"], c.SYSTEM_NAMESPACE)


@pytest.fixture
def own_nodes(cluster_api: ClusterApi) -> Iterator[dict[str, str]]:
    """Nodes of the test's own, as the sandbox's default ones (which the shared control plane's
    other tests label, cordon and fill): role -> node name, for `a100-0` and `a100-1` (8
    A100-80G each), `t4-0` (4 T4-16G, 32 CPUs) and `cpu-0` (no GPU). In no pool; tainted
    NoSchedule with OWN_TAINT, so that no other test's pod lands there."""
    a100 = {c.Labels.GPU_TYPE: "A100-80G"}
    shapes = {
        "a100-0": (8, a100, "96"),
        "a100-1": (8, a100, "96"),
        "t4-0": (4, {c.Labels.GPU_TYPE: "T4-16G"}, "32"),
        "cpu-0": (0, {}, "32"),
    }
    names = {role: f"{role}-{cluster_api.tail}" for role in shapes}
    made = [
        pool_node(names[role], None, gpus, labels=labels, cpu=cpu, memory="128Gi")
        for role, (gpus, labels, cpu) in shapes.items()
    ]
    taint = {"key": OWN_TAINT, "value": cluster_api.tail, "effect": "NoSchedule"}
    for node in made:
        node["spec"]["taints"] = [taint]
    with nodes_made(cluster_api.where, made):
        yield names


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
