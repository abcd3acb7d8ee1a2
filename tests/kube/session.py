"""One local control plane per pytest session, shared by the xdist workers, and another with
real nodes (tests/kube/nodes.py) for the tests marked `realpods`.

The controlling process (the only one without xdist) picks a directory in `configure` and
stops whatever was started there in `unconfigure` (or, when it is killed before, the reaper it
started beside itself does: tests/kube/reaper.py); the first test that needs a control plane
starts it under a file lock, and every later one (in any worker) finds it in the state file.
Each test gets a namespace of its own."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.kube import controlplane, reaper
from tests.support.sandbox import Cluster, real_cluster

ENV = "GPUCTL_KUBE_SESSION"


class LocalCluster(Cluster):
    """The local control plane: real Kubernetes, with kwok nodes named as the sandbox's;
    `audit_log` records every request a service account makes."""

    def __init__(self, kubeconfig: Path, namespace: str, workdir: Path, audit_log: Path) -> None:
        super().__init__(kubeconfig, namespace, workdir)
        self.audit_log = audit_log


def _is_controller(config: Any) -> bool:
    return not hasattr(config, "workerinput")


def configure(config: Any) -> None:
    if _is_controller(config) and ENV not in os.environ:
        os.environ[ENV] = tempfile.mkdtemp(prefix="gpuctl-kube-")
        config._gpuctl_kube_owner = True
        # a session killed from outside never reaches unconfigure: the reaper stops its planes
        reaper.watch(os.getpid(), Path(os.environ[ENV]))


def unconfigure(config: Any) -> None:
    if getattr(config, "_gpuctl_kube_owner", False):
        directory = Path(os.environ.pop(ENV))
        for instance in (CONTROL_PLANE, REAL_PODS, KUEUE):
            controlplane.down(directory / instance)
        shutil.rmtree(directory, ignore_errors=True)


CONTROL_PLANE = "cp"  # kwok nodes only
REAL_PODS = "real"  # REAL_NODES real nodes, and no kwok node: every pod runs for real
REAL_NODES = 2
# kwok nodes and Kueue (its CRDs and its manager, for the whole session): Kueue's tests only.
# Kept off CONTROL_PLANE: where Kueue's CRDs are, gpuctl's pools become ClusterQueues and
# their jobs wait for a Kueue manager.
KUEUE = "kueue"


def _started(instance: str = CONTROL_PLANE) -> controlplane.State:
    directory = Path(os.environ[ENV])
    with (directory / f"{instance}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        failed = directory / f"{instance}.failed"
        if failed.exists():
            raise controlplane.ControlPlaneError(failed.read_text())
        state = controlplane.load(directory / instance)
        if state is not None and state.pids:
            return state
        try:
            if instance == REAL_PODS:
                state = controlplane.up(directory / instance, nodes=[], real_nodes=REAL_NODES)
            else:
                state = controlplane.up(directory / instance)
            _install_priority_classes(state.kubeconfig)
            if instance == KUEUE:
                from tests.kube import kueue  # it builds on controlplane

                kueue.serve(state)
            return state
        except Exception as error:
            failed.write_text(f"the local control plane did not start: {error}")
            raise


def _install_priority_classes(kubeconfig: Path) -> None:
    """gpuctl's PriorityClasses, as an administrator installs them once per cluster
    (`gpuctl priority-classes install`): every test's first create sees the same cluster."""
    from gpuctl.cluster.client import Cluster as GpuctlCluster
    from gpuctl.verbs.priorities import class_names, install

    install(GpuctlCluster.connect(str(kubeconfig)), class_names())


@contextmanager
def local_cluster(workdir: Path, instance: str = CONTROL_PLANE) -> Iterator[Cluster]:
    """The session's control plane (or the one with real nodes, or the one with Kueue), with a
    throwaway namespace for the test."""
    state = _started(instance)
    with real_cluster(workdir, state.kubeconfig) as cluster:
        yield LocalCluster(cluster.kubeconfig, cluster.namespace, cluster.workdir, state.audit_log)
