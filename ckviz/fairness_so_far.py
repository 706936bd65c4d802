"""The demand-aware fairness of a run in progress (docs/fairness.md, "While a run goes"),
kept as the run goes rather than recomputed from every dequeue at each look: the app's
status line reads it at every frame."""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ckviz.fairness import (
    MIN_OWED,
    KeyService,
    OwnLimit,
    Tally,
    attainments,
    most_underserved,
)
from ckviz.model.snapshot import DequeueEvent


@dataclass(frozen=True, slots=True)
class SoFar:
    """The headline of a run in progress: the most under-served judged key (ties by name)
    and its attainment, and Jain's index over the judged keys' attainments (Jain's own
    definition: each key's throughput over its fair throughput); None: too few judged."""

    underserved: str | None
    attainment: float | None
    jain: float | None  # from two judged keys on


class ServiceSoFar:
    """key_service of a run in progress, kept as the run goes rather than recomputed.

    It is fed each run as it arrives (`arrived`) and the dequeues as they are made
    (`dequeued`); every queued run counts as asked for, so an instant once past never changes
    (with only each key's oldest queued run counted, serving a key would add its next run's
    arrival in the past). At the end of a run nothing is queued and the figures are
    key_service's. `so_far` costs a pass over the keys, whatever the run's length.
    """

    def __init__(
        self,
        weights: Mapping[str, float],
        own_limit: OwnLimit | None = None,
        per_call: int | None = None,
    ) -> None:
        self._books = Tally(weights, per_call, own_limit.cap if own_limit else None)
        self._holds = own_limit.holds if own_limit else None
        self._arrivals: list[tuple[int, int, str]] = []  # heap of (arrival, seq, key)
        self._releases: list[tuple[int, int, str]] = []  # heap of (release, seq, key)
        self._seq = 0
        self._instant: int | None = None  # the instant of `_batch`, not shared out yet
        self._batch: list[DequeueEvent] = []

    def arrived(self, at: int, key: str) -> None:
        """A run of `key` arrived (or comes due) at `at`."""
        self._books.know(key)
        self._seq += 1
        heapq.heappush(self._arrivals, (at, self._seq, key))

    def dequeued(self, events: Sequence[DequeueEvent]) -> None:
        """Dequeues made since the last call, in order; an instant is shared out once a later
        one begins (more of its dequeues may still come)."""
        for e in events:
            if self._instant is not None and e.dequeued_ms != self._instant:
                self._share_out()
            self._instant = e.dequeued_ms
            self._batch.append(e)

    def so_far(self, t: int) -> SoFar:
        """The figures at `t`, the instant under way (`t`'s dequeues so far) counted as if
        it ended now."""
        if self._instant is not None and self._instant < t:
            self._share_out()
        if not self._batch:
            return self._figures()
        assert self._instant is not None  # shared out, then taken back: more may come
        self._open_until(self._instant)
        with self._books.shared_out_for_now(len(self._batch), [e.key for e in self._batch]):
            return self._figures()

    def _figures(self) -> SoFar:
        """A pass over the keys, each open one paid as `Tally.close` would."""
        books = self._books
        level, room, since, weights, got = (
            books.level,
            books.room,
            books.since,
            books.weights,
            books.got,
        )
        worst: tuple[float, str] | None = None
        total = squares = 0.0
        judged = 0
        for key, (owed, _) in books.owed.items():
            if room[key]:
                owed += weights[key] * (level - since[key][0])
            if owed < MIN_OWED:
                continue
            attainment = got[key][0] / owed
            judged += 1
            total += attainment
            squares += attainment * attainment
            if worst is None or (attainment, key) < worst:
                worst = (attainment, key)
        if worst is None:
            return SoFar(None, None, None)
        jain = None if judged < 2 else (total * total / (judged * squares) if squares else 1.0)
        return SoFar(worst[1], worst[0], jain)

    def _open_until(self, now: int) -> None:
        """Holds ended and runs arrived by `now`: before `now`'s dequeues, as key_service."""
        books = self._books
        while self._releases and self._releases[0][0] <= now:
            books.release(heapq.heappop(self._releases)[2])
        while self._arrivals and self._arrivals[0][0] <= now:
            books.arrive(heapq.heappop(self._arrivals)[2])

    def _share_out(self) -> None:
        """Book the instant of `_batch` for good."""
        assert self._instant is not None
        now, batch, books = self._instant, self._batch, self._books
        self._open_until(now)
        books.share_out(len(batch), [e.key for e in batch])
        for e in batch:
            books.dequeue(e.key)
            if self._holds is not None:
                self._seq += 1
                heapq.heappush(self._releases, (now + self._holds[e.run_id], self._seq, e.key))
        self._instant, self._batch = None, []


def headline(service: Mapping[str, KeyService]) -> SoFar:
    """The figures ServiceSoFar keeps, from key_service's."""
    judged = attainments(service)
    key, attainment = most_underserved(service) or (None, None)
    values = list(judged.values())
    squares = sum(a * a for a in values)
    jain = None
    if len(values) >= 2:
        jain = sum(values) ** 2 / (len(values) * squares) if squares else 1.0
    return SoFar(key, attainment, jain)
