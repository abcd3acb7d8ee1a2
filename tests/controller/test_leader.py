"""Lease leader election on the sandbox: one holder; a standby takes over only after the
Lease went unchanged for its duration (on the standby's own clock) or was given up."""

from __future__ import annotations

import os
import subprocess
import sys

from gpuctl.cluster.lease import unique_identity
from gpuctl.controller.leader import LeaseElector, Timing
from gpuctl.controller.operator import RunOptions
from tests.conftest import Env


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def electors(env: Env) -> tuple[LeaseElector, LeaseElector, Clock]:
    clock = Clock()
    timing = Timing(lease_seconds=15, renew_deadline=10, retry_period=2)

    def make(who: str) -> LeaseElector:
        return LeaseElector(env.cluster, "default", "lock", who, timing, clock)

    return make("a"), make("b"), clock


def holder(env: Env) -> str:
    return str(env.cluster.get("Lease", "lock", "default")["spec"]["holderIdentity"])


def test_one_holder_and_a_takeover_after_the_lease_expires(env: Env) -> None:
    a, b, clock = electors(env)
    assert a.try_acquire_or_renew() is True
    assert b.try_acquire_or_renew() is False
    clock.now += 10
    assert a.try_acquire_or_renew() is True  # renewed: b saw the Lease change
    assert b.try_acquire_or_renew() is False
    clock.now += 14  # 14 s since b last saw a change: not expired yet
    assert b.try_acquire_or_renew() is False
    clock.now += 2  # a stopped renewing 16 s ago
    assert b.try_acquire_or_renew() is True
    lease = env.cluster.get("Lease", "lock", "default")["spec"]
    assert (lease["holderIdentity"], lease["leaseTransitions"]) == ("b", 1)
    assert a.try_acquire_or_renew() is False  # a lost it and must not take it back at once


def test_a_released_lease_is_taken_at_once(env: Env) -> None:
    a, b, _ = electors(env)
    assert a.try_acquire_or_renew() is True
    assert b.try_acquire_or_renew() is False
    a.release()
    assert holder(env) == ""
    assert b.try_acquire_or_renew() is True
    assert holder(env) == "b"


def identity_of_a_process(pod_name: str | None) -> str:
    """The identity `controller run` takes, in a process of its own."""
    environ = {k: v for k, v in os.environ.items() if k != "POD_NAME"}
    if pod_name is not None:
        environ["POD_NAME"] = pod_name
    code = (
        "from gpuctl.controller.operator import RunOptions; "
        "print(RunOptions('ns', 0, 0, True).identity)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_two_controllers_on_one_host_are_two_candidates_and_one_leads(env: Env) -> None:
    """Outside a pod both would be the host's name; in a pod restarted in place, both the pod's
    name: each process still gets an identity of its own."""
    for pod_name in (None, "gpu-orchestrator-7d9f-abcde"):
        first, second = identity_of_a_process(pod_name), identity_of_a_process(pod_name)
        assert first != second
        if pod_name is not None:
            assert first.startswith(pod_name + "_")
    timing = Timing(lease_seconds=15, renew_deadline=10, retry_period=2)
    a = LeaseElector(env.cluster, "default", "lock", RunOptions("ns", 0, 0, True).identity, timing)
    b = LeaseElector(env.cluster, "default", "lock", RunOptions("ns", 0, 0, True).identity, timing)
    assert a.try_acquire_or_renew() is True
    assert b.try_acquire_or_renew() is False


def test_an_identity_names_the_host_and_process() -> None:
    name, pid, suffix = unique_identity("host-1").split("_")
    assert (name, pid, len(suffix)) == ("host-1", str(os.getpid()), 8)
