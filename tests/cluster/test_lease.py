"""The one Lease primitive (gpuctl.cluster.lease) on the in-process FakeCluster: expiry judged
by each observer's own clock since it last saw the record change (never the stored renewTime
against its wall clock), take-over of a crashed holder, races lost by Conflict or
AlreadyExists, and giving the Lease up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuctl.cluster.fake import FakeCluster
from gpuctl.cluster.lease import Lease
from gpuctl.times import parse_rfc3339

DAY = 86400.0


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def candidate(
    cluster: FakeCluster, who: str, clock: Clock, wall: Callable[[], float] | None = None
) -> Lease:
    if wall is None:
        return Lease(cluster, "default", "lock", who, 15, clock=clock)
    return Lease(cluster, "default", "lock", who, 15, clock=clock, wall=wall)


def stored(cluster: FakeCluster) -> dict[str, Any]:
    spec: dict[str, Any] = cluster.get("Lease", "lock", "default")["spec"]
    return spec


def test_a_holder_whose_clock_runs_a_day_ahead_is_judged_by_the_observers_clock() -> None:
    """Its renewTime lies a day in the future: by the observer's wall clock it never expires.
    The observer waits its own 15 s since the record last changed, then takes over."""
    cluster = FakeCluster()
    clock_a, clock_b = Clock(), Clock(50.0)
    skewed = candidate(cluster, "a", clock_a, wall=lambda: 1795860000.0 + DAY)
    observer = candidate(cluster, "b", clock_b, wall=lambda: 1795860000.0)
    assert skewed.try_acquire_or_renew()
    assert parse_rfc3339(stored(cluster)["renewTime"]) == 1795860000.0 + DAY
    assert not observer.try_acquire_or_renew()
    clock_b.now += 15
    assert not observer.try_acquire_or_renew()  # unchanged for 15 s: not more than 15 yet
    clock_b.now += 0.5
    assert observer.try_acquire_or_renew()
    assert (stored(cluster)["holderIdentity"], stored(cluster)["leaseTransitions"]) == ("b", 1)


def test_a_holder_whose_clock_runs_a_day_behind_keeps_the_lease_while_it_renews() -> None:
    """Its renewTime lies a day in the past: by the observer's wall clock it expired long ago.
    Each renewal changes the record, so the observer's own clock starts again."""
    cluster = FakeCluster()
    clock_a, clock_b = Clock(), Clock()
    stamps = iter(1795860000.0 - DAY + n for n in range(100))
    behind = candidate(cluster, "a", clock_a, wall=lambda: next(stamps))
    observer = candidate(cluster, "b", clock_b)
    assert behind.try_acquire_or_renew()
    for _ in range(5):  # 50 s of the observer's time, a renewal every 10 s
        assert not observer.try_acquire_or_renew()
        clock_a.now += 10
        clock_b.now += 10
        assert behind.try_acquire_or_renew()
    assert not observer.try_acquire_or_renew()
    assert stored(cluster)["holderIdentity"] == "a"


def test_a_crashed_holder_is_taken_over_after_the_duration_and_cannot_take_it_back() -> None:
    cluster = FakeCluster()
    clock = Clock()
    a, b = candidate(cluster, "a", clock), candidate(cluster, "b", clock)
    assert a.try_acquire_or_renew()
    acquired = stored(cluster)["acquireTime"]
    clock.now += 5
    assert a.try_acquire_or_renew()  # a renewal keeps the time it was taken
    assert (stored(cluster)["acquireTime"], stored(cluster)["leaseTransitions"]) == (acquired, 0)
    assert not b.try_acquire_or_renew()
    clock.now += 15  # a crashed: nothing changes any more
    assert not b.try_acquire_or_renew()
    clock.now += 1
    assert b.try_acquire_or_renew()
    assert (stored(cluster)["holderIdentity"], stored(cluster)["leaseTransitions"]) == ("b", 1)
    assert not a.try_acquire_or_renew()  # back again: it sees b's fresh record, not its own
    assert a.holder == "b"


def test_a_new_observer_waits_a_whole_duration_however_old_the_renew_time() -> None:
    cluster = FakeCluster()
    old = Lease(cluster, "default", "lock", "gone", 15, wall=lambda: 1000.0)  # 1970
    assert old.try_acquire_or_renew()
    clock = Clock()
    newcomer = candidate(cluster, "new", clock)
    assert not newcomer.try_acquire_or_renew()
    clock.now += 16
    assert newcomer.try_acquire_or_renew()


class RacingCluster(FakeCluster):
    """Runs `before_write` once, just before the next create or replace: another candidate
    writes between this one's read and its write."""

    def __init__(self) -> None:
        super().__init__()
        self.before_write: Callable[[], object] | None = None

    def _race(self) -> None:
        action, self.before_write = self.before_write, None
        if action is not None:
            action()

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        self._race()
        return super().create(obj, dry_run=dry_run)

    def replace(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        self._race()
        return super().replace(obj, dry_run=dry_run)


def test_of_two_candidates_racing_for_an_expired_lease_the_second_writer_gets_a_conflict() -> None:
    cluster = RacingCluster()
    clock = Clock()
    gone = candidate(cluster, "gone", clock)
    a, b = candidate(cluster, "a", clock), candidate(cluster, "b", clock)
    assert gone.try_acquire_or_renew()
    assert not a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    clock.now += 16
    cluster.before_write = a.try_acquire_or_renew  # a writes between b's read and b's write
    assert not b.try_acquire_or_renew()  # b's replace at the version it read: a Conflict
    assert ("replace", "Lease", "lock") in cluster.calls
    assert (stored(cluster)["holderIdentity"], stored(cluster)["leaseTransitions"]) == ("a", 1)
    assert a.held() and not b.held()


def test_of_two_candidates_creating_the_lease_the_second_gets_already_exists() -> None:
    cluster = RacingCluster()
    clock = Clock()
    a, b = candidate(cluster, "a", clock), candidate(cluster, "b", clock)
    cluster.before_write = a.try_acquire_or_renew
    assert not b.try_acquire_or_renew()
    assert stored(cluster)["holderIdentity"] == "a"
    assert not b.try_acquire_or_renew()  # a holds it now, and it has not expired


def test_a_given_up_lease_stays_without_a_holder_and_is_taken_at_once() -> None:
    cluster = FakeCluster()
    clock = Clock()
    a, b = candidate(cluster, "a", clock), candidate(cluster, "b", clock)
    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    assert not b.release()  # not b's: left alone
    assert a.release()
    assert (stored(cluster)["holderIdentity"], stored(cluster)["leaseDurationSeconds"]) == ("", 1)
    assert b.try_acquire_or_renew()  # no holder: free without waiting
    assert (stored(cluster)["holderIdentity"], stored(cluster)["leaseTransitions"]) == ("b", 1)


def test_a_lease_released_by_deleting_is_gone_and_created_afresh() -> None:
    cluster = FakeCluster()
    clock = Clock()
    a, b = candidate(cluster, "a", clock), candidate(cluster, "b", clock)
    assert a.try_acquire_or_renew()
    assert not b.release(delete=True)
    assert cluster.find("Lease", "lock", "default") is not None
    assert a.release(delete=True)
    assert cluster.find("Lease", "lock", "default") is None
    assert b.try_acquire_or_renew()
    assert stored(cluster)["leaseTransitions"] == 0
