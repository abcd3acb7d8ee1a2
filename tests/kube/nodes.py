"""Real nodes on the local control plane, so that what gpuctl renders really runs.

    python -m tests.kube.controlplane up --real-nodes 2      (make kube-up REAL_NODES=2)

Each real node is a kubelet (built into kubecp) with a containerd of its own: a kubelet treats
every pod sandbox of its runtime that it did not start as an orphan and removes it, so two
kubelets on one containerd would kill each other's pods. The nodes share one CNI bridge
(BRIDGE, pods in POD_CIDR, each node's address on it: 10.88.0.1, 10.88.0.2, ...), one
kube-proxy (they share this machine's network namespace, so a second would write the same
iptables rules) and CoreDNS (`kube-dns` in kube-system, 10.96.0.10), which answers for Services
and pods only. Each advertises GPUS as extended resources, patched into its status the way
Kubernetes documents for extended resources, so GPU requests schedule; no container gets a
device. host.py records what this changes on the machine and takes it back at `down`.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from pathlib import Path
from typing import Any

from gpuctl.constants import Labels
from tests.kube import controlplane as cp
from tests.kube import host, images, pki
from tests.support.ports import free_port

PREFIX = "real-"
POOL = "real-nodes"
REAL_LABEL = "gpuctl.test/real-node"
DNS_IP = "10.96.0.10"
DOMAIN = "cluster.local"
GATEWAY = "10.88.0.1"
GPUS = {"nvidia.com/gpu": "8", "amd.com/gpu": "8", "gpu.intel.com/i915": "8",
        "huawei.com/Ascend910": "8"}  # fmt: skip
CNI_DIRS = ("/usr/lib/cni", "/opt/cni/bin")
START_TIMEOUT = 180.0


def names(count: int) -> list[str]:
    return [f"{PREFIX}{i}" for i in range(count)]


def address(index: int) -> str:
    return f"10.88.0.{index + 1}"


def coredns_binary() -> Path:
    return cp.CACHE / f"coredns-{_coredns_version()}" / "coredns"


def _coredns_version() -> str:
    for line in (cp.HERE / "coredns" / "go.mod").read_text().splitlines():
        if line.startswith("require github.com/coredns/coredns "):
            return line.split()[-1]
    raise cp.ControlPlaneError("tests/kube/coredns/go.mod requires no github.com/coredns/coredns")


def cni_dir() -> str | None:
    return next((d for d in CNI_DIRS if (Path(d) / "bridge").exists()), None)


def unavailable_reason() -> str | None:
    """Why real nodes cannot run here (None when they can)."""
    if os.geteuid() != 0:
        return "real nodes need root (containerd, cgroups, iptables, a bridge)"
    missing = [t for t in ("containerd", "runc", "ctr", "iptables", "ip") if not shutil.which(t)]
    if cni_dir() is None:
        missing.append("the CNI plugins (containernetworking-plugins)")
    if missing:
        return (
            f"real nodes need {', '.join(missing)}: apt-get install containerd runc "
            "containernetworking-plugins iptables"
        )
    if not host.hierarchies():
        return "real nodes need cgroup v1 hierarchies under /sys/fs/cgroup"
    if not images.built() and images.missing_tools():
        return f"the real nodes' images need {', '.join(images.missing_tools())} to be built"
    return None


def build() -> None:
    """CoreDNS (its own module, tests/kube/coredns) and the images, unless already built."""
    binary = coredns_binary()
    if not binary.exists():
        binary.parent.mkdir(parents=True, exist_ok=True)
        part = binary.with_suffix(".part")
        cp.run_go(
            ["build", "-trimpath", "-ldflags=-s -w", "-o", str(part), "."], cp.HERE / "coredns"
        )
        part.rename(binary)
    images.build()


# ------------------------------------------------------------------ configuration


def _node_dir(state: cp.State, name: str) -> Path:
    return Path(state.directory) / "nodes" / name


def _containerd_config(state: cp.State, name: str) -> Path:
    d = _node_dir(state, name) / "containerd"
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    runc = f"{cri}.containerd.runtimes.runc"
    text = f"""version = 2
root = "{d / "root"}"
state = "{d / "state"}"
[grpc]
  address = "{d / "containerd.sock"}"
[ttrpc]
  address = "{d / "containerd.sock.ttrpc"}"
[plugins."io.containerd.internal.v1.opt"]
  path = "{d / "opt"}"
[{cri}]
  sandbox_image = "{images.PAUSE}"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_cdi = false
[{cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"
[{runc}]
  runtime_type = "io.containerd.runc.v2"
[{runc}.options]
  SystemdCgroup = false
  Root = "{d / "runc"}"
[{cri}.cni]
  bin_dir = "{cni_dir()}"
  conf_dir = "{Path(state.directory) / "cni"}"
"""
    d.mkdir(parents=True, exist_ok=True)
    path = d / "config.toml"
    path.write_text(text)
    return path


def _cni_config(state: cp.State) -> None:
    directory = Path(state.directory) / "cni"
    directory.mkdir(parents=True, exist_ok=True)
    subnet = {"subnet": host.POD_CIDR, "rangeStart": "10.88.1.1", "rangeEnd": "10.88.255.254",
              "gateway": GATEWAY}  # fmt: skip
    bridge = {
        "type": "bridge",
        "bridge": host.BRIDGE,
        "isGateway": True,
        "ipMasq": False,
        "hairpinMode": True,
        "ipam": {
            "type": "host-local",
            "ranges": [[subnet]],
            "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": str(directory / "ipam"),
        },
    }
    config = {"cniVersion": "1.0.0", "name": "gpuctl", "plugins": [bridge]}
    (directory / "10-gpuctl.conflist").write_text(json.dumps(config, indent=2))


def _node_kubeconfig(state: cp.State, token: str, path: Path) -> None:
    config = cp.kubeconfig_for(state, token)
    path.write_text(json.dumps(config, indent=2))
    path.chmod(0o600)


def _kubelet_config(state: cp.State, index: int, name: str) -> Path:
    d, pki_dir = _node_dir(state, name), Path(state.directory) / "pki"
    crt, key = pki.issue(pki_dir, f"kubelet-{name}", name, names=(name,), ips=(address(index),))
    resolv = Path(state.directory) / "resolv.conf"
    resolv.write_text("")  # pods with dnsPolicy Default get no resolver of this machine's
    config = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "address": address(index),
        "port": state.ports[f"kubelet-{name}"],
        "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": state.ports[f"kubelet-healthz-{name}"],
        "tlsCertFile": str(crt),
        "tlsPrivateKeyFile": str(key),
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": True},
            "x509": {"clientCAFile": str(pki_dir / "ca.crt")},
        },
        "authorization": {"mode": "Webhook"},
        "containerRuntimeEndpoint": f"unix://{d / 'containerd' / 'containerd.sock'}",
        "cgroupDriver": "cgroupfs",
        "cgroupRoot": f"/gpuctl-{name}",
        "failSwapOn": False,
        "clusterDNS": [DNS_IP],
        "clusterDomain": DOMAIN,
        "resolvConf": str(resolv),
        "podLogsDir": str(d / "pod-logs"),
        "nodeStatusUpdateFrequency": "5s",
        "syncFrequency": "10s",
        "serializeImagePulls": False,
        # the machine's disk is shared: no eviction or image collection because of it
        "evictionHard": {"memory.available": "100Mi", "nodefs.available": "1%",
                         "imagefs.available": "1%", "nodefs.inodesFree": "1%"},
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "shutdownGracePeriod": "0s",
    }  # fmt: skip
    path = d / "kubelet.yaml"
    path.write_text(json.dumps(config, indent=2))
    return path


def _labels(name: str) -> dict[str, str]:
    return {REAL_LABEL: "true", Labels.POOL: POOL, "kubernetes.io/hostname": name}


def _commands(state: cp.State, count: int) -> dict[str, list[str]]:
    kubecp = str(cp.BIN / "kubecp")
    commands: dict[str, list[str]] = {}
    for index, name in enumerate(names(count)):
        d = _node_dir(state, name)
        d.mkdir(parents=True, exist_ok=True)
        _node_kubeconfig(state, state.node_tokens[name], d / "kubeconfig")
        labels = ",".join(f"{k}={v}" for k, v in _labels(name).items())
        commands[f"containerd-{name}"] = [
            "containerd",
            "--config",
            str(_containerd_config(state, name)),
        ]
        commands[f"kubelet-{name}"] = [
            kubecp, "kubelet", f"--config={_kubelet_config(state, index, name)}",
            f"--kubeconfig={d / 'kubeconfig'}", f"--root-dir={d / 'kubelet'}",
            f"--cert-dir={d / 'kubelet-pki'}", f"--hostname-override={name}",
            f"--node-ip={address(index)}", f"--node-labels={labels}", "--v=1",
        ]  # fmt: skip
    commands["kube-proxy"] = [
        kubecp,
        "kube-proxy",
        f"--config={_proxy_config(state, names(count)[0])}",
    ]
    commands["coredns"] = [str(coredns_binary()), "-conf", str(_corefile(state)), "-dns.port=53"]
    return commands


def _proxy_config(state: cp.State, name: str) -> Path:
    ports = state.ports
    config = {
        "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
        "kind": "KubeProxyConfiguration",
        "clientConnection": {"kubeconfig": str(state.kubeconfig)},
        "hostnameOverride": name,
        "mode": "iptables",
        "clusterCIDR": host.POD_CIDR,
        "nodePortAddresses": ["10.88.0.0/24"],
        "healthzBindAddress": f"127.0.0.1:{ports['kube-proxy-healthz']}",
        "metricsBindAddress": f"127.0.0.1:{ports['kube-proxy-metrics']}",
        # the machine's conntrack settings stay as they are
        "conntrack": {"maxPerCore": 0, "min": 0, "tcpEstablishedTimeout": "0s",
                      "tcpCloseWaitTimeout": "0s"},
        "iptables": {"syncPeriod": "10s", "minSyncPeriod": "0s"},
    }  # fmt: skip
    path = Path(state.directory) / "kube-proxy.yaml"
    path.write_text(json.dumps(config, indent=2))
    return path


def _corefile(state: cp.State) -> Path:
    ports = state.ports
    text = f""".:53 {{
    bind {GATEWAY}
    errors
    health 127.0.0.1:{ports["coredns-health"]}
    ready 127.0.0.1:{ports["coredns-ready"]}
    kubernetes {DOMAIN} in-addr.arpa ip6.arpa {{
        kubeconfig {state.kubeconfig} gpuctl-kube
        pods insecure
        ttl 5
    }}
    cache 5
}}
"""
    path = Path(state.directory) / "Corefile"
    path.write_text(text)
    return path


# ------------------------------------------------------------------ objects


def _dns_objects() -> list[tuple[str, dict[str, Any]]]:
    """kube-dns: the Service pods' resolv.conf names, its endpoint CoreDNS on the bridge."""
    ports = [{"name": "dns", "port": 53, "protocol": "UDP"},
             {"name": "dns-tcp", "port": 53, "protocol": "TCP"}]  # fmt: skip
    labels = {"k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS"}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "kube-dns", "namespace": "kube-system", "labels": labels},
        "spec": {"clusterIP": DNS_IP, "ports": [{**p, "targetPort": 53} for p in ports]},
    }
    slice_ = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": "kube-dns-coredns",
            "namespace": "kube-system",
            "labels": {
                "kubernetes.io/service-name": "kube-dns",
                "endpointslice.kubernetes.io/managed-by": "gpuctl.test",
            },
        },
        "addressType": "IPv4",
        "endpoints": [{"addresses": [GATEWAY], "conditions": {"ready": True}}],
        "ports": ports,
    }
    return [
        ("/api/v1/namespaces/kube-system/services", service),
        ("/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices", slice_),
    ]


def _advertise_gpus(state: cp.State, name: str) -> None:
    """The extended resources, as Kubernetes documents: a JSON patch of the node's status."""
    patch = [
        {"op": "add", "path": f"/status/{part}/{resource.replace('/', '~1')}", "value": count}
        for part in ("capacity", "allocatable")
        for resource, count in GPUS.items()
    ]
    cp.request(state, "PATCH", f"/api/v1/nodes/{name}/status", patch,
               content_type="application/json-patch+json")  # fmt: skip


def _images_listed(state: cp.State, name: str) -> bool:
    node = cp.request(state, "GET", f"/api/v1/nodes/{name}")
    listed = {n for image in node.get("status", {}).get("images") or [] for n in image["names"]}
    return set(images.NAMES) <= listed


def _gpus_listed(state: cp.State, name: str) -> bool:
    node = cp.request(state, "GET", f"/api/v1/nodes/{name}")
    allocatable = node.get("status", {}).get("allocatable") or {}
    return all(allocatable.get(resource) == count for resource, count in GPUS.items())


# ------------------------------------------------------------------ start


def prepare(state: cp.State, count: int) -> None:
    """Ports, tokens and the machine (claimed, its bridge, guard and cgroups made)."""
    for name in names(count):
        for port in (f"kubelet-{name}", f"kubelet-healthz-{name}"):
            state.ports[port] = free_port()
    for port in ("kube-proxy-healthz", "kube-proxy-metrics", "coredns-health", "coredns-ready"):
        state.ports[port] = free_port()
    state.real_nodes = names(count)
    state.save()
    try:
        host.claim(Path(state.directory), [f"gpuctl-{name}" for name in names(count)])
    except host.HostError as error:
        raise cp.ControlPlaneError(str(error)) from error
    host.make_bridge([address(i) for i in range(count)])
    host.guard()
    for name in names(count):
        host.make_cgroup(f"gpuctl-{name}")
    _cni_config(state)


def start(state: cp.State, count: int) -> None:
    """containerd and kubelet of each node, then kube-proxy and CoreDNS; returns once every
    node is Ready with its GPUs and images listed, and cluster DNS answers."""
    commands = _commands(state, count)
    for name in names(count):
        containerd = _node_dir(state, name) / "containerd"
        images.copy_root(containerd / "root")  # the images, imported once at build
        cp._spawn(state, f"containerd-{name}", commands[f"containerd-{name}"])
        cp._wait(state, f"containerd of {name}", (containerd / "containerd.sock").exists)
        cp._spawn(state, f"kubelet-{name}", commands[f"kubelet-{name}"])
    for name in names(count):
        cp._wait(
            state,
            f"{name} to register",
            lambda n=name: cp.request(state, "GET", f"/api/v1/nodes/{n}"),
            START_TIMEOUT,
        )
        _advertise_gpus(state, name)
    cp._wait(
        state,
        "the real nodes to be Ready",
        lambda: cp._nodes_ready(state, names(count)),
        START_TIMEOUT,
    )
    for path, body in _dns_objects():
        cp.request(state, "POST", path, body)
    cp._spawn(state, "kube-proxy", commands["kube-proxy"])
    cp._spawn(state, "coredns", commands["coredns"])
    ready, healthz = state.ports["coredns-ready"], state.ports["kube-proxy-healthz"]
    cp._wait(state, "CoreDNS to be ready", lambda: _http_ok(ready, "/ready"), START_TIMEOUT)
    cp._wait(state, "kube-proxy's first sync", lambda: _http_ok(healthz, "/healthz"), START_TIMEOUT)
    host.guard()  # first again, before the chains kube-proxy inserted
    for name in names(count):
        cp._wait(
            state,
            f"the images in {name}'s status",
            lambda n=name: _images_listed(state, n),
            START_TIMEOUT,
        )
        cp._wait(
            state,
            f"the GPUs in {name}'s status",
            lambda n=name: _gpus_listed(state, n),
            START_TIMEOUT,
        )


def _http_ok(port: int, path: str) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as answer:
        return bool(answer.status == 200)


def stop(directory: Path) -> bool:
    """Give the machine back (host.release): False when these nodes did not hold it."""
    return host.release(directory)
