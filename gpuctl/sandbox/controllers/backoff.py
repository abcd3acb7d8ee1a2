"""The kubelet's per-container back-off: 10 s, doubling on each restart up to 5 minutes, and back
to 10 s once a container ran for twice the cap (10 minutes) since the last restart."""

from __future__ import annotations

from dataclasses import dataclass

INITIAL_SECONDS = 10.0
MAX_SECONDS = 300.0


@dataclass
class _Entry:
    seconds: float  # the current back-off, in real (unscaled) seconds
    last_update: float


class BackOff:
    """Real durations for messages; waits are those durations times `scale` (1 for real)."""

    def __init__(
        self,
        scale: float = 1.0,
        initial: float = INITIAL_SECONDS,
        cap: float = MAX_SECONDS,
    ) -> None:
        self.scale = scale
        self.initial = initial
        self.cap = cap
        self._entries: dict[str, _Entry] = {}

    def _expired(self, event_time: float, entry: _Entry) -> bool:
        """Stable for twice the cap since the last restart: the back-off starts over."""
        return event_time - entry.last_update > 2 * self.cap * self.scale

    def in_back_off_since(self, key: str, event_time: float, now: float) -> bool:
        """Whether a container that exited at `event_time` must still wait before restarting."""
        entry = self._entries.get(key)
        if entry is None or self._expired(event_time, entry):
            return False
        return now - event_time < entry.seconds * self.scale

    def next(self, key: str, event_time: float, now: float) -> None:
        """A restart happens now: the next back-off is double this one (within the cap)."""
        entry = self._entries.get(key)
        if entry is None or self._expired(event_time, entry):
            self._entries[key] = _Entry(self.initial, now)
            return
        entry.seconds = min(entry.seconds * 2, self.cap)
        entry.last_update = now

    def seconds(self, key: str) -> float:
        """The current back-off in real seconds (what the kubelet's messages say)."""
        entry = self._entries.get(key)
        return entry.seconds if entry is not None else 0.0

    def wait(self, key: str) -> float:
        """The current back-off as this sandbox waits it."""
        return self.seconds(key) * self.scale

    def forget(self, key: str) -> None:
        self._entries.pop(key, None)


def go_duration(seconds: float) -> str:
    """A whole number of seconds as Go's time.Duration prints it: 10s, 1m20s, 5m0s, 1h0m0s."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"
