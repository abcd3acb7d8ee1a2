"""The controller's work queue: a key waits once, one worker has it at a time, a key added
while a worker has it comes back when that worker is done, and a delayed key comes when its
delay ends (the last delay asked for; adding it at once or forgetting it cancels the delay)."""

from __future__ import annotations

from gpuctl.controller.queue import WorkQueue


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


A, B = ("default", "a"), ("default", "b")


def test_a_key_waits_once_and_comes_back_when_added_while_a_worker_has_it() -> None:
    queue = WorkQueue()
    queue.add(A)
    queue.add(B)
    queue.add(A)
    assert len(queue) == 2
    assert queue.get() == A
    queue.add(A)  # changed while being handled: not handed to a second worker
    assert queue.get() == B
    assert len(queue) == 1
    queue.done(A)
    assert queue.get() == A


def test_a_delayed_key_comes_when_its_last_delay_ends() -> None:
    clock = Clock()
    queue = WorkQueue(clock)
    queue.add_after(A, 10)
    queue.add_after(A, 30)  # the last asked for wins
    queue.add_after(B, 20)
    clock.now += 20
    assert queue.get() == B
    assert len(queue) == 0
    clock.now += 10
    assert queue.get() == A


def test_adding_or_forgetting_a_key_cancels_its_delay() -> None:
    clock = Clock()
    queue = WorkQueue(clock)
    queue.add_after(A, 10)
    queue.add(A)
    assert queue.get() == A
    queue.done(A)
    queue.add_after(B, 10)
    queue.forget(B)
    clock.now += 60
    queue.add(("default", "c"))
    assert queue.get() == ("default", "c")
    assert len(queue) == 0


def test_shut_down_ends_every_get() -> None:
    queue = WorkQueue()
    queue.add(A)
    queue.shut_down()
    assert queue.get() is None


def test_an_ordered_queue_hands_out_higher_priority_first_then_the_older() -> None:
    from gpuctl.controller.operator import urgency

    made = {
        "old-low": ("low", "2026-01-01T00:00:00Z"),
        "new-high": ("high", "2026-01-03T00:00:00Z"),
        "old-high": ("high", "2026-01-02T00:00:00Z"),
        "medium": ("medium", "2026-01-01T00:00:00Z"),
        "unset": (None, "2026-01-04T00:00:00Z"),  # the CRD's default: medium
    }

    class Workloads:
        def get(self, namespace: str, name: str) -> dict[str, object] | None:
            priority, created = made[name]
            spec = {"priority": priority} if priority else {}
            return {"metadata": {"name": name, "creationTimestamp": created}, "spec": spec}

    queue = WorkQueue(order=urgency(Workloads()))
    for name in made:
        queue.add(("default", name))
    handed = []
    while len(queue):
        key = queue.get()
        assert key is not None
        handed.append(key[1])
        queue.done(key)
    assert handed == ["old-high", "new-high", "medium", "unset", "old-low"]
