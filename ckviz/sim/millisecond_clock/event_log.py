"""The app's event log of the millisecond clock: the last queue events, made when read.

A run logs three or four events per dequeued run (its enqueue, dequeue and release) and a
headless run never reads them, while a frozen `QueueEvent` costs some fifty times a plain
tuple to build (about 2 us each on the 2-core machine: a tenth of the client's time per
dequeued run at 100 keys). So the log keeps tuples and builds the events only for a reader,
each once.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

from ckviz.model.snapshot import QueueEvent, QueueEventKind


class EventLog:
    """The last `limit` queue events, oldest first."""

    def __init__(self, limit: int) -> None:
        self._logged: deque[tuple[QueueEventKind, int, str, str, str | None]] = deque(maxlen=limit)
        self._made: deque[QueueEvent] = deque(maxlen=limit)
        self._unmade = 0  # logged since the events were last made

    def add(
        self, kind: QueueEventKind, t: int, key: str, run_id: str, by: str | None = None
    ) -> None:
        self._logged.append((kind, t, key, run_id, by))
        self._unmade += 1

    def events(self) -> tuple[QueueEvent, ...]:
        if self._unmade:
            logged = self._logged
            start = max(0, len(logged) - self._unmade)
            self._made.extend(QueueEvent(*e) for e in itertools.islice(logged, start, None))
            self._unmade = 0
        return tuple(self._made)

    def __iter__(self) -> Iterator[QueueEvent]:
        return iter(self.events())

    def __len__(self) -> int:
        return len(self._logged)
