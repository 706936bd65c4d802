"""The per-key rows a snapshot carries: those a view asked for, picked from the books.

The app shows a few dozen keys of thousands, so a snapshot builds rows for those only. Ranking
the keys for a sort still looks at every key (one pass over the books, no row each); the
figures over every key that the panes show (the longest wait, the deepest queue) are kept
from the keys whose queue changed since the last snapshot (at 100,000 keys a pass per
snapshot was a step's largest cost).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from ckviz.model.names import natural_key
from ckviz.model.queue import IndexEntry
from ckviz.model.snapshot import SORTS, KeyFigures, KeyRow, ViewRequest, Waits, wait_so_far
from ckviz.sim.engine.ledger import KeyBook, Ledger
from ckviz.sim.engine.waits import KeptWaits
from ckviz.store.runqueue import RunQueue


class Picked(NamedTuple):
    """The rows a view asked for, and what a snapshot says about every key."""

    keys: tuple[KeyRow, ...]  # pinned first, then the sort's, at most `limit` of them
    figures: KeyFigures


def _head(book: KeyBook) -> int | None:
    """The score of the key's oldest queued run; None: nothing queued."""
    return book.queued[0][0] if book.queued else None


class _Greater(str):
    """A key name that sorts first when it is the greater one (a min-heap's ties)."""

    __slots__ = ()

    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)


class KeyView:
    """Rows of one ledger's books on demand (the books change; the key names do not).

    `queues_moved` hands over the keys whose queue changed since it was last called: the
    longest wait and the deepest queue are then kept in heaps of those keys' (head, depth),
    entries checked against the books when they reach the top (lazily dropped once stale).
    Without it, every snapshot walks every key.
    """

    def __init__(
        self,
        books: Mapping[str, KeyBook],
        queues_moved: Callable[[], set[str]] | None = None,
        waits_moved: Callable[[], set[str] | None] | None = None,
    ) -> None:
        self.books = books
        # every key's wait so far, kept from the keys moved since it was last asked (none:
        # walked and sorted each time it is asked)
        self._waits_moved = waits_moved
        self._kept_waits = KeptWaits(books)
        self.key_names = tuple(books)  # shared by every snapshot, never copied
        self._natural: dict[str, int] | None = None
        self._queues_moved = queues_moved
        self._oldest: list[tuple[int, _Greater]] | None = None  # (head score, key)
        self._deepest: list[tuple[int, str]] = []  # (-runs queued, key)

    def row(self, key: str) -> KeyRow:
        b = self.books[key]
        head = float(b.queued[0][0]) if b.queued else None
        return KeyRow(
            key, b.weight, len(b.queued), b.to_arrive, b.dequeued, b.held, head, b.wait_sum_ms
        )

    def pick(self, view: ViewRequest, t: int, score_base: int, index_size: int) -> Picked:
        longest, deepest = self._extremes(t, score_base)
        pool = self.key_names if view.only is None else view.only
        allowed = None if view.only is None else set(view.only)
        pins = [k for k in view.pinned if k in self.books]
        if view.pin_longest_wait and longest is not None and longest[0] not in pins:
            pins.append(longest[0])
        pins = [k for k in pins if allowed is None or k in allowed]
        pinned = set(pins)
        rest = (k for k in pool if k not in pinned) if pinned else iter(pool)
        chosen = pins + self._ranked(rest, view, t, score_base)
        waits = None
        if view.waits and view.only is None and self._waits_moved is not None:
            waits = self._kept_waits.figures(self._waits_moved(), t, score_base)
        elif view.waits:
            waits = self._waits(pool, t, score_base)
        figures = KeyFigures(self.key_names, len(pool), index_size, longest, deepest, waits)
        return Picked(tuple(map(self.row, chosen)), figures)

    def carried(self, keys: tuple[KeyRow, ...], *also: Iterable[str]) -> dict[str, KeyRow]:
        """The rows by key: `keys`, and a row for each key named in `also` (other panes')."""
        rows = {row.key: row for row in keys}
        for key in itertools.chain(*also):
            if key not in rows and key in self.books:
                rows[key] = self.row(key)
        return rows

    def _ranked(self, keys: Iterable[str], view: ViewRequest, t: int, base: int) -> list[str]:
        """`keys` in the view's order (largest first, ties in natural order), `limit` of them."""
        if view.sort == SORTS[0]:
            return list(itertools.islice(keys, view.limit))
        value = self._value(view.sort, t, base)
        natural = self._natural_ranks()

        def rank(key: str) -> tuple[float, int]:
            return -value(self.books[key]), natural[key]

        if view.limit is None:
            return sorted(keys, key=rank)
        return heapq.nsmallest(view.limit, keys, key=rank)

    @staticmethod
    def _value(by: str, t: int, base: int) -> Callable[[KeyBook], float]:
        """What `by` sorts on, as the per-key table's sort_value reads it from a row."""
        if by not in SORTS:
            raise ValueError(f"unknown sort {by!r}")

        def value(b: KeyBook) -> float:
            if by == "queued":
                return len(b.queued)
            if by == "out":
                return b.dequeued
            age = None if not b.queued else t - (b.queued[0][0] - base)
            shown = age if by == "age" else wait_so_far(b.wait_sum_ms, b.dequeued, age)
            return -1.0 if shown is None else shown

        return value

    def _waits(self, keys: Iterable[str], t: int, base: int) -> Waits:
        """Each key's wait so far (its oldest queued run counted), as the CDF reads them:
        one pass and a sort (what the kept figures must always agree with)."""
        waits = []
        for key in keys:
            b = self.books[key]
            age = t - (b.queued[0][0] - base) if b.queued else None
            wait = wait_so_far(b.wait_sum_ms, b.dequeued, age)
            if wait is not None:
                waits.append(wait)
        return Waits.of(sorted(waits))

    def _natural_ranks(self) -> dict[str, int]:
        if self._natural is None:
            ordered = sorted(self.key_names, key=natural_key)  # stable: scenario order on ties
            self._natural = {key: i for i, key in enumerate(ordered)}
        return self._natural

    def _extremes(self, t: int, base: int) -> tuple[tuple[str, float] | None, int]:
        """The key whose oldest queued run has waited longest (ties: the greater name), and
        the most runs queued on one key."""
        if self._queues_moved is None:
            return self.walk_extremes(t, base)
        moved, books = self._queues_moved(), self.books
        if len(moved) * 8 > len(books):  # runs pouring in: pushing that many costs more than a walk
            self._oldest = None
            return self.walk_extremes(t, base)
        if self._oldest is None or len(self._oldest) > 4 * len(books) + 64:
            self._rebuild()
        else:
            for key in moved:
                queued = books[key].queued
                if queued:
                    heapq.heappush(self._oldest, (queued[0][0], _Greater(key)))
                    heapq.heappush(self._deepest, (-len(queued), key))
        oldest, deepest = self._oldest, self._deepest
        assert oldest is not None  # rebuilt above
        while oldest and _head(books[oldest[0][1]]) != oldest[0][0]:
            heapq.heappop(oldest)
        while deepest and len(books[deepest[0][1]].queued) != -deepest[0][0]:
            heapq.heappop(deepest)
        longest = None if not oldest else (str(oldest[0][1]), float(t - (oldest[0][0] - base)))
        return longest, -deepest[0][0] if deepest else 0

    def _rebuild(self) -> None:
        """The heaps afresh from every key's books (stale entries gone)."""
        queues = [(key, b.queued) for key, b in self.books.items() if b.queued]
        self._oldest = [(queued[0][0], _Greater(key)) for key, queued in queues]
        self._deepest = [(-len(queued), key) for key, queued in queues]
        heapq.heapify(self._oldest)
        heapq.heapify(self._deepest)

    def walk_extremes(self, t: int, base: int) -> tuple[tuple[str, float] | None, int]:
        """_extremes by a walk over every key (what the kept heaps must always agree with)."""
        oldest: tuple[float, str] | None = None
        deepest = 0
        for key, b in self.books.items():
            queued = b.queued
            if queued:
                deepest = max(deepest, len(queued))
                candidate = (t - (queued[0][0] - base), key)
                if oldest is None or candidate > oldest:
                    oldest = candidate
        return (None if oldest is None else (oldest[1], float(oldest[0]))), deepest


class MovedQueues:
    """The keys whose queue changed, which the ledger hands over once, handed to each of
    several readers: each gets those changed since it last asked."""

    def __init__(self, take: Callable[[], set[str]]) -> None:
        self._take = take
        self._unread: dict[int, set[str]] = {}  # a reader's id -> keys moved since it asked

    def since(self, reader: object) -> set[str] | None:
        """The keys moved since `reader` last asked; None on its first ask (it starts then)."""
        fresh, me = self._take(), id(reader)
        for other, unread in self._unread.items():
            if other != me:
                unread |= fresh
        if me not in self._unread:
            self._unread[me] = set()
            return None
        moved, self._unread[me] = self._unread[me], set()
        return moved | fresh

    def reader(self) -> Callable[[], set[str]]:
        """A reader starting now, as a callable."""
        token = object()  # the reader's own: kept alive by the callable, so its id stays its
        self.since(token)
        return lambda: self.since(token) or set()

    def lazy_reader(self) -> Callable[[], set[str] | None]:
        """A reader starting on its first call (which returns None), as a callable: one that
        may never be asked costs nothing."""
        token = object()
        return lambda: self.since(token)


class QueuedKeys:
    """The keys with runs queued, from the books: ckIndex's members (the checks hold the two
    equal after every trip; between trips the books also hold what an unsent trip enqueues),
    for a next order that need not read ckIndex whole, and Redis's word on a few of them."""

    def __init__(self, ledger: Ledger, moved: MovedQueues, queue: RunQueue) -> None:
        self.ledger = ledger
        self._moved = moved
        self.queue = queue

    def queued(self, key: str) -> bool:
        book = self.ledger.books.get(key)
        return book is not None and bool(book.queued)

    def keys(self) -> Iterable[str]:
        return (key for key, book in self.ledger.books.items() if book.queued)

    def count(self) -> int:
        return self.ledger.queued_keys

    def moved(self, reader: object) -> set[str] | None:
        return self._moved.since(reader)

    def indexed(self, keys: Sequence[str]) -> list[bool]:
        return self.queue.in_index(keys)


class IndexPeek:
    """ckIndex as a snapshot reads it: its first entries (or all) and its size, read once
    between trips. Not a round trip of the run: the serve loop of a Lua-ordered discipline
    never reads it. What the outbox still holds is at most a dequeue sure to take nothing,
    which changes no score."""

    def __init__(self, queue: RunQueue) -> None:
        self.queue = queue
        self._read: tuple[int | None, tuple[IndexEntry, ...], int] | None = None

    def read(self, limit: int | None) -> tuple[tuple[IndexEntry, ...], int]:
        """The first `limit` entries (None: all) and the size; read again only if needed."""
        read = self._read
        if read is None or not (read[0] is None or (limit is not None and limit <= read[0])):
            entries, size = self.queue.peek_index(limit)
            read = self._read = (limit, tuple(entries), size)
        return read[1], read[2]

    def forget(self) -> None:
        """A trip ran: ckIndex may have changed."""
        self._read = None
