"""Every key's wait so far as the wait CDF reads it (`Waits`: the value at a few dozen nearest
ranks), kept from the keys whose queue changed rather than walked and sorted each frame (at
100,000 keys a compare-mode frame walked 200,000 books for a dozen points drawn).

A key's wait so far moves with the clock while its head waits: (wait_sum + t - head) / (d + 1),
d its runs served, so keys served as often keep their order as time goes. The kept keys are
sorted by (wait_sum - head) in one list per d, and the idle keys (nothing queued, or a head
not due yet) by their mean wait in one more; a rank's value is then a selection over those
few lists (a binary search each), computed with the same arithmetic as `wait_so_far`.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Iterable, Mapping

from ckviz.model.snapshot import CDF_LEVELS, Waits, cdf_rank
from ckviz.sim.engine.ledger import KeyBook

IDLE = -1  # the list of keys whose wait does not move with the clock
MAX_LISTS = 32  # past this many lists (keys served that many different times), sort instead


class KeptWaits:
    """The wait figures of every key of `books`, kept from the keys handed to `figures`."""

    def __init__(self, books: Mapping[str, KeyBook]) -> None:
        self.books = books
        self._at: tuple[int, int] | None = None  # (t, base) last asked for; None: not built
        self._entry: dict[str, tuple[int, float]] = {}  # key -> (list, sort value)
        self._lists: dict[int, list[float]] = {}  # list -> its sort values, sorted
        self._due: list[tuple[int, str]] = []  # heap of (head's due time, key): idle till then

    def figures(self, moved: set[str] | None, t: int, base: int) -> Waits:
        """The figures at `t`; `moved`: the keys whose queue changed since the last call
        (None: not known, so every key)."""
        at = self._at
        if (
            at is None
            or moved is None
            or t < at[0]
            or base != at[1]
            or len(moved) * 8 > len(self.books)
        ):
            self._build(t, base)
        else:
            due = set()
            while self._due and self._due[0][0] <= t:
                due.add(heapq.heappop(self._due)[1])
            for key in moved | due:
                self._drop(key)
                self._add(key, t, base)
        self._at = (t, base)
        return self._waits(t)

    def _build(self, t: int, base: int) -> None:
        self._entry, self._lists, self._due = {}, {}, []
        for key in self.books:
            entry = self._entry_of(key, t, base)
            if entry is not None:
                self._entry[key] = entry
                self._lists.setdefault(entry[0], []).append(entry[1])
        for values in self._lists.values():
            values.sort()

    def _entry_of(self, key: str, t: int, base: int) -> tuple[int, float] | None:
        """Which list `key` is in at `t` and its sort value there (None: no wait yet); a head
        not yet due is noted, to move the key when it comes due."""
        b = self.books[key]
        if b.queued:
            due = b.queued[0][0] - base
            if due <= t:
                return b.dequeued, b.wait_sum_ms - due
            heapq.heappush(self._due, (due, key))  # (few: a delay's or a backoff's)
        return (IDLE, b.wait_sum_ms / b.dequeued) if b.dequeued else None

    def _drop(self, key: str) -> None:
        entry = self._entry.pop(key, None)
        if entry is not None:
            values = self._lists[entry[0]]
            del values[bisect.bisect_left(values, entry[1])]
            if not values:
                del self._lists[entry[0]]

    def _add(self, key: str, t: int, base: int) -> None:
        entry = self._entry_of(key, t, base)
        if entry is not None:
            self._entry[key] = entry
            bisect.insort(self._lists.setdefault(entry[0], []), entry[1])

    def _waits(self, t: int) -> Waits:
        n = len(self._entry)
        if not n:
            return Waits(0, {})
        ranks = sorted(
            {cdf_rank(k / levels, n) for levels in CDF_LEVELS for k in range(1, levels + 1)}
        )
        lists = [(served, values) for served, values in self._lists.items()]
        if len(lists) > MAX_LISTS:
            ordered = sorted(v for served, values in lists for v in _shown(served, values, t))
            return Waits(n, {rank: ordered[rank - 1] for rank in ranks})
        return Waits(n, {rank: _at_rank(lists, t, rank) for rank in ranks})


def _shown(served: int, values: Iterable[float], t: int) -> Iterable[float]:
    """The waits of a list's keys, as `wait_so_far` computes them."""
    if served == IDLE:
        return values
    return ((int(v) + t) / (served + 1) for v in values)


def _value(served: int, values: list[float], i: int, t: int) -> float:
    return values[i] if served == IDLE else (int(values[i]) + t) / (served + 1)


def _at_most(served: int, values: list[float], wait: float, t: int) -> int:
    """How many of a list's keys wait at most `wait`."""
    if served == IDLE:
        return bisect.bisect_right(values, wait)
    # the greatest whole numerator n with n / (served + 1) <= wait (a division of integers
    # is correctly rounded, so monotonic in n)
    parts = served + 1
    n = math.floor(wait * parts)
    while (n + 1) / parts <= wait:
        n += 1
    while n / parts > wait:
        n -= 1
    return bisect.bisect_right(values, n - t)


def _at_rank(lists: list[tuple[int, list[float]]], t: int, rank: int) -> float:
    """The `rank`-th smallest wait (1-based) over every list: in each list, the first key with
    at least `rank` waits at most its own; the least of those."""

    def reaches(wait: float) -> bool:
        return sum(_at_most(s, values, wait, t) for s, values in lists) >= rank

    best: float | None = None
    for served, values in lists:
        lo, hi = 0, len(values)
        while lo < hi:
            mid = (lo + hi) // 2
            if reaches(_value(served, values, mid, t)):
                hi = mid
            else:
                lo = mid + 1
        if lo < len(values):
            wait = _value(served, values, lo, t)
            best = wait if best is None else min(best, wait)
    assert best is not None  # rank <= the keys counted
    return best
