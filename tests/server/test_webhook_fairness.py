"""The webhook worker's deliveries are fair between owners and its Lease does not depend on
them: an owner whose receiver is slow, with many messages queued, delays only their own
deliveries, and the Lease stays held while a delivery takes longer than the Lease lasts."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterator

import pytest

from gpuctl.server.webhooks import store
from gpuctl.server.webhooks.fair import Entry, FairQueue
from gpuctl.server.webhooks.worker import Leader, Settings, Worker
from tests.support.sandbox import wait_for

from ..conftest import Env
from .webhook_receiver import Receiver, _receiver, receiving  # noqa: F401  (the fixture)

LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"),)
SLOW = 3.0  # seconds the slow receiver takes to answer


@pytest.fixture
def slow() -> Iterator[Receiver]:
    with receiving() as made:
        made.delay = SLOW
        yield made


def _queue(env: Env, owner: str, url: str, count: int) -> store.Subscription:
    sub = store.create(env.cluster, url, ["job.created"], owner, None, "")
    for number in range(count):
        message = store.Message(sub.id, f"msg_{sub.id}-{number}", "x", "{}", 0, time.time(), 0.0)
        assert store.enqueue(env.cluster, message)
    return sub


def _worker(env: Env, lease: str, seconds: int = 15) -> Worker:
    worker = Worker(env.cluster, env.cluster, Settings(LOOPBACK, timeout=30.0, tick=0.2))
    worker.leader = Leader(env.cluster, "replica-a", seconds=seconds, name=lease)
    return worker


def test_a_slow_receiver_with_many_queued_messages_delays_only_its_own_owner(
    env: Env, slow: Receiver, receiver: Receiver
) -> None:
    for _ in range(6):  # alice: 6 subscriptions to a slow receiver, 3 messages each, first
        _queue(env, "alice", slow.url, 3)
    _queue(env, "bob", receiver.url, 1)
    worker = _worker(env, "webhooks-fair")
    started = time.monotonic()
    worker.start(lambda _handler: None)
    try:
        wait_for(lambda: len(receiver.got) == 1, timeout=60, what="bob's delivery")
        wait_for(lambda: len(slow.got) >= 4, timeout=60, what="alice's deliveries")
    finally:
        worker.stop()
    bob = receiver.got[0].at - started
    alice_fourth = sorted(r.at for r in slow.got)[3] - started
    # bob's message waits for no slow answer (with one batch of workers it waited for
    # several); alice's fourth waits for at least one of her own slow answers
    assert bob < SLOW, f"bob's delivery took {bob:.1f}s, alice's fourth {alice_fourth:.1f}s"
    assert alice_fourth >= SLOW, f"alice's fourth arrived after {alice_fourth:.1f}s"


def test_a_message_queued_during_a_slow_delivery_goes_without_waiting_for_it(
    env: Env, slow: Receiver, receiver: Receiver
) -> None:
    _queue(env, "alice", slow.url, 1)
    worker = _worker(env, "webhooks-no-barrier")
    worker.start(lambda _handler: None)
    try:
        wait_for(lambda: len(slow.got) == 1, timeout=60, what="alice's slow delivery")
        queued = time.monotonic()  # alice's receiver is answering: a round would wait for it
        _queue(env, "bob", receiver.url, 1)
        wait_for(lambda: len(receiver.got) == 1, timeout=60, what="bob's delivery")
    finally:
        worker.stop()
    bob = receiver.got[0].at - queued
    assert bob < SLOW / 2, f"bob's delivery took {bob:.1f}s, behind alice's slow one"


def test_the_lease_stays_held_while_a_delivery_takes_longer_than_the_lease(
    env: Env, slow: Receiver
) -> None:
    _queue(env, "alice", slow.url, 2)
    worker = _worker(env, "webhooks-long-round", seconds=1)  # a Lease of 1 s, answers of 3 s
    other = Leader(env.cluster, "replica-b", seconds=1, name="webhooks-long-round")
    worker.start(lambda _handler: None)
    taken: list[float] = []
    try:
        wait_for(lambda: len(slow.got) >= 1, timeout=60, what="the slow delivery")
        deadline = time.monotonic() + SLOW * 1.5
        while time.monotonic() < deadline:
            if other.hold():
                taken.append(time.monotonic())
            time.sleep(0.1)
        assert worker.holding.is_set()
    finally:
        worker.stop()
    assert taken == [], "another replica took the Lease while a delivery was in progress"


def test_the_fair_queue_hands_out_owners_in_turn_and_caps_each_owner() -> None:
    queue: FairQueue[str] = FairQueue(per_owner=2)
    entries = [Entry("alice", f"a{n % 3}", f"alice-{n}", 0, f"alice-{n}") for n in range(9)]
    entries += [Entry("bob", "b0", "bob-0", 0, "bob-0"), Entry("bob", "b0", "bob-1", 0, "bob-1")]
    queue.offer(entries)
    taken = [queue.take(wait=False) for _ in range(4)]
    names = [entry.name if entry else None for entry in taken]
    # alice first (given first), then bob, then alice's next subscription; bob's second
    # message waits for his first (one per subscription), alice has two in progress
    assert names == ["alice-0", "bob-0", "alice-1", None]
    for entry in taken[:3]:
        assert entry is not None
        queue.done(entry)
    queue.offer(entries)  # listed before those attempts were written: not handed out again
    rest = []
    while (entry := queue.take(wait=False)) is not None:
        rest.append(entry.name)
        queue.done(entry)
    assert rest[:2] == ["bob-1", "alice-2"]  # bob (served longer ago), then alice
    assert sorted(rest) == sorted([f"alice-{n}" for n in range(2, 9)] + ["bob-1"])
    queue.close()
    assert queue.take() is None


def test_a_delivery_whose_outcome_was_not_written_is_handed_out_again() -> None:
    queue: FairQueue[str] = FairQueue(per_owner=2)
    entries = [Entry("alice", "a0", "alice-0", 0, "alice-0")]
    queue.offer(entries)
    first = queue.take(wait=False)
    assert first is not None
    queue.done(first, written=False)  # the cluster failed while rescheduling it
    queue.offer(entries)  # listed as it was: its attempt is to be made again
    again = queue.take(wait=False)
    assert again is not None and again.name == "alice-0"
    queue.done(again)
    queue.offer(entries)  # a listing from before this attempt was written: not again
    assert queue.take(wait=False) is None
