"""A real Kubernetes control plane on loopback ports, with kwok in place of the kubelets.

    python -m tests.kube.controlplane build            # compile once (cached under ~/.cache)
    python -m tests.kube.controlplane up [--dir DIR]   # start; prints KUBECONFIG=... last
    python -m tests.kube.controlplane up --real-nodes 2  # and two real nodes (tests/kube/nodes.py)
    python -m tests.kube.controlplane status|down [--dir DIR]
    python -m tests.kube.controlplane kueue [--dir DIR]  # Kueue on it, until Ctrl-C
    python -m tests.kube.controlplane gomod            # rewrite go.mod after a version change

etcd, kube-apiserver, kube-controller-manager and kube-scheduler are the real components, built
from the k8s.io/kubernetes Go module into one binary (`kubecp`, see main.go); kwok plays the
kubelets of the GPU nodes created at start. Nothing leaves the machine: every port is on
127.0.0.1, and kwok's pod IPs are never contacted. With --real-nodes, real kubelets with
containerd run beside them (nodes.py).
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gpuctl.sandbox.config import NodeSpec, SandboxConfig, default_nodes
from tests.kube import pki
from tests.support.ports import free_port

KUBERNETES = "v1.33.4"
KWOK = "v0.7.0"
HERE = Path(__file__).resolve().parent
EXAMPLE_CLUSTER = HERE.parents[1] / "examples" / "sandbox" / "cluster.yaml"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpuctl-kube"


def _sources_digest() -> str:
    """What kubecp is built from (main.go and its module): a change to any builds a new one."""
    digest = hashlib.sha256()
    for name in ("main.go", "go.mod", "go.sum"):
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()[:10]


BIN = CACHE / f"kubernetes-{KUBERNETES}-kwok-{KWOK}-{_sources_digest()}"
DEFAULT_DIR = CACHE / "cluster"
COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
START_TIMEOUT = 120.0
# The audit log records what service accounts ask (a controller run under its own
# ServiceAccount, with the roles it installs): one event when the answer is complete (a watch:
# also when it starts). The components and tests use the admin token and are not recorded.
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [
        {"level": "Metadata", "userGroups": ["system:serviceaccounts"]},
        {"level": "None"},
    ],
}


class ControlPlaneError(RuntimeError):
    """The control plane could not be built or started; the message says why."""


# ------------------------------------------------------------------ build


def go_binary() -> str | None:
    """The `go` command: on PATH, or where the official tarball installs it."""
    found = shutil.which("go")
    if found:
        return found
    fallback = Path("/usr/local/go/bin/go")
    return str(fallback) if fallback.exists() else None


def built() -> bool:
    return (BIN / "kubecp").exists() and (BIN / "kwok").exists()


def unavailable_reason() -> str | None:
    """Why the control plane cannot run here (None when it can)."""
    if built() or go_binary():
        return None
    return "the local control plane needs Go >= 1.24 to build it (no `go` on PATH or /usr/local/go)"


def run_go(args: list[str], cwd: Path, **environ: str) -> None:
    go = go_binary()
    if go is None:
        raise ControlPlaneError(unavailable_reason() or "no go")
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false", **environ}
    done = subprocess.run([go, *args], cwd=cwd, env=env, check=False)
    if done.returncode != 0:
        raise ControlPlaneError(f"`go {' '.join(args)}` failed ({done.returncode}) in {cwd}")


def _version_flags() -> str:
    """What the upstream build stamps into the binaries, so that /version tells the truth."""
    major, minor, _ = KUBERNETES.lstrip("v").split(".")
    values = {"gitVersion": KUBERNETES, "gitMajor": major, "gitMinor": minor}
    values["gitTreeState"] = "clean"
    stamps = [
        f"-X {package}.{name}={value}"
        for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")
        for name, value in values.items()
    ]
    return " ".join(["-s", "-w", *stamps])


def build(real_nodes: bool = False) -> Path:
    """Compile kubecp (main.go beside this file) and kwok into BIN, unless already there; with
    `real_nodes`, CoreDNS and the real nodes' images too (tests/kube/nodes.py). One build at a
    time on the machine (a file lock): a second caller, a test session of another checkout,
    waits for the first and finds the binaries, instead of compiling them again."""
    BIN.mkdir(parents=True, exist_ok=True)
    with build_lock():
        _build_locked()
    if real_nodes:
        from tests.kube import nodes  # it builds on this module

        nodes.build()
    return BIN


@contextmanager
def build_lock() -> Iterator[None]:
    """Held while a Go build writes into CACHE: builds of the same binaries wait for each other."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _build_locked() -> None:
    flags = ["-trimpath", "-ldflags=-s -w"]
    if not (BIN / "kubecp").exists():
        run_go(
            [
                "build",
                "-trimpath",
                f"-ldflags={_version_flags()}",
                "-o",
                str(BIN / "kubecp.part"),
                ".",
            ],
            HERE,
        )
        (BIN / "kubecp.part").rename(BIN / "kubecp")
    if not (BIN / "kwok").exists():
        # `go install pkg@version` outside this module: kwok keeps its own k8s.io/* versions
        gobin = BIN / "gobin"
        run_go(["install", *flags, f"sigs.k8s.io/kwok/cmd/kwok@{KWOK}"], BIN, GOBIN=str(gobin))
        (gobin / "kwok").rename(BIN / "kwok")


def staging_replaces(kubernetes_gomod: str) -> list[str]:
    """`replace k8s.io/<m> => k8s.io/<m> v0.X.Y` for every staging module that k8s.io/kubernetes'
    own go.mod points at ./staging (it requires them all at v0.0.0)."""
    minor_patch = KUBERNETES.lstrip("v").split(".", 1)[1]
    return [
        f"{line.split()[0]} => {line.split()[0]} v0.{minor_patch}"
        for line in kubernetes_gomod.splitlines()
        if "=> ./staging/" in line
    ]


def regenerate_gomod() -> None:
    """Write tests/kube/go.mod afresh for KUBERNETES (its go line, its staging replaces) and let
    `go mod tidy` fill in the rest: run after changing KUBERNETES."""
    go = go_binary()
    if go is None:
        raise ControlPlaneError(unavailable_reason() or "no go")
    query = [go, "mod", "download", "-json", f"k8s.io/kubernetes@{KUBERNETES}"]
    found = json.loads(subprocess.run(query, capture_output=True, text=True, check=True).stdout)
    upstream = Path(found["GoMod"]).read_text()
    go_line = next(line for line in upstream.splitlines() if line.startswith("go "))
    replaces = "".join(f"\t{line}\n" for line in staging_replaces(upstream))
    (HERE / "go.mod").write_text(
        f"module gpuctl.test/kube\n\n{go_line}\n\ngodebug default=go1.24\n\n"
        f"require k8s.io/kubernetes {KUBERNETES}\n\nreplace (\n{replaces})\n"
    )
    run_go(["mod", "tidy"], HERE)


# ------------------------------------------------------------------ state


@dataclass
class State:
    """A running control plane, as recorded in DIR/state.json."""

    directory: str
    ports: dict[str, int]
    pids: dict[str, int]
    token: str
    node_tokens: dict[str, str] = field(default_factory=dict)  # real node -> its kubelet's
    real_nodes: list[str] = field(default_factory=list)

    @property
    def kubeconfig(self) -> Path:
        return Path(self.directory) / "kubeconfig"

    @property
    def audit_log(self) -> Path:
        """The API server's audit log (JSON lines): every request made by a service account."""
        return Path(self.directory) / "logs" / "audit.log"

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.ports['apiserver']}"

    def save(self) -> None:
        (Path(self.directory) / "state.json").write_text(json.dumps(asdict(self), indent=2))


def load(directory: Path) -> State | None:
    path = directory / "state.json"
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    return State(**data)


# ------------------------------------------------------------------ configuration


def kubeconfig_for(state: State, token: str) -> dict[str, Any]:
    """A kubeconfig for the apiserver with `token` (the admin's, or a real node's)."""
    ca = (Path(state.directory) / "pki" / "ca.crt").read_text()
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "gpuctl-kube",
                "cluster": {
                    "server": state.server,
                    "certificate-authority-data": base64.b64encode(ca.encode()).decode(),
                },
            }
        ],
        "users": [{"name": "admin", "user": {"token": token}}],
        "contexts": [
            {"name": "gpuctl-kube", "context": {"cluster": "gpuctl-kube", "user": "admin"}}
        ],
        "current-context": "gpuctl-kube",
    }


def _kwok_config(directory: Path) -> Path:
    """kwok's stages (stages/stages.yaml), one log file served for every container, and exec
    into any container running the command on this machine, in a scratch directory (so
    `kubectl exec` and `gpuctl cp` go through the real exec stream: API server, then kwok)."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    lines = ["kwok plays this pod: its containers do not run", "step 1", "step 2"]
    log = directory / "container.log"
    log.write_text("".join(f"{stamp} stdout F {line}\n" for line in lines))
    logs = {
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "ClusterLogs",
        "metadata": {"name": "every-container"},
        "spec": {"logs": [{"logsFile": str(log), "follow": False}]},
    }
    (directory / "exec").mkdir(exist_ok=True)
    execs = {
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "ClusterExec",
        "metadata": {"name": "every-container"},
        "spec": {"execs": [{"local": {"workDir": str(directory / "exec")}}]},
    }
    path = directory / "kwok.yaml"
    documents = [(HERE / "stages" / "stages.yaml").read_text(), json.dumps(logs), json.dumps(execs)]
    path.write_text("\n---\n".join(documents))
    return path


def _commands(state: State) -> dict[str, list[str]]:
    d, p = Path(state.directory), state.ports
    pki_dir, kubeconfig = d / "pki", str(state.kubeconfig)
    etcd = f"http://127.0.0.1:{p['etcd']}"
    peer = f"http://127.0.0.1:{p['etcd_peer']}"
    kubecp = str(BIN / "kubecp")
    quick = ["--kube-api-qps=1000", "--kube-api-burst=2000", "--leader-elect=false"]
    return {
        "etcd": [kubecp, "etcd", "--name=default", f"--data-dir={d / 'etcd'}",
                 f"--listen-client-urls={etcd}", f"--advertise-client-urls={etcd}",
                 f"--listen-peer-urls={peer}", f"--initial-advertise-peer-urls={peer}",
                 f"--initial-cluster=default={peer}", "--unsafe-no-fsync=true",
                 "--log-level=warn", "--listen-metrics-urls="],
        "kube-apiserver": [kubecp, "kube-apiserver", f"--etcd-servers={etcd}",
                           "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
                           f"--secure-port={p['apiserver']}",
                           f"--tls-cert-file={pki_dir / 'server.crt'}",
                           f"--tls-private-key-file={pki_dir / 'server.key'}",
                           f"--client-ca-file={pki_dir / 'ca.crt'}",
                           f"--token-auth-file={d / 'tokens.csv'}",
                           "--authorization-mode=Node,RBAC", "--allow-privileged=true",
                           # a real node's kubelet listens on its InternalIP; kwok on 127.0.0.1
                           "--kubelet-preferred-address-types=InternalIP,Hostname",
                           f"--kubelet-client-certificate={pki_dir / 'kubelet-client.crt'}",
                           f"--kubelet-client-key={pki_dir / 'kubelet-client.key'}",
                           "--endpoint-reconciler-type=none",
                           "--service-cluster-ip-range=10.96.0.0/16",
                           "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                           f"--service-account-key-file={pki_dir / 'sa.pub'}",
                           f"--service-account-signing-key-file={pki_dir / 'sa.key'}",
                           f"--audit-policy-file={d / 'audit-policy.yaml'}",
                           f"--audit-log-path={state.audit_log}", "--audit-log-format=json",
                           "--audit-log-maxsize=200", "--audit-log-maxbackup=1",
                           "--profiling=false"],
        "kube-controller-manager": [kubecp, "kube-controller-manager", f"--kubeconfig={kubeconfig}",
                                    "--secure-port=0", *quick,
                                    f"--root-ca-file={pki_dir / 'ca.crt'}",
                                    f"--service-account-private-key-file={pki_dir / 'sa.key'}",
                                    "--profiling=false"],
        "kube-scheduler": [kubecp, "kube-scheduler", f"--kubeconfig={kubeconfig}",
                           "--secure-port=0", *quick, "--profiling=false"],
        "kwok": [str(BIN / "kwok"), f"--kubeconfig={kubeconfig}",
                 f"--config={_kwok_config(d)}", *_kwok_nodes(state),
                 "--node-ip=127.0.0.1", f"--node-port={p['kwok']}",
                 f"--server-address=127.0.0.1:{p['kwok']}", "--cidr=10.0.0.1/16",
                 f"--tls-cert-file={pki_dir / 'server.crt'}",
                 f"--tls-private-key-file={pki_dir / 'server.key'}"],
    }  # fmt: skip


def _kwok_nodes(state: State) -> list[str]:
    """kwok plays every node, but for the real ones (their kubelets do)."""
    if not state.real_nodes:
        return ["--manage-all-nodes=true"]
    from tests.kube import nodes

    return ["--manage-all-nodes=false", f"--manage-nodes-with-label-selector=!{nodes.REAL_LABEL}"]


# ------------------------------------------------------------------ talking to it


def _context(state: State) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(Path(state.directory) / "pki" / "ca.crt"))


def request(
    state: State,
    method: str,
    path: str,
    body: Any = None,
    content_type: str = "application/json",
) -> Any:
    """One call to the apiserver as the admin; the decoded JSON answer (or text for /readyz)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(state.server + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {state.token}")
    req.add_header("Content-Type", content_type)
    with urllib.request.urlopen(req, context=_context(state), timeout=10) as answer:
        text = answer.read().decode()
    return json.loads(text) if text.startswith("{") else text


def _ok(probe: Any) -> bool:
    try:
        return bool(probe())
    except (OSError, urllib.error.URLError, ValueError):
        return False


def _wait(state: State, what: str, probe: Any, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not _ok(probe):
        dead = [name for name, pid in state.pids.items() if not _alive(pid)]
        if dead or time.monotonic() > deadline:
            why = f"{', '.join(dead)} exited" if dead else f"timed out after {timeout:.0f} s"
            raise ControlPlaneError(f"waiting for {what}: {why}\n{_log_tails(state, dead)}")
        time.sleep(0.2)


def _log_tails(state: State, names: list[str]) -> str:
    logs = Path(state.directory) / "logs"
    tails = []
    for name in names or list(state.pids):
        lines = (logs / f"{name}.log").read_text(errors="replace").splitlines()[-15:]
        tails.append(f"--- {logs / name}.log (last lines)\n" + "\n".join(lines))
    return "\n".join(tails)


def _etcd_healthy(state: State) -> bool:
    url = f"http://127.0.0.1:{state.ports['etcd']}/health"
    with urllib.request.urlopen(url, timeout=2) as answer:
        return b'"health":"true"' in answer.read()


def _node(spec: NodeSpec) -> dict[str, Any]:
    standard = {"kubernetes.io/hostname": spec.name, "kubernetes.io/os": "linux", "type": "kwok"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": spec.name, "labels": {**standard, **spec.labels}},
        "spec": {"taints": spec.taints} if spec.taints else {},
        "status": {"capacity": spec.capacity, "allocatable": spec.capacity},
    }


def node_set() -> list[NodeSpec]:
    """The sandbox's default nodes, and those of examples/sandbox/cluster.yaml not among them
    (node1 and node2, which examples/pool.yaml and examples/training.yaml expect)."""
    nodes = default_nodes()
    names = {node.name for node in nodes}
    return nodes + [n for n in SandboxConfig.load(EXAMPLE_CLUSTER).nodes if n.name not in names]


def create_nodes(state: State, specs: list[NodeSpec]) -> None:
    for spec in specs:
        request(state, "POST", "/api/v1/nodes", _node(spec))


def _nodes_ready(state: State, names: list[str]) -> bool:
    items = request(state, "GET", "/api/v1/nodes")["items"]
    ready = {
        item["metadata"]["name"]
        for item in items
        for c in item.get("status", {}).get("conditions") or []
        if c["type"] == "Ready" and c["status"] == "True"
    }
    return set(names) <= ready


def _default_service_account(state: State) -> bool:
    return bool(request(state, "GET", "/api/v1/namespaces/default/serviceaccounts/default"))


# ------------------------------------------------------------------ processes


def _alive(pid: int) -> bool:
    """`pid` runs one of this control plane's binaries (not some process that reused the id):
    one built into the cache, or containerd for a real node."""
    try:
        executable = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return False
    return executable.startswith(str(CACHE) + "/") or executable == shutil.which("containerd")


def _spawn(state: State, name: str, argv: list[str]) -> None:
    log = (Path(state.directory) / "logs" / f"{name}.log").open("ab")
    process = subprocess.Popen(
        argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
    )
    # until the child has exec'd, /proc shows Python's command line, which _alive rejects
    deadline = time.monotonic() + 10
    while not _alive(process.pid) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    state.pids[name] = process.pid
    state.save()


def _prepare(directory: Path, real_nodes: list[str]) -> State:
    if directory.exists():
        shutil.rmtree(directory)
    (directory / "logs").mkdir(parents=True)
    pki.generate(directory / "pki")
    pki.issue(directory / "pki", "kubelet-client", "kube-apiserver", organization="system:masters")
    names = ("etcd", "etcd_peer", "apiserver", "kwok")
    state = State(str(directory), {n: free_port() for n in names}, {}, secrets.token_hex(16))
    state.node_tokens = {name: secrets.token_hex(16) for name in real_nodes}
    state.real_nodes = real_nodes
    tokens = [f"{state.token},admin,admin,system:masters"]
    tokens += [
        f"{t},system:node:{n},system:node:{n},system:nodes" for n, t in state.node_tokens.items()
    ]
    (directory / "tokens.csv").write_text("".join(f"{line}\n" for line in tokens))
    (directory / "audit-policy.yaml").write_text(json.dumps(AUDIT_POLICY, indent=2))
    state.kubeconfig.write_text(json.dumps(kubeconfig_for(state, state.token), indent=2))
    state.kubeconfig.chmod(0o600)
    state.save()
    return state


def up(
    directory: Path = DEFAULT_DIR, nodes: list[NodeSpec] | None = None, real_nodes: int = 0
) -> State:
    """Build if needed, start everything in `directory`, and return once the nodes are Ready.
    A second try on fresh ports follows a first that failed (a port taken in between).
    `real_nodes` real kubelets with containerd join the kwok nodes (tests/kube/nodes.py)."""
    previous = load(directory)
    if previous is not None and any(_alive(pid) for pid in previous.pids.values()):
        raise ControlPlaneError(f"already running in {directory} (stop it with `down` first)")
    build(real_nodes=real_nodes > 0)
    try:
        return _start(directory, nodes, real_nodes)
    except ControlPlaneError as first:
        failed = directory.with_name(directory.name + "-failed")
        shutil.rmtree(failed, ignore_errors=True)
        directory.rename(failed)  # its logs stay for a look
        print(f"the control plane did not start, trying again: {first}", file=sys.stderr)
        return _start(directory, nodes, real_nodes)


def _start(directory: Path, nodes: list[NodeSpec] | None, real_nodes: int) -> State:
    from tests.kube import nodes as real  # it builds on this module

    state = _prepare(directory, real.names(real_nodes))
    try:
        if real_nodes:
            real.prepare(state, real_nodes)
        commands = _commands(state)
        _spawn(state, "etcd", commands["etcd"])
        _wait(state, "etcd", lambda: _etcd_healthy(state))
        _spawn(state, "kube-apiserver", commands["kube-apiserver"])
        _wait(state, "kube-apiserver /readyz", lambda: request(state, "GET", "/readyz") == "ok")
        specs = node_set() if nodes is None else nodes
        for name in ("kube-controller-manager", "kube-scheduler", "kwok"):
            if name != "kwok" or specs or not real_nodes:
                _spawn(state, name, commands[name])
        create_nodes(state, specs)
        _wait(state, "the nodes to be Ready", lambda: _nodes_ready(state, [s.name for s in specs]))
        _wait(state, "the default service account", lambda: _default_service_account(state))
        if real_nodes:
            real.start(state, real_nodes)
    except BaseException:
        down(directory)
        raise
    return state


def _stop(pid: int) -> None:
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


def down(directory: Path = DEFAULT_DIR) -> bool:
    """Stop what `up` started in `directory`, newest first (etcd last); False when nothing ran."""
    state = load(directory)
    if state is None:
        return False
    running = [pid for pid in reversed(state.pids.values()) if _alive(pid)]
    for pid in running:
        _stop(pid)
    state.pids = {}
    state.save()
    from tests.kube import nodes  # it builds on this module

    released = nodes.stop(directory)
    return bool(running) or released


def status(directory: Path = DEFAULT_DIR) -> str:
    state = load(directory)
    if state is None or not state.pids:
        return "stopped"
    alive = [name for name, pid in state.pids.items() if _alive(pid)]
    ready = _ok(lambda: request(state, "GET", "/readyz") == "ok")
    return f"{'ready' if ready else 'not ready'}: running {', '.join(alive) or 'nothing'}"


def run_kueue(directory: Path) -> None:
    """Kueue's manager on the running control plane, in the foreground until Ctrl-C."""
    from tests.kube import kueue  # it builds on this module

    state = load(directory)
    if state is None or not state.pids:
        raise ControlPlaneError(f"no control plane is running in {directory} (make kube-up)")
    with kueue.running(state.kubeconfig) as log:
        print(f"Kueue {kueue.KUEUE} is running (log: {log}); Ctrl-C stops it")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.kube.controlplane")
    parser.add_argument("command", choices=["build", "up", "down", "status", "kueue", "gomod"])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where state and logs go")
    parser.add_argument(
        "--real-nodes", type=int, default=0, help="up: this many real nodes (kubelet, containerd)"
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            from tests.kube import kueue, nodes  # they build on this module

            reason = nodes.unavailable_reason() if args.real_nodes else None
            if reason:
                raise ControlPlaneError(reason)
            print(build(real_nodes=args.real_nodes > 0))
            print(kueue.build())
        elif args.command == "kueue":
            run_kueue(args.dir)
        elif args.command == "gomod":
            regenerate_gomod()
        elif args.command == "up":
            started = time.monotonic()
            state = up(args.dir, real_nodes=args.real_nodes)
            print(f"ready in {time.monotonic() - started:.1f} s; logs in {args.dir / 'logs'}")
            print(f"KUBECONFIG={state.kubeconfig}")
        elif args.command == "down":
            print("stopped" if down(args.dir) else "nothing was running")
        else:
            print(status(args.dir))
    except ControlPlaneError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
