"""What the real nodes change on this machine, and how `down` takes it back.

Kubelets, containerd, the CNI bridge plugin and kube-proxy write outside their own directories:
kernel settings (sysctls), iptables chains, a bridge and its veth pairs, cgroups, mounts, and a
few well-known paths. `claim` records the machine as it was (in /run, so that a second instance
cannot start beside the first: two would fight over the same iptables chains and bridge) and
`release` stops every process left, unmounts, deletes and restores, in that order.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

BRIDGE = "gpuctl0"
POD_CIDR = "10.88.0.0/16"
SERVICE_CIDR = "10.96.0.0/16"
KWOK_POD_CIDR = "10.0.0.0/16"
GUARD = "GPUCTL-GUARD"
CLAIM = Path("/run/gpuctl-real-nodes.json")
CGROUP_ROOT = Path("/sys/fs/cgroup")
# kernel settings that kubelet (vm.*, kernel.*), the CNI bridge plugin (ip_forward), kube-proxy
# (route_localnet, conntrack) or `claim` itself (bridge-nf-call-*) may change
SYSCTLS = (
    "net/ipv4/ip_forward",
    "net/ipv4/conf/all/route_localnet",
    "net/bridge/bridge-nf-call-iptables",
    "net/bridge/bridge-nf-call-ip6tables",
    "net/netfilter/nf_conntrack_max",
    "net/netfilter/nf_conntrack_tcp_timeout_established",
    "net/netfilter/nf_conntrack_tcp_timeout_close_wait",
    "vm/overcommit_memory",
    "vm/panic_on_oom",
    "kernel/panic",
    "kernel/panic_on_oops",
    "kernel/keys/root_maxkeys",
    "kernel/keys/root_maxbytes",
)
# paths that kubelet and containerd use whatever their configuration says: removed by `release`
# when `claim` found them absent (and otherwise only what points into the instance's directory)
WELL_KNOWN = (
    "/var/log/containers",
    "/var/log/pods",
    "/var/lib/cni",
    "/var/lib/kubelet",
    "/run/containerd",
    "/var/run/netns",
    "/opt/containerd",
)
IPTABLES = ("iptables", "ip6tables")
PREFIXES = ("KUBE-", "CNI-", GUARD)


class HostError(RuntimeError):
    """The machine cannot take real nodes now; the message says why."""


@dataclass
class Claim:
    """The machine as `claim` found it, kept in CLAIM until `release`."""

    directory: str
    sysctls: dict[str, str] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)
    cgroups: list[str] = field(default_factory=list)


def run(*argv: str, check: bool = True, input: str | None = None) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, input=input, check=False)
    if check and done.returncode != 0:
        raise HostError(f"`{' '.join(argv)}` failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def _sysctl(name: str) -> Path:
    return Path("/proc/sys") / name


def set_sysctl(name: str, value: str) -> None:
    _sysctl(name).write_text(value)


# ------------------------------------------------------------------ claim


def current_claim() -> Claim | None:
    if not CLAIM.exists():
        return None
    return Claim(**json.loads(CLAIM.read_text()))


def claim(directory: Path, cgroups: list[str]) -> Claim:
    """Take the machine for the real nodes of the instance in `directory`."""
    held = current_claim()
    if held is not None and held.directory != str(directory):
        raise HostError(
            f"the real nodes of the cluster in {held.directory} still hold this machine "
            f"(stop it: python -m tests.kube.controlplane down --dir {held.directory})"
        )
    if held is not None:
        return held
    found = Claim(str(directory), cgroups=cgroups)
    for name in SYSCTLS:
        if _sysctl(name).exists():
            found.sysctls[name] = _sysctl(name).read_text().strip()
    found.absent = [path for path in WELL_KNOWN if not os.path.lexists(path)]
    CLAIM.write_text(json.dumps(asdict(found), indent=2))
    return found


# ------------------------------------------------------------------ network


def make_bridge(addresses: list[str]) -> None:
    """The pods' bridge, with the nodes' addresses on it (the first is the pods' gateway)."""
    if not Path(f"/sys/class/net/{BRIDGE}").exists():
        run("ip", "link", "add", BRIDGE, "type", "bridge")
    present = run("ip", "-o", "-4", "addr", "show", "dev", BRIDGE)
    prefix = POD_CIDR.split("/")[1]
    for address in addresses:
        if f" {address}/" not in present:
            run("ip", "addr", "add", f"{address}/{prefix}", "dev", BRIDGE)
    run("ip", "link", "set", BRIDGE, "up")
    # Service addresses and kwok's invented pod addresses are routed to the bridge (where no one
    # answers for them) rather than by the default route: a ClusterIP that kube-proxy does not
    # translate, or kwok's pod address it translates to, stays on this machine
    for cidr in (SERVICE_CIDR, KWOK_POD_CIDR):
        run("ip", "route", "replace", cidr, "dev", BRIDGE)
    # bridged traffic between pods passes iptables, so a Service's reply is translated back
    for name in ("net/bridge/bridge-nf-call-iptables", "net/ipv4/ip_forward"):
        set_sysctl(name, "1")


def guard() -> None:
    """First in OUTPUT and FORWARD: nothing addressed to the pod, Service or kwok ranges leaves
    by another interface than the bridge, and nothing from a pod leaves past it. Pods talk to
    each other and to this machine only."""
    if run("iptables", "-S", GUARD, check=False) == "":
        run("iptables", "-N", GUARD)
        rules = [
            ["-o", BRIDGE, "-j", "RETURN"],
            ["-o", "lo", "-j", "RETURN"],
            *[["-d", cidr, "-j", "REJECT"] for cidr in (POD_CIDR, SERVICE_CIDR, KWOK_POD_CIDR)],
            ["-s", POD_CIDR, "-j", "REJECT"],
        ]
        for rule in rules:
            run("iptables", "-A", GUARD, *rule)
    for chain in ("OUTPUT", "FORWARD"):
        while _jumps(chain):
            run("iptables", "-D", chain, "-j", GUARD)
        run("iptables", "-I", chain, "1", "-j", GUARD)


def _jumps(chain: str) -> bool:
    return f"-j {GUARD}" in run("iptables", "-S", chain)


def _drop_chains(command: str) -> None:
    """Every chain named KUBE-*, CNI-* or GPUCTL-GUARD, and every rule that jumps to one."""
    if shutil.which(command) is None:
        return
    saved = run(f"{command}-save", check=False)
    if not any(prefix in saved for prefix in PREFIXES):
        return
    kept = [
        line
        for line in saved.splitlines()
        if not any(f":{p}" in line or f" {p}" in line for p in PREFIXES)
    ]
    run(f"{command}-restore", input="\n".join(kept) + "\n")


# ------------------------------------------------------------------ cgroups


def hierarchies() -> list[Path]:
    """The cgroup v1 hierarchies mounted under /sys/fs/cgroup (cpu, memory, ... systemd)."""
    if not CGROUP_ROOT.exists():
        return []
    return [
        p for p in sorted(CGROUP_ROOT.iterdir()) if p.is_dir() and (p / "cgroup.procs").exists()
    ]


def make_cgroup(name: str) -> None:
    """/NAME in every hierarchy, as kubelet's cgroupRoot must exist beforehand on cgroup v1
    (cpuset's cpus and mems copied from the root, or no process could join it)."""
    for hierarchy in hierarchies():
        path = hierarchy / name
        path.mkdir(exist_ok=True)
        for setting in ("cpuset.cpus", "cpuset.mems"):
            if (hierarchy / setting).exists():
                (path / setting).write_text((hierarchy / setting).read_text())


def _cgroup_pids(name: str) -> set[int]:
    pids: set[int] = set()
    for hierarchy in hierarchies():
        for procs in (
            (hierarchy / name).rglob("cgroup.procs") if (hierarchy / name).exists() else []
        ):
            pids |= {int(p) for p in procs.read_text().split()}
    return pids


def _remove_cgroup(name: str) -> None:
    for hierarchy in hierarchies():
        top = hierarchy / name
        if not top.exists():
            continue
        for path in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            _rmdir(path)
        _rmdir(top)


def _rmdir(path: Path) -> None:
    for _ in range(50):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)  # its last process is still exiting
    path.rmdir()


# ------------------------------------------------------------------ release


def kill_all(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _processes_mentioning(text: str) -> set[int]:
    """Processes whose command line names `text` (containerd's shims name its socket)."""
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if text.encode() in (proc / "cmdline").read_bytes():
                found.add(int(proc.name))
        except OSError:
            continue
    return found


def _mounts_under(directory: str) -> list[str]:
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point == directory or point.startswith(directory + "/"):
            points.append(point)
    return sorted(set(points), key=lambda p: -p.count("/"))


def unmount_under(directory: str) -> None:
    for point in _mounts_under(directory):
        run("umount", "-l", point, check=False)


def _remove_new_paths(held: Claim) -> None:
    directory = held.directory
    logs = Path("/var/log/containers")
    if logs.exists():
        for link in logs.iterdir():
            if link.is_symlink() and os.readlink(link).startswith(directory):
                link.unlink()
    for path in held.absent:
        if os.path.lexists(path):
            unmount_under(path)
            shutil.rmtree(path, ignore_errors=True)


def release(directory: Path) -> bool:
    """Undo `claim` and everything the real nodes did since; False when this machine was not
    claimed by `directory`."""
    held = current_claim()
    if held is None or held.directory != str(directory):
        return False
    for name in held.cgroups:
        kill_all(_cgroup_pids(name))
    kill_all(_processes_mentioning(str(directory / "nodes")))  # containerd's shims
    unmount_under(str(directory))
    for name in held.cgroups:
        _remove_cgroup(name)
    if Path(f"/sys/class/net/{BRIDGE}").exists():
        for port in (Path(f"/sys/class/net/{BRIDGE}") / "brif").iterdir():
            run("ip", "link", "delete", port.name, check=False)  # a pod's veth, left behind
        run("ip", "link", "delete", BRIDGE, check=False)
    for command in IPTABLES:
        _drop_chains(command)
    _remove_new_paths(held)
    for name, value in held.sysctls.items():
        if _sysctl(name).exists() and _sysctl(name).read_text().strip() != value:
            set_sysctl(name, value)
    CLAIM.unlink()
    return True
