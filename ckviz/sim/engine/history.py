"""Records a run's past into bounded time buckets as the driver steps (model/history.py).

Each enqueue and dequeue touches one key's buckets; a snapshot freezes only the keys touched
since the last one, so a step costs O(keys it changed), never O(keys x buckets). Contention is
followed the way ckviz.metrics.contention walks the events (a serve counts while two or more
keys wait; every key waiting then is contended), so the per-key share/weight per bucket is
the figure the app's fairness headline computes, as it stood then.
"""

from __future__ import annotations

from collections.abc import Mapping

from ckviz.model.history import (
    BUCKETS,
    History,
    Track,
    TrackLayers,
    Trend,
    add,
    add_weight,
    latest,
    rebucket,
)


class KeyLog:
    """One key's buckets while the run goes on (mutable; frozen into a Track)."""

    __slots__ = ("contended_at", "counted", "depth", "level", "queued", "served", "start")

    def __init__(self, level: int, bucket: int) -> None:
        self.level = level
        self.start = bucket
        self.served = [0]
        self.counted = [0]
        self.depth = [0]
        self.queued = 0
        self.contended_at: int | None = None

    def reach(self, level: int, bucket: int) -> None:
        """Coarsen to `level`, then open buckets up to `bucket` (the queue carries over)."""
        if level > self.level:
            shift = level - self.level
            start, self.served = rebucket(self.start, self.served, shift, add)
            _, self.counted = rebucket(self.start, self.counted, shift, add)
            _, self.depth = rebucket(self.start, self.depth, shift, max)
            if self.contended_at is not None:
                self.contended_at >>= shift
            self.start, self.level = start, level
        for _ in range(bucket - (self.start + len(self.served)) + 1):
            self.served.append(0)
            self.counted.append(0)
            self.depth.append(self.queued)

    def freeze(self) -> Track:
        return Track(
            self.level,
            self.start,
            tuple(self.served),
            tuple(self.counted),
            tuple(self.depth),
            self.queued,
            self.contended_at,
        )


class HistoryRecorder:
    """Per-key buckets of served runs and queue depth, and the run's contention window."""

    def __init__(self, weights: Mapping[str, float]) -> None:
        self.weights = dict(weights)
        self.level = 0
        self._logs: dict[str, KeyLog] = {}
        self._dirty: set[str] = set()
        self._window: list[int] = []
        self._contended_weight: list[float] = []
        self._waiting = 0  # keys with runs queued
        self._unmarked: set[str] = set()  # waiting keys not yet known to be contended
        self._view: History | None = None

    def enqueued(self, key: str, t: int) -> None:
        log = self._log(key, t)
        log.queued += 1
        log.depth[-1] = max(log.depth[-1], log.queued)
        if log.queued == 1:
            self._waiting += 1
            if log.contended_at is None:
                self._unmarked.add(key)

    def dequeued(self, key: str, t: int) -> None:
        log = self._log(key, t)
        bucket = log.start + len(log.served) - 1
        log.served[-1] += 1
        if self._waiting >= 2:  # counted in the contention window
            log.counted[-1] += 1
            self._window[bucket] += 1
            self._mark_contended(bucket)
        log.queued -= 1
        if log.queued == 0:
            self._waiting -= 1
            self._unmarked.discard(key)

    def _mark_contended(self, bucket: int) -> None:
        for key in self._unmarked:
            log = self._logs[key]
            log.reach(self.level, bucket)
            log.contended_at = bucket
            self._contended_weight[bucket] += self.weights.get(key, 1.0)
            self._dirty.add(key)
        self._unmarked.clear()

    def _log(self, key: str, t: int) -> KeyLog:
        bucket = self._bucket(t)
        log = self._logs.get(key)
        if log is None:
            log = self._logs[key] = KeyLog(self.level, bucket)
        log.reach(self.level, bucket)
        self._dirty.add(key)
        return log

    def _bucket(self, t: int) -> int:
        """The bucket of `t`, coarsening the run-wide series first if `t` is past the last."""
        shift = 0
        while t >= BUCKETS << (self.level + shift):
            shift += 1
        if shift:
            self.level += shift
            self._window = rebucket(0, self._window, shift, add)[1]
            self._contended_weight = rebucket(0, self._contended_weight, shift, add_weight)[1]
        bucket = t >> self.level
        missing = bucket + 1 - len(self._window)
        if missing > 0:
            self._window += [0] * missing
            self._contended_weight += [0.0] * missing
        return bucket

    def view(self, t: int) -> History:
        """Everything up to `t`, frozen (the keys touched since the last view are copied)."""
        now = self._bucket(t)
        previous = self._view
        if previous is not None and not self._dirty:
            if (previous.now, previous.level) == (now, self.level):
                return previous
            tracks = previous.tracks  # nothing changed: the same frozen tracks
        else:  # the keys changed since, over the tracks of the view before (shared)
            changed = {key: self._logs[key].freeze() for key in self._dirty}
            self._dirty.clear()
            below = previous.tracks if previous is not None else None
            tracks = TrackLayers(changed, below if isinstance(below, TrackLayers) else None)
        self._view = History(
            self.level,
            now,
            tracks,
            tuple(self._window),
            tuple(self._contended_weight),
            self.weights,
        )
        return self._view


class TrendRecorder:
    """A lane's fairness headline per bucket (the last one in each bucket wins)."""

    def __init__(self) -> None:
        self.level = 0
        self._worst: list[float | None] = []
        self._jain: list[float | None] = []

    def record(self, t: int, worst: float | None, jain: float | None) -> Trend:
        shift = 0
        while t >= BUCKETS << (self.level + shift):
            shift += 1
        if shift:
            self.level += shift
            self._worst = rebucket(0, self._worst, shift, latest)[1]
            self._jain = rebucket(0, self._jain, shift, latest)[1]
        bucket = t >> self.level
        while len(self._worst) <= bucket:  # a bucket no frame fell in keeps the figure before
            self._worst.append(self._worst[-1] if self._worst else None)
            self._jain.append(self._jain[-1] if self._jain else None)
        self._worst[bucket], self._jain[bucket] = worst, jain
        return Trend(self.level, tuple(self._worst), tuple(self._jain))
