"""How long each kind of call took in a stress run, kept as a histogram of 2%-wide buckets:
its memory stays fixed however long the run, and a percentile read from it is within 2% of
the exact one (the maximum is kept exactly)."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

_GROWTH = 1.02  # each bucket 2% wider than the last
_FLOOR_S = 1e-6  # the first bucket holds everything up to 1 µs


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """One kind of call: how many, and their latency percentiles in milliseconds."""

    calls: int
    p50_ms: float
    p99_ms: float
    max_ms: float


class Latencies:
    """Latencies of one kind of call, recorded from any thread."""

    def __init__(self) -> None:
        self._counts: dict[int, int] = {}
        self._calls = 0
        self._max = 0.0
        self._lock = threading.Lock()

    def record(self, seconds: float) -> None:
        bucket = _bucket(seconds)
        with self._lock:
            self._counts[bucket] = self._counts.get(bucket, 0) + 1
            self._calls += 1
            self._max = max(self._max, seconds)

    def merged(self, other: Latencies) -> Latencies:
        both = Latencies()
        for source in (self, other):
            with source._lock:
                for bucket, n in source._counts.items():
                    both._counts[bucket] = both._counts.get(bucket, 0) + n
                both._calls += source._calls
                both._max = max(both._max, source._max)
        return both

    def summary(self) -> LatencySummary:
        with self._lock:
            return LatencySummary(
                self._calls,
                self._quantile(0.50) * 1000,
                self._quantile(0.99) * 1000,
                self._max * 1000,
            )

    def _quantile(self, q: float) -> float:
        """Nearest rank: the upper edge of the bucket holding the ceil(q * n)-th latency,
        never above the maximum seen."""
        if not self._calls:
            return 0.0
        rank, seen = max(1, math.ceil(q * self._calls)), 0
        for bucket in sorted(self._counts):
            seen += self._counts[bucket]
            if seen >= rank:
                return min(_upper(bucket), self._max)
        return self._max  # pragma: no cover - the counts add up to the calls


def _bucket(seconds: float) -> int:
    if seconds <= _FLOOR_S:
        return 0
    return 1 + int(math.log(seconds / _FLOOR_S, _GROWTH))


def _upper(bucket: int) -> float:
    return _FLOOR_S * _GROWTH**bucket
