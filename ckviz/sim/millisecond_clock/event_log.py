"""The app's event log: the last queue events, made when read, and in the app's runs every
event so far (a key's own story reads them: ckviz.player.story).

A run logs three or four events per dequeued run (its enqueue, dequeue and release) and a
headless run never reads them, while a frozen `QueueEvent` costs some fifty times a plain
tuple to build (about 2 us each on the 2-core machine: a tenth of the client's time per
dequeued run at 100 keys). So the log keeps tuples and builds the events only for a reader,
each once; the whole log is kept only where someone may read it (the app's runs, which keep
their history), and only as those tuples.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

from ckviz.model.snapshot import LoggedEvent, QueueEvent, QueueEventKind, QueueLog


class EventLog:
    """The last `limit` queue events, oldest first; with `whole`, every event kept too."""

    def __init__(self, limit: int, whole: bool = False) -> None:
        self._logged: deque[LoggedEvent] = deque(maxlen=limit)
        self._whole: list[LoggedEvent] | None = [] if whole else None
        self._made: deque[QueueEvent] = deque(maxlen=limit)
        self._unmade = 0  # logged since the events were last made

    def add(
        self, kind: QueueEventKind, t: int, key: str, run_id: str, by: str | None = None
    ) -> None:
        event = (kind, t, key, run_id, by)
        self._logged.append(event)
        if self._whole is not None:
            self._whole.append(event)
        self._unmade += 1

    def events(self) -> tuple[QueueEvent, ...]:
        if self._unmade:
            logged = self._logged
            start = max(0, len(logged) - self._unmade)
            self._made.extend(QueueEvent(*e) for e in itertools.islice(logged, start, None))
            self._unmade = 0
        return tuple(self._made)

    def whole(self) -> QueueLog | None:
        """Every event so far, as a frame keeps it (None: not kept, a headless run)."""
        return None if self._whole is None else QueueLog(self._whole, len(self._whole))

    def __iter__(self) -> Iterator[QueueEvent]:
        return iter(self.events())

    def __len__(self) -> int:
        return len(self._logged)
