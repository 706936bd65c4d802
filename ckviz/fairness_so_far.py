"""The demand-aware fairness of a run in progress (docs/fairness.md, "While a run goes"),
kept as the run goes rather than recomputed from every dequeue at each look: the app's
status line reads it at every frame."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass

from ckviz.fairness import (
    MIN_OWED,
    KeyService,
    OwnLimit,
    Tally,
)
from ckviz.fairness_feed import InstantFeed
from ckviz.fairness_judged import attainments, most_underserved


@dataclass(frozen=True, slots=True)
class SoFar:
    """The headline of a run in progress, as the app's status line and panes draw it: the
    most under-served judged key (ties by name) and its attainment, and Jain's index over the
    judged keys' attainments (Jain's own definition: each key's throughput over its fair
    throughput); None: no key owed 3 dequeues yet (Jain: fewer than two such keys)."""

    underserved: str | None = None
    attainment: float | None = None
    jain: float | None = None  # from two judged keys on
    starved: frozenset[str] = frozenset()  # judged keys that got none (STARVED_MEANS)
    # where keys belong to tenants (some tenant holding two keys or more), as the results'
    # most_underserved_tenant: the most under-served tenant and the most over-served, each
    # with its attainment (docs/fairness.md, "Tenants"; fairness_tenants)
    tenant: tuple[str, float] | None = None
    tenant_over: tuple[str, float] | None = None


class ServiceSoFar(InstantFeed):
    """key_service of a run in progress, kept as the run goes rather than recomputed.

    It is fed each run as it arrives (`arrived`) and the dequeues as they are made
    (`dequeued`); every queued run counts as asked for, so an instant once past never changes
    (with only each key's oldest queued run counted, serving a key would add its next run's
    arrival in the past). At the end of a run nothing is queued and the figures are
    key_service's. `so_far` costs the keys that moved since the last look and the open keys
    judged, whatever the run's length and however many keys wait.
    """

    def __init__(
        self,
        weights: Mapping[str, float],
        own_limit: OwnLimit | None = None,
        per_call: int | None = None,
    ) -> None:
        self._books = Tally(weights, per_call, own_limit.cap if own_limit else None)
        self._books.changed = set()
        self._judged = _Judged(self._books)
        super().__init__(self._books, own_limit.holds if own_limit else None)

    def so_far(self, t: int) -> SoFar:
        """The figures at `t`, the instant under way (`t`'s dequeues so far) counted as if
        it ended now."""
        if self._instant is not None and self._instant < t:
            self._share_out()
        if not self._batch:
            return self._figures()[0]
        assert self._instant is not None  # shared out, then taken back: more may come
        self._open_until(self._instant)
        books = self._books
        self._place_moved()  # for good, so only what the instant's share moves is placed twice
        with books.shared_out_for_now(len(self._batch), [e.key for e in self._batch]):
            figures, placed = self._figures()
        books.changed = placed  # placed as they stood for now: placed again next time
        return figures

    def _figures(self) -> tuple[SoFar, set[str]]:
        """The judged keys' figures, each open one paid as `Tally.close` would, and the keys
        that moved since the last look (placed anew)."""
        books, judged = self._books, self._judged
        changed = self._place_moved()
        judged.reach(books.level)
        level, since, weights, got, owed = (
            books.level,
            books.since,
            books.weights,
            books.got,
            books.owed,
        )
        worst = judged.lowest()
        total, squares, count = judged.total, judged.squares, len(judged.closed)
        starved = set(judged.none)
        for key in judged.open:  # owed enough, or about to be: paid up to now
            paid = owed[key][0] + weights[key] * (level - since[key][0])
            if paid < MIN_OWED:
                continue
            attainment = got[key][0] / paid
            if attainment == 0:
                starved.add(key)
            count += 1
            total += attainment
            squares += attainment * attainment
            if worst is None or (attainment, key) < worst:
                worst = (attainment, key)
        if worst is None:
            return SoFar(None, None, None), changed
        jain = None if count < 2 else (total * total / (count * squares) if squares else 1.0)
        return SoFar(worst[1], worst[0], jain, frozenset(starved)), changed

    def _place_moved(self) -> set[str]:
        """Place the keys that moved since the last look: those keys."""
        books = self._books
        changed, books.changed = books.changed or set(), set()
        for key in changed:
            self._judged.place(key)
        return changed

    def _book_instant(self, served: list[str]) -> None:
        self._books.share_out(len(served), served)


def headline(service: Mapping[str, KeyService]) -> SoFar:
    """The figures ServiceSoFar keeps, from key_service's."""
    judged = attainments(service)
    key, attainment = most_underserved(service) or (None, None)
    values = list(judged.values())
    squares = sum(a * a for a in values)
    jain = None
    if len(values) >= 2:
        jain = sum(values) ** 2 / (len(values) * squares) if squares else 1.0
    return SoFar(key, attainment, jain, frozenset(k for k, a in judged.items() if a == 0))


class _Judged:
    """Where each key of a Tally stands for the figures, so a look costs the keys that moved
    and those judged while open, not every key: a closed key's attainment is kept (and summed)
    until it moves; an open key not owed MIN_OWED yet waits in a heap for the level at which it
    will be (its owed grows with the level)."""

    def __init__(self, books: Tally) -> None:
        self.books = books
        self.closed: dict[str, float] = {}  # judged keys with no room: their attainment
        self.total = self.squares = 0.0  # of `closed`
        self.none: set[str] = set()  # the keys of `closed` that got none (starved)
        self._lowest: list[tuple[float, str]] = []  # heap of `closed`, stale entries left
        self.open: set[str] = set()  # open keys owed MIN_OWED, or nearly
        self._waiting: list[tuple[float, int, str]] = []  # (level it is judged at, stamp, key)
        self._stamp: dict[str, int] = {}  # a waiting key's entry
        self._stamps = 0

    def place(self, key: str) -> None:
        """Put `key` where it stands now (it moved)."""
        if (was := self.closed.pop(key, None)) is not None:
            self.total -= was
            self.squares -= was * was
        self.open.discard(key)
        self.none.discard(key)
        self._stamp.pop(key, None)
        books = self.books
        owed = books.owed[key][0]
        if books.room[key]:
            # owed + weight x (level - since) reaches MIN_OWED at this level (a hair early:
            # the figures check what it is owed)
            at = books.since[key][0] + (MIN_OWED - owed) / books.weights[key] - 1e-9
            if at <= books.level:
                self.open.add(key)
            else:
                self._stamps += 1
                self._stamp[key] = self._stamps
                heapq.heappush(self._waiting, (at, self._stamps, key))
        elif owed >= MIN_OWED:
            attainment = books.got[key][0] / owed
            self.closed[key] = attainment
            if attainment == 0:
                self.none.add(key)
            self.total += attainment
            self.squares += attainment * attainment
            heapq.heappush(self._lowest, (attainment, key))

    def reach(self, level: float) -> None:
        """The open keys owed MIN_OWED by `level` join the judged open ones."""
        waiting = self._waiting
        while waiting and waiting[0][0] <= level:
            _, stamp, key = heapq.heappop(waiting)
            if self._stamp.get(key) == stamp:
                del self._stamp[key]
                self.open.add(key)

    def lowest(self) -> tuple[float, str] | None:
        """The closed judged key with the lowest attainment (ties: the first name)."""
        heap, closed = self._lowest, self.closed
        while heap and closed.get(heap[0][1]) != heap[0][0]:
            heapq.heappop(heap)
        return heap[0] if heap else None
